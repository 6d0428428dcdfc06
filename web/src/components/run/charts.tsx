// Every metric of a run as a chart, grouped by log group, with shared axis, smoothing and scale settings.

import { useMemo, useState } from "preact/hooks";
import { api, type RunRef } from "../../api.ts";
import { useAsync, useLiveTick, useStoredState } from "../../hooks.ts";
import type { ChartSettings } from "../../lib/series.ts";
import type { MetricStatistics } from "../../types.ts";
import { ErrorNote, Loading } from "../common.tsx";
import { MetricChart } from "../metric-chart.tsx";

export function ChartControls({ settings, onChange }: { settings: ChartSettings; onChange: (settings: ChartSettings) => void }) {
  return (
    <>
      <label>
        X axis
        <select value={settings.xAxis} onChange={(event) => onChange({ ...settings, xAxis: event.currentTarget.value as ChartSettings["xAxis"] })}>
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
        <input type="checkbox" checked={settings.logScale} onChange={(event) => onChange({ ...settings, logScale: event.currentTarget.checked })} />
        log scale
      </label>
    </>
  );
}

export const DEFAULT_CHART_SETTINGS: ChartSettings = { xAxis: "step", smoothing: 0, logScale: false };

function groupByLogGroup(metrics: MetricStatistics[]): [string, MetricStatistics[]][] {
  const groups = new Map<string, MetricStatistics[]>();
  for (const metric of [...metrics].sort((a, b) => a.logName.localeCompare(b.logName))) {
    const group = groups.get(metric.logGroup) ?? [];
    group.push(metric);
    groups.set(metric.logGroup, group);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function RunCharts({ run, liveTick }: { run: RunRef; liveTick: number }) {
  const statistics = useAsync(() => api.statistics(run), [run.runId]);
  const [settings, setSettings] = useStoredState("stepwise.chartSettings", DEFAULT_CHART_SETTINGS);
  const [search, setSearch] = useState("");
  useLiveTick(liveTick, statistics.reload); // new metrics appear while the run is live

  const metrics = statistics.data?.metrics;
  const groups = useMemo(
    () => groupByLogGroup((metrics ?? []).filter((metric) => metric.logName.toLowerCase().includes(search.toLowerCase()))),
    [metrics, search],
  );
  if (statistics.error) return <ErrorNote error={statistics.error} />;
  if (!metrics) return <Loading what="metrics" />;

  return (
    <div>
      <div class="toolbar">
        <label>
          Metrics
          <input type="search" placeholder={`Filter ${metrics.length} metrics`} value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
        <ChartControls settings={settings} onChange={setSettings} />
        <span class="muted">Drag across a chart to zoom (re-fetched at full resolution); double-click to reset.</span>
      </div>
      {metrics.length === 0 && <p class="muted">This run has no metrics yet.</p>}
      {groups.map(([group, members]) => (
        <details class="chart-group" open key={group}>
          <summary>
            {group === "" ? "(no group)" : group} <span class="muted">{members.length}</span>
          </summary>
          <div class="chart-grid">
            {members.map((metric) => (
              <MetricChart key={metric.logName} run={run} logName={metric.logName} settings={settings} liveTick={liveTick} />
            ))}
          </div>
        </details>
      ))}
    </div>
  );
}
