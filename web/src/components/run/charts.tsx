// Every metric of a run as a chart, grouped by log group in the workspace's order (train, val, then
// the rest; lib/workspace.ts), filtered by the metric search, with shared axis, smoothing and scale
// settings, which the page's URL carries (components/chart-settings.ts).

import { useMemo, useState } from "preact/hooks";
import type { RunRef } from "../../api.ts";
import type { Async } from "../../hooks.ts";
import { useChartSettings } from "../chart-settings.ts";
import type { ChartSettings } from "../../lib/series.ts";
import { matchesSearch, sectionsOf } from "../../lib/workspace.ts";
import type { Statistics } from "../../types.ts";
import { ErrorNote, Loading, MetricSearch } from "../common.tsx";
import { MetricChart } from "../metric-chart.tsx";
import { useRunSeries } from "./series-feed.ts";

export function ChartControls({ settings, onChange }: { settings: ChartSettings; onChange: (settings: ChartSettings) => void }) {
  return (
    <>
      <label>
        X axis
        <select
          value={settings.xAxis}
          onChange={(event) => onChange({ ...settings, xAxis: event.currentTarget.value as ChartSettings["xAxis"] })}
        >
          <option value="step">step</option>
          <option value="time">time</option>
        </select>
      </label>
      <label>
        Smoothing {settings.smoothing.toFixed(2)}
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={settings.smoothing}
          onInput={(event) => onChange({ ...settings, smoothing: Number(event.currentTarget.value) })}
        />
      </label>
      <label>
        <input
          type="checkbox"
          checked={settings.logScale}
          onChange={(event) => onChange({ ...settings, logScale: event.currentTarget.checked })}
        />
        log scale
      </label>
      <label title="Clip the y range to the bulk of the data (1st–99th percentile); points outside are marked at the edge">
        <input
          type="checkbox"
          checked={settings.clipY ?? false}
          onChange={(event) => onChange({ ...settings, clipY: event.currentTarget.checked })}
        />
        clip y
      </label>
    </>
  );
}

/** The run page reloads `statistics` on each live refresh: new metrics and new steps show up from it. */
export function RunCharts({ run, statistics, forkStep }: { run: RunRef; statistics: Async<Statistics>; forkStep: number | null }) {
  const [settings, setSettings] = useChartSettings();
  const [search, setSearch] = useState("");
  const metrics = statistics.data?.metrics;
  const series = useRunSeries(run, metrics);

  const groups = useMemo(
    () =>
      sectionsOf(
        (metrics ?? []).filter((metric) => matchesSearch(metric.logName, search)),
        (metric) => metric.logName,
      ),
    [metrics, search],
  );
  if (statistics.error) return <ErrorNote error={statistics.error} />;
  if (!metrics) return <Loading what="metrics" />;

  return (
    <div>
      <div class="toolbar">
        <MetricSearch count={metrics.length} value={search} onChange={setSearch} />
        <ChartControls settings={settings} onChange={setSettings} />
        <span class="muted">Drag across a chart to zoom (re-fetched at full resolution); double-click to reset.</span>
      </div>
      {metrics.length === 0 && <p class="muted">This run has no metrics yet.</p>}
      {groups.map(([group, members]) => (
        <details class="chart-group" open key={group} data-section={group}>
          <summary>
            {group === "" ? "(no group)" : group} <span class="muted">{members.length}</span>
          </summary>
          <div class="chart-grid">
            {members.map((metric) => (
              <MetricChart
                key={metric.logName}
                run={run}
                metric={metric}
                points={series.points.get(metric.logName)}
                settings={settings}
                observe={series.observe}
                forkStep={forkStep}
              />
            ))}
          </div>
        </details>
      ))}
    </div>
  );
}
