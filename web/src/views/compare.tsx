// The comparison page (a `comparisonUrl`): one metric overlaid across runs, their statistics, and
// the config keys in which they differ.

import { useMemo, useState } from "preact/hooks";
import { flatten, type Json } from "../../../src/domain/shared-with-ui.ts";
import { ApiError, api } from "../api.ts";
import { Chart } from "../components/chart.tsx";
import { ErrorNote, Loading, PageTitle, ProjectCrumb, StatusBadge } from "../components/common.tsx";
import { MetricSelect, useMetricChoice } from "../components/metric-select.tsx";
import { useChartSettings } from "../components/chart-settings.ts";
import { ChartControls } from "../components/run/charts.tsx";
import { POINTS_PER_CHART } from "../components/run/series-feed.ts";
import { usePickedColors } from "../components/workspace/stored.ts";
import { useServerState } from "../hooks.ts";
import { formatNumber, formatValue } from "../lib/format.ts";
import { defaultMetric } from "../lib/metric-choice.ts";
import { endKind } from "../lib/series-end.ts";
import { assignRunColors, runColor } from "../lib/run-color.ts";
import { drawnAxis, overlayRuns, pointsOfBatch, runSeries, stepsOfRange } from "../lib/series.ts";
import { differingKeys } from "../lib/tree.ts";
import { batchPlan } from "../lib/workspace.ts";
import { Link, runPath, setQuery } from "../router.tsx";
import type { LastPoint } from "../types.ts";

/** The last point of any kind: `NaN @ 1,880` in red for a diverged series, else `value @ step`. */
function LastPointCell({ lastPoint }: { lastPoint: LastPoint | null | undefined }) {
  if (!lastPoint) return <>–</>;
  const kind = endKind(lastPoint);
  const step = formatNumber(lastPoint.step);
  return kind ? (
    <span class="diverged" data-diverged={kind}>
      {kind} @ {step}
    </span>
  ) : (
    <>
      {formatNumber(lastPoint.value)} <span class="muted">@ {step}</span>
    </>
  );
}

/**
 * The requested runs that exist in the project, in order (an unknown or other-project ID is left
 * out): the comparison of a metric they have lists them, two requests whatever the number of runs;
 * runs without any metric are asked for one by one.
 */
async function runsInProject(projectName: string, runIds: number[]): Promise<number[]> {
  const metric = defaultMetric((await api.metricNames(projectName, runIds)).metricNames);
  if (metric) {
    const compared = new Set((await api.compare(projectName, runIds, metric)).runs.map((run) => run.runId));
    return runIds.filter((runId) => compared.has(runId));
  }
  const found = await Promise.all(
    runIds.map((runId) =>
      api.run(runId).then(
        (run) => (run.projectName === projectName ? runId : undefined),
        (error: Error) => {
          if (error instanceof ApiError && error.status === 404) return undefined;
          throw error;
        },
      ),
    ),
  );
  return found.filter((runId) => runId !== undefined);
}

