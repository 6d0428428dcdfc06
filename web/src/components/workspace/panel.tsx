// One workspace panel: its metrics overlaid for every shown run, in each run's colour (dashed for a
// panel's second and later metrics), with its own log scale, smoothing and x axis, a min/max band
// where the server downsampled a line, a tooltip sorted by value, and a full-screen mode.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { runColor } from "../../lib/run-color.ts";
import { overlayRuns, type RunChart } from "../../lib/series.ts";
import { smooth } from "../../lib/smoothing.ts";
import { type BatchSeries, isDownsampled, lineOf, minMaxBand, type Panel, type PanelOptions, X_CHOICES } from "../../lib/workspace.ts";
import type { RunListItem } from "../../types.ts";
import { Chart } from "../chart.tsx";
import { WORKSPACE_BUCKETS } from "./batch-feed.ts";

interface Props {
  panel: Panel;
  runs: readonly RunListItem[];
  options: PanelOptions;
  /** Metrics offered as an x axis. */
  metricNames: readonly string[];
  seriesOf: (runId: number, logName: string) => BatchSeries | undefined;
  /** Changes when new series arrive. */
  version: number;
  onVisible: (panelId: string, logNames: string[]) => void;
  onOptions: (options: PanelOptions) => void;
  onMove?: (delta: -1 | 1) => void;
  onRemove?: () => void;
}

const X_LABELS = new Map<PanelOptions["xAxis"], string>([
  ["step", "step"],
  ["relative", "relative time"],
  ["wall", "wall time"],
  ["metric", "metric…"],
]);

