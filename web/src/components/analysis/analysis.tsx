// The project page's sweep analysis (issue 23, item 1; docs/decisions.md, "Web UI: sweep analysis"):
// over the runs the table's filter selects (up to 2,000, one /api/runs/sweep read), parallel
// coordinates of the config keys that differ and the main metrics, a scatter, and the importance of
// each key for a chosen metric. Brushes on the parallel coordinates narrow the table and charts.

import { useMemo, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { importances } from "../../lib/importance.ts";
import { defaultMetric, mainMetrics } from "../../lib/metric-choice.ts";
import { type Axis, axisOf, type Brush, configAxisId, metricAxisId, type SweepRow, valueOn } from "../../lib/sweep-axes.ts";
import { ErrorNote, Loading } from "../common.tsx";
import type { Selection } from "../../lib/workspace.ts";
import { ImportanceTable } from "./importance-table.tsx";
import { ParallelCoordinates } from "./parallel-coordinates.tsx";
import { Scatter } from "./scatter.tsx";
import "./analysis.css";

/** Runs the analysis reads: a sweep of thousands is read whole, and drawn in about a second. */
const SWEEP_RUNS = 2000;
/** Config keys drawn as axes at most, the most important first: more would be unreadable. */
const AXIS_KEYS = 10;

export function Analysis({
  projectName,
  selection,
  brushes,
  onBrushes,
}: {
  projectName: string;
  selection: Selection;
  brushes: readonly Brush[];
  onBrushes: (brushes: Brush[]) => void;
}) {
  const names = useServerState(["metricNames", projectName, undefined], () => api.metricNames(projectName));
  const metricNames = names.data?.metricNames ?? [];
  const [chosen, setChosen] = useState("");
  const target = chosen && metricNames.includes(chosen) ? chosen : defaultMetric(metricNames);
  const metrics = [...new Set([target, ...mainMetrics(metricNames, 3)].filter(Boolean))];
  const sweep = useServerState(
    ["sweep", projectName, selection.search, selection.tags, selection.status, selection.sort, selection.filter, metrics.join("\n")],
    () => api.sweep({ projectName, ...selection, limit: SWEEP_RUNS, metrics: JSON.stringify(metrics) }),
    { enabled: metrics.length > 0 },
  );
  const analysis = useMemo(() => {
    if (!sweep.data) return null;
    const rows: SweepRow[] = sweep.data.runs;
    const y = Float64Array.from(rows, (row) => {
      const value = valueOn(row, metricAxisId(target));
      return typeof value === "number" ? value : Number.NaN;
    });
    const ranked = importances(sweep.data.keys, (key) => rows.map((row) => valueOn(row, configAxisId(key))), y);
    const keyAxes = ranked.slice(0, AXIS_KEYS).map((entry) => axisOf(configAxisId(entry.key), rows));
    // The target metric last, at the right edge, where the lines end.
    const metricAxes = [...metrics.filter((name) => name !== target), target].map((name) => axisOf(metricAxisId(name), rows));
    return { rows, ranked, keyAxes, metricAxes, withTarget: y.filter(Number.isFinite).length };
  }, [sweep.data, target]);

  if (names.data && metricNames.length === 0) return <p class="muted">No metrics yet: nothing to analyse.</p>;
  const axes: Axis[] = analysis ? [...analysis.keyAxes, ...analysis.metricAxes] : [];
  const targetAxis = analysis?.metricAxes.at(-1);
  return (
    <div class="analysis" data-testid="analysis">
      <div class="toolbar">
        <label>
          Metric{" "}
          <select value={target} onChange={(event) => setChosen(event.currentTarget.value)} data-testid="analysis-metric">
            {metricNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {sweep.data && (
          <span class="muted" data-testid="analysis-count">
            {sweep.data.runs.length < sweep.data.total
              ? `the first ${sweep.data.runs.length} of ${sweep.data.total} runs`
              : `${sweep.data.total} runs`}
            , {sweep.data.keys.length} config keys differ
            {sweep.data.moreKeys > 0 ? ` (${sweep.data.moreKeys} more not read)` : ""}
          </span>
        )}
        {brushes.length > 0 && (
          <button type="button" class="link" onClick={() => onBrushes([])} data-testid="clear-brushes">
            clear {brushes.length} {brushes.length === 1 ? "brush" : "brushes"}
          </button>
        )}
      </div>
      <ErrorNote error={names.error ?? sweep.error} />
      {!analysis && (names.loading || sweep.loading) && <Loading what="the sweep" />}
      {analysis && analysis.rows.length === 0 && <p class="muted">No runs match.</p>}
      {analysis && analysis.rows.length > 0 && (
        <>
          <p class="muted analysis-hint">Drag along an axis to keep only the runs within; click an axis to clear it.</p>
          <ParallelCoordinates rows={analysis.rows} axes={axes} colorAxis={targetAxis} brushes={brushes} onBrushes={onBrushes} />
          <div class="analysis-pair">
            <Scatter
              rows={analysis.rows}
              axes={axes}
              metricAxes={analysis.metricAxes}
              defaults={{ x: axes[0]!.id, y: targetAxis!.id, color: analysis.keyAxes[1]?.id ?? targetAxis!.id }}
            />
            <ImportanceTable entries={analysis.ranked} metric={target} runs={analysis.withTarget} />
          </div>
        </>
      )}
    </div>
  );
}
