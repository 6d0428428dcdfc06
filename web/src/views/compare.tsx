// The comparison page (a `comparisonUrl`): one metric overlaid across runs, their statistics, and
// the config keys in which they differ.

import { useMemo, useState } from "preact/hooks";
import { api } from "../api.ts";
import { Chart, PALETTE } from "../components/chart.tsx";
import { ErrorNote, Loading, PageTitle, ProjectCrumb, StatusBadge } from "../components/common.tsx";
import { MetricSelect, useMetricChoice } from "../components/metric-select.tsx";
import { ChartControls, DEFAULT_CHART_SETTINGS } from "../components/run/charts.tsx";
import { POINTS_PER_CHART } from "../components/metric-chart.tsx";
import { useAsync, useStoredState } from "../hooks.ts";
import { formatNumber, formatValue } from "../lib/format.ts";
import { alignSeries, runSeries, stepsOfRange } from "../lib/series.ts";
import { differingKeys, flatten } from "../lib/tree.ts";
import { Link, runPath, setQuery } from "../router.tsx";

export function ComparePage({ projectName, runIds }: { projectName: string; runIds: number[] }) {
  const { names, metric } = useMetricChoice(projectName, runIds);
  const [settings, setSettings] = useStoredState("stepwise.chartSettings", DEFAULT_CHART_SETTINGS);
  const [window, setWindow] = useState<[number, number] | null>(null);
  const [allKeys, setAllKeys] = useState(false);

  const comparison = useAsync(() => (metric ? api.compare(projectName, runIds, metric) : Promise.resolve(undefined)), [projectName, runIds.join(","), metric]);
  const points = useAsync(
    () =>
      Promise.all(
        runIds.map((runId) =>
          metric
            ? api
                .metrics({ projectName, runId }, metric, { limit: POINTS_PER_CHART, ...(window ? { stepMin: window[0], stepMax: window[1] } : {}) })
                .then((response) => response.metrics)
            : Promise.resolve([]),
        ),
      ),
    [projectName, runIds.join(","), metric, window?.join("-")],
  );

  const runs = comparison.data?.runs ?? [];
  const nameOf = (runId: number) => runs.find((run) => run.runId === runId)?.runName ?? `run ${runId}`;
  const chart = useMemo(() => {
    if (!points.data) return null;
    const perRun = points.data.map((runPoints, index) => runSeries(runPoints, settings, nameOf(runIds[index]!), PALETTE[index % PALETTE.length]!));
    const aligned = alignSeries(perRun.flatMap((run) => run.lines.map((line) => ({ x: run.x, y: line.values, markers: [] }))));
    const lines = perRun.flatMap((run) => run.lines).map((line, index) => ({ ...line, values: aligned[index + 1]! }));
    return { x: aligned[0], lines, markers: perRun.flatMap((run) => run.markers) };
  }, [points.data, settings, comparison.data]); // run names come with the comparison

  const configs = runs.map((run) => run.config);
  const flats = configs.map((config) => flatten(config));
  const keys = allKeys ? [...new Set(flats.flatMap((flat) => Object.keys(flat)))].sort() : differingKeys(configs);

  if (runIds.length === 0) return <p class="error">No runs to compare: select runs in the runs table.</p>;
  return (
    <section>
      <ProjectCrumb projectName={projectName} />
      <PageTitle title={`Compare ${runIds.length} runs`} />
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
            xAxis={settings.xAxis}
            logScale={settings.logScale}
            height={320}
            onZoom={(min, max) => {
              const next = stepsOfRange(points.data!.flat().sort((a, b) => a.step - b.step), settings.xAxis, min, max);
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
            {["count", "min", "max", "mean", "final"].map((name) => (
              <th scope="col" class="number" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {runs.map((run, index) => (
            <tr key={run.runId}>
              <td>
                <span class="swatch" style={{ background: PALETTE[index % PALETTE.length] }} />
                <Link href={runPath(projectName, run.runId)}>{run.runName}</Link>
              </td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              {(["count", "min", "max", "mean", "final"] as const).map((name) => (
                <td class="number" key={name}>
                  {formatNumber(run.stats?.[name])}
                </td>
              ))}
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
                    {run.runName}
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
                    <td key={index}>{key in flat ? formatValue(flat[key]) : <span class="muted">—</span>}</td>
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