export function WorkspacePanel({ panel, runs, options, metricNames, seriesOf, version, onVisible, onOptions, onMove, onRemove }: Props) {
  const card = useRef<HTMLDivElement>(null);
  const [onScreen, setOnScreen] = useState(false);
  const [fullScreen, setFullScreen] = useState(false);
  // A panel lists every metric as a possible x only once its x menu is used (hundreds of options × every panel otherwise).
  const [listAll, setListAll] = useState(false);
  const xMetric = options.xAxis === "metric" && options.xMetric ? options.xMetric : null;
  const needed = xMetric ? [...panel.logNames, xMetric] : panel.logNames;

  useEffect(() => {
    const observer = new IntersectionObserver(([entry]) => entry && setOnScreen(entry.isIntersecting), { rootMargin: "200px" });
    observer.observe(card.current!);
    return () => observer.disconnect();
  }, []);
  useEffect(() => onVisible(panel.id, onScreen ? needed : []), [onScreen, needed.join("\n")]);
  useEffect(() => () => onVisible(panel.id, []), [panel.id]);
  useEffect(() => {
    if (!fullScreen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setFullScreen(false);
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [fullScreen]);

  const chart = useMemo(() => {
    const perRun: RunChart[] = [];
    const bands: { color: string; x: number[]; lo: number[]; hi: number[] }[] = [];
    let waiting = false;
    // Off screen, nothing is drawn (and nothing computed).
    for (const run of onScreen ? runs : []) {
      const color = runColor(run.id);
      const start = Date.parse(run.createdAt);
      const xSeries = xMetric ? seriesOf(run.id, xMetric) : undefined;
      for (const [index, logName] of panel.logNames.entries()) {
        const series = seriesOf(run.id, logName);
        if (!series || (xMetric && !xSeries)) {
          waiting = true;
          continue;
        }
        if (series.steps.length === 0) continue;
        const line = lineOf(series, options, Math.min(start, series.times[0] ?? start), xSeries);
        const label = panel.logNames.length > 1 ? `${run.name} · ${logName}` : run.name;
        const dash = index > 0;
        const lines =
          options.smoothing > 0
            ? [
                { label: `${label} (raw)`, values: line.y, color, faint: true, dash },
                { label, values: smooth(line.y, options.smoothing), color, dash },
              ]
            : [{ label, values: line.y, color, dash }];
        perRun.push({ x: line.x, lines, markers: line.markers.map((marker) => ({ ...marker, color, label })) });
        const band = isDownsampled(series, WORKSPACE_BUCKETS) ? minMaxBand(line, WORKSPACE_BUCKETS) : null;
        if (band) bands.push({ color, ...band });
      }
    }
    return { ...overlayRuns(perRun), bands, waiting, drawn: perRun.length };
  }, [onScreen, runs, version, options, panel.logNames.join("\n")]);

  const title = panel.logNames.join(" · ");
  const xLabel = options.xAxis === "metric" ? options.xMetric || "step" : X_LABELS.get(options.xAxis);
  return (
    <div
      class={fullScreen ? "chart-card ws-panel ws-panel-full" : "chart-card ws-panel"}
      ref={card}
      data-panel={panel.id}
      data-metric={panel.logNames.length === 1 ? panel.logNames[0] : undefined}
      data-runs={runs.map((run) => run.id).join(",")}
    >
      <div class="chart-head">
        <h3 title={title}>{title}</h3>
        <span class="ws-panel-controls">
          <label title="log scale">
            <input
              type="checkbox"
              checked={options.logScale}
              onChange={(event) => onOptions({ ...options, logScale: event.currentTarget.checked })}
            />
            log
          </label>
          <label title="EMA smoothing (the raw line stays, faint)">
            smooth
            <select
              value={String(options.smoothing)}
              onChange={(event) => onOptions({ ...options, smoothing: Number(event.currentTarget.value) })}
              aria-label="smoothing"
            >
              {[0, 0.6, 0.8, 0.9, 0.95, 0.99].map((weight) => (
                <option key={weight} value={String(weight)}>
                  {weight === 0 ? "off" : weight}
                </option>
              ))}
              {![0, 0.6, 0.8, 0.9, 0.95, 0.99].includes(options.smoothing) && (
                <option value={String(options.smoothing)}>{options.smoothing}</option>
              )}
            </select>
          </label>
          <select
            aria-label="x axis"
            onFocus={() => setListAll(true)}
            onMouseDown={() => setListAll(true)}
            value={options.xAxis === "metric" ? `metric:${options.xMetric}` : options.xAxis}
            onChange={(event) => {
              const value = event.currentTarget.value;
              if (value.startsWith("metric:")) onOptions({ ...options, xAxis: "metric", xMetric: value.slice("metric:".length) });
              else onOptions({ ...options, xAxis: X_CHOICES.find((choice) => choice === value) ?? "step" });
            }}
          >
            {X_CHOICES.filter((choice) => choice !== "metric").map((choice) => (
              <option key={choice} value={choice}>
                x: {X_LABELS.get(choice)}
              </option>
            ))}
            <optgroup label="x: another metric at the same step">
              {metricNames
                // Ungrouped metrics (epoch, global_step…) and the chosen one always; every metric once the list is opened.
                .filter((name) => !panel.logNames.includes(name) && (listAll || !name.includes("/") || name === options.xMetric))
                .map((name) => (
                  <option key={name} value={`metric:${name}`}>
                    x: {name}
                  </option>
                ))}
            </optgroup>
          </select>
          {onMove && (
            <>
              <button type="button" class="icon" title="Move earlier" aria-label="Move panel earlier" onClick={() => onMove(-1)}>
                ↑
              </button>
              <button type="button" class="icon" title="Move later" aria-label="Move panel later" onClick={() => onMove(1)}>
                ↓
              </button>
            </>
          )}
          {onRemove && (
            <button type="button" class="icon" title="Remove panel" aria-label="Remove panel" onClick={onRemove}>
              ✕
            </button>
          )}
          <button
            type="button"
            class="icon"
            title={fullScreen ? "Leave full screen (Esc)" : "Full screen"}
            aria-label={fullScreen ? "Leave full screen" : "Full screen"}
            data-testid="panel-fullscreen"
            onClick={() => setFullScreen(!fullScreen)}
          >
            <svg viewBox="0 0 24 24" width="14" height="14" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
              <path d={fullScreen ? "M9 3v6H3M15 3v6h6M9 21v-6H3M15 21v-6h6" : "M3 9V3h6M21 9V3h-6M3 15v6h6M21 15v6h-6"} />
            </svg>
          </button>
        </span>
      </div>
      {!onScreen || (chart.waiting && chart.drawn === 0) ? (
        <div class="chart-placeholder" aria-busy={onScreen} />
      ) : chart.drawn === 0 ? (
        <p class="muted ws-panel-empty">No points for the shown runs.</p>
      ) : (
        <Chart
          x={chart.x}
          series={chart.lines}
          markers={chart.markers}
          bands={chart.bands}
          xAxis={options.xAxis === "wall" ? "time" : options.xAxis === "step" ? "step" : options.xAxis}
          xLabel={xLabel}
          logScale={options.logScale}
          height={fullScreen ? Math.max(300, innerHeight - 140) : 200}
          sortedTooltip
        />
      )}
    </div>
  );
}