export function ComparePage({ projectName, runIds: requested }: { projectName: string; runIds: number[] }) {
  // An unknown run ID is said, not waited for: only the runs that exist are compared.
  const known = useServerState(["runsInProject", projectName, requested.join(",")], () => runsInProject(projectName, requested));
  const runIds = known.data ?? [];
  // The compared runs are coloured as a set, with the colours picked for them in the project's table.
  const { picked } = usePickedColors(projectName);
  const colors = useMemo(() => assignRunColors(runIds, picked), [runIds.join(","), picked]);
  const colorOf = (runId: number) => colors.get(runId) ?? runColor(runId, picked.get(runId));
  const missing = known.data ? requested.filter((runId) => !known.data!.includes(runId)) : [];
  const { names, metric } = useMetricChoice(projectName, known.data && runIds.length > 0 ? runIds : requested);
  const [settings, setSettings] = useChartSettings(); // in the URL: a copied link draws the same chart
  const [window, setWindow] = useState<[number, number] | null>(null);
  const [allKeys, setAllKeys] = useState(false);

  const comparison = useServerState(["compare", projectName, runIds.join(","), metric], () => api.compare(projectName, runIds, metric), {
    enabled: metric !== "" && runIds.length > 0,
  });
  const points = useServerState(
    ["comparePoints", projectName, runIds.join(","), metric, window?.join("-")],
    () =>
      Promise.all(
        // One batch read for every run (split only past its limits), each series sampled as
        // /api/runs/metrics samples POINTS_PER_CHART points.
        batchPlan(runIds, [metric], POINTS_PER_CHART / 4).map(({ runIds: ids }) =>
          api.metricsBatch({
            projectName,
            runIds: ids,
            logNames: [metric],
            buckets: POINTS_PER_CHART / 4,
            ...(window ? { stepMin: window[0], stepMax: window[1] } : {}),
          }),
        ),
      ).then((answers) => {
        const byRun = new Map(answers.flatMap((answer) => answer.series).map((series) => [series.runId, pointsOfBatch(series)]));
        return runIds.map((runId) => byRun.get(runId) ?? []);
      }),
    // Nothing to draw until the runs and the metric are known: an empty chart first would pass for a drawn one.
    { enabled: known.data !== undefined && metric !== "" },
  );

  const runs = comparison.data?.runs ?? [];
  const nameOf = (runId: number) => runs.find((run) => run.runId === runId)?.runName ?? `run ${runId}`;
  const chart = useMemo(() => {
    if (!points.data) return null;
    // A metric whose points all sit at one step is drawn against time (lib/series.ts, drawnAxis).
    const xAxis = drawnAxis(
      settings.xAxis,
      points.data.map((runPoints) => runPoints.map((point) => point.step)),
      "time",
      [metric],
    );
    const drawn = { ...settings, xAxis };
    const perRun = points.data.map((runPoints, index) => runSeries(runPoints, drawn, nameOf(runIds[index]!), colorOf(runIds[index]!)));
    return { ...overlayRuns(perRun), xAxis };
  }, [points.data, settings, comparison.data, colors]); // run names come with the comparison

  const configs = runs.map((run) => run.config);
  const flats = configs.map((config) => flatten(config as Json));
  const keys = allKeys ? [...new Set(flats.flatMap((flat) => Object.keys(flat)))].sort() : differingKeys(configs);

  if (requested.length === 0) return <p class="error">No runs to compare: select runs in the runs table.</p>;
  const unknown = missing.length > 0 && (
    <p class="error" role="alert" data-testid="unknown-runs">
      {missing.length === 1 ? "No run" : "No runs"} {missing.join(", ")} in project {projectName}
      {runIds.length > 0 ? `: comparing the other ${runIds.length === 1 ? "run" : `${runIds.length} runs`}.` : "."}
    </p>
  );
  if (known.error || !known.data || runIds.length === 0)
    return (
      <section>
        <ProjectCrumb projectName={projectName} />
        <PageTitle title={`Compare ${requested.length} runs`} />
        <ErrorNote error={known.error} />
        {!known.data && !known.error && <Loading what="runs" />}
        {unknown}
      </section>
    );
  return (
    <section>
      <ProjectCrumb projectName={projectName} />
      <PageTitle title={`Compare ${runIds.length} runs`} />
      {unknown}
      <div class="toolbar">
        <MetricSelect
          names={names.data?.metricNames ?? []}
          metric={metric}
          onChange={(name) => {
            setWindow(null);
            setQuery({ metric: name });
          }}
          testId="compare-metric"
        />
        <ChartControls settings={settings} onChange={setSettings} />
        {window && (
          <button type="button" class="link" onClick={() => setWindow(null)}>
            steps {window[0]}–{window[1]} ✕
          </button>
        )}
      </div>
      <ErrorNote error={names.error ?? comparison.error ?? points.error} />
      {names.data?.metricNames.length === 0 && <p class="muted">These runs have no metrics.</p>}
      {metric && !chart && <Loading what="metric" />}
      {metric && chart && (
        <div class="chart-card wide" data-metric={metric}>
          <Chart
            x={chart.x}
            series={chart.lines}
            markers={chart.markers}
            xAxis={chart.xAxis}
            logScale={settings.logScale}
            clipY={settings.clipY}
            height={320}
            onZoom={(min, max) => {
              const next = stepsOfRange(
                points.data!.flat().sort((a, b) => a.step - b.step),
                chart.xAxis,
                min,
                max,
              );
              if (next && next[0] <= next[1]) setWindow(next);
            }}
            onReset={() => setWindow(null)}
          />
        </div>
      )}

      <h2>Statistics of {metric}</h2>
      <table class="data-table" data-testid="compare-stats">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            {["count", "min", "max", "mean", "last finite", "last point"].map((name) => (
              <th scope="col" class="number" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId}>
              <td>
                <span class="swatch" style={{ background: colorOf(run.runId) }} />
                <Link href={runPath(projectName, run.runId)} class="truncate run-name" title={run.runName}>
                  {run.runName}
                </Link>
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              {(["count", "min", "max", "mean", "final"] as const).map((name) => (
                <td class="number" key={name}>
                  {formatNumber(run.stats?.[name])}
                </td>
              ))}
              <td class="number">
                <LastPointCell lastPoint={run.stats?.lastPoint} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Config {allKeys ? "" : "differences"}</h2>
      <label>
        <input type="checkbox" checked={allKeys} onChange={(event) => setAllKeys(event.currentTarget.checked)} /> show all keys
      </label>
      {keys.length === 0 ? (
        <p class="muted">{allKeys ? "No config." : "The configs do not differ."}</p>
      ) : (
        <div class="table-scroll">
          <table class="data-table" data-testid="config-diff">
            <thead>
              <tr>
                <th scope="col">Key</th>
                {runs.map((run) => (
                  <th scope="col" key={run.runId}>
                    <span class="truncate run-name" title={run.runName}>
                      {run.runName}
                    </span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key}>
                  <th scope="row" class="mono">
                    {key}
                  </th>
                  {flats.map((flat, index) => (
                    <td key={index}>{Object.hasOwn(flat, key) ? formatValue(flat[key]) : <span class="muted">—</span>}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
