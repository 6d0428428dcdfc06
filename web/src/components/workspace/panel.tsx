// One workspace panel: its metrics overlaid for every shown run, in each run's colour (dashed for a
// panel's second and later metrics), with its own log scale, smoothing and x axis, a min/max band
// where the server downsampled a line, a tooltip sorted by value, and a full-screen mode. Dragging
// across the x range zooms the panel: its step window is read again through the batch request
// (loadWindow) and drawn at full resolution; a double-click (or the window's ✕) goes back. On a
// time axis a line's min/max band is drawn per segment (a resumed run's segments days apart are
// not joined); "clip y" holds the y range to the bulk of the data; PNG and CSV save what is drawn.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { bucketsForRuns } from "../../../../src/domain/shared-with-ui.ts";
import { ServerUnreachable } from "../../api.ts";
import { gapStarts, segmentsOf } from "../../lib/chart-marks.ts";
import { type CsvPoint, fileNameOf, pointsCsv } from "../../lib/csv.ts";
import { formatNumber } from "../../lib/format.ts";
import { drawnAxis, type NonFiniteKind, nonFiniteKind, overlayRuns, type RunChart, stepsOfRange } from "../../lib/series.ts";
import { useMediaQuery } from "../../hooks.ts";
import { smooth } from "../../lib/smoothing.ts";
import {
  clipLine,
  isDownsampled,
  type Line,
  lineOf,
  minMaxBand,
  type Panel,
  type PanelOptions,
  panelNeeds,
  SIDE_BY_SIDE,
  X_CHOICES,
  xMetricOf,
  zoomStepWindow,
} from "../../lib/workspace.ts";
import type { BatchSeries, RunListItem } from "../../types.ts";
import { type Group, type Grouping, groupLine } from "../../lib/grouping.ts";
import { paletteColor } from "../../lib/run-color.ts";
import { Chart } from "../chart.tsx";
import { highlightRun, useHighlightedRun, useRunColor } from "../run-colors.tsx";
import { chartPng, download } from "../chart-export.ts";
import { loadWindow, windowSeries } from "./batch-feed.ts";

/** A zoomed panel: the dragged x range, the step window read for it, and what was read. */
interface Zoom {
  x: [number, number];
  window: [number, number];
  /** The panel's metrics (and x metric) when it was read: another choice drops the zoom. */
  needed: string;
  runIds: number[];
  series: Map<string, BatchSeries>;
}

interface Props {
  projectName: string;
  panel: Panel;
  runs: readonly RunListItem[];
  /** The runs folded into groups (lib/grouping.ts): one line and band per group instead of a line per run. */
  groups?: readonly Group[];
  grouping?: Grouping;
  options: PanelOptions;
  /** Metrics offered as an x axis. */
  metricNames: readonly string[];
  seriesOf: (runId: number, logName: string) => BatchSeries | undefined;
  /** Changes when a run's series of a metric is loaded anew (useWorkspaceSeries). */
  stampOf: (runId: number, logName: string) => number;
  onVisible: (panelId: string, logNames: string[]) => void;
  onOptions: (options: PanelOptions) => void;
  /** Moves the panel within its section; `canMove` says which way it can go. */
  onMove: (delta: -1 | 1) => void;
  canMove: [earlier: boolean, later: boolean];
  onRemove?: () => void;
}

/** What a drawn line was made from, for its CSV rows. */
interface Drawn {
  run: RunListItem;
  logName: string;
  series: BatchSeries;
  steps: number[];
}

const VALUE_OF_KIND: Record<NonFiniteKind, number> = { NaN: Number.NaN, "+Inf": Infinity, "-Inf": -Infinity };

/** The points of the drawn lines, as many as were drawn (a zoomed panel's window, clipped to its range). */
function csvOf(drawn: readonly Drawn[]): string {
  const points: CsvPoint[] = [];
  for (const { run, logName, series, steps } of drawn) {
    const shown = new Set(steps);
    for (let i = 0; i < series.steps.length; i++) {
      if (!shown.has(series.steps[i]!)) continue;
      const kind = nonFiniteKind(series.nonFiniteFlags[i] ?? 0);
      points.push({
        runName: run.name,
        runId: run.id,
        metric: logName,
        step: series.steps[i]!,
        time: series.times[i]!,
        value: kind ? VALUE_OF_KIND[kind] : series.values[i]!,
      });
    }
  }
  return pointsCsv(points);
}

const X_LABELS = new Map<PanelOptions["xAxis"], string>([
  ["step", "step"],
  ["relative", "relative time"],
  ["wall", "wall time"],
  ["metric", "metric…"],
]);

export function WorkspacePanel({
  projectName,
  panel,
  runs,
  groups,
  grouping,
  options,
  metricNames,
  seriesOf,
  stampOf,
  onVisible,
  onOptions,
  onMove,
  canMove,
  onRemove,
}: Props) {
  const card = useRef<HTMLDivElement>(null);
  const colorOf = useRunColor();
  const highlighted = useHighlightedRun();
  const [inView, setInView] = useState(false);
  const [fullScreen, setFullScreen] = useState(false);
  // Full screen, the panel is fixed to the window, outside the workspace pane an observer rooted
  // there watches: it would read as off screen.
  const onScreen = inView || fullScreen;
  // A panel lists every metric as a possible x only once its x menu is used (hundreds of options × every panel otherwise).
  const [listAll, setListAll] = useState(false);
  const xMetric = xMetricOf(options);
  const needed = panelNeeds(panel, options);
  const [zoom, setZoom] = useState<Zoom | null>(null);
  const [zoomError, setZoomError] = useState<string>();
  // A zoom belongs to one x axis and one set of metrics: another choice shows the whole range again.
  const zoomed = zoom && zoom.needed === `${options.xAxis}\n${needed.join("\n")}` ? zoom : null;
  const runIds = runs.map((run) => run.id);
  // Only the latest zoom's answer counts: an earlier drag's, or one that arrives after going back, is dropped.
  const zoomTurn = useRef(0);
  const unzoom = () => {
    zoomTurn.current++;
    setZoom(null);
  };
  const readWindow = (x: [number, number], window: [number, number]) => {
    const key = `${options.xAxis}\n${needed.join("\n")}`;
    const turn = ++zoomTurn.current;
    setZoomError(undefined);
    loadWindow(projectName, runIds, needed, window).then(
      (series) => turn === zoomTurn.current && setZoom({ x, window, needed: key, runIds, series }),
      // Unreachable: the panel stays as it is (the shell says "reconnecting…"); drag again later.
      (failure: Error) => failure instanceof ServerUnreachable || setZoomError(failure.message),
    );
  };

  const besideTable = useMediaQuery(SIDE_BY_SIDE);
  useEffect(() => {
    // Beside the runs table the workspace scrolls in its own pane: the look-ahead margin must then
    // extend that pane, not the window (a margin applies to the root only, and the pane clips its
    // panels). Stacked, the pane does not scroll and the window is the root. The layout follows the
    // window's width, so the observer is made anew when it crosses SIDE_BY_SIDE.
    const pane = card.current!.closest<HTMLElement>(".workspace-pane");
    const scrolls = pane !== null && getComputedStyle(pane).overflowY !== "visible";
    const observer = new IntersectionObserver(([entry]) => entry && setInView(entry.isIntersecting), {
      root: scrolls ? pane : null,
      rootMargin: "200px",
    });
    observer.observe(card.current!);
    return () => observer.disconnect();
  }, [besideTable]);
  // New runs in the table's selection while zoomed: the window is read again for all of them.
  useEffect(() => {
    if (zoomed && runIds.some((id) => !zoomed.runIds.includes(id))) readWindow(zoomed.x, zoomed.window);
  }, [runIds.join(",")]);
  useEffect(() => onVisible(panel.id, onScreen ? needed : []), [onScreen, needed.join("\n")]);
  useEffect(() => () => onVisible(panel.id, []), [panel.id]);
  useEffect(() => {
    if (!fullScreen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setFullScreen(false);
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [fullScreen]);

  // This panel's own series, by load: another panel's answer (the feed's next batch) leaves its lines as
  // they are, instead of recomputing and drawing them again.
  const loads = onScreen ? runs.map((run) => needed.map((logName) => stampOf(run.id, logName)).join(" ")).join(",") : "";
  const buckets = bucketsForRuns(runs.length); // as the feed and loadWindow read them
  const chart = useMemo(() => {
    const perRun: RunChart[] = [];
    const bands: { color: string; x: number[]; lo: number[]; hi: number[] }[] = [];
    const drawnLines: Line[] = [];
    const drawnSeries: Drawn[] = [];
    let waiting = false;
    // Off screen, nothing is drawn (and nothing computed).
    // Zoomed, the window's series (read for every run shown when zooming) stand in for the feed's.
    const source = zoomed ? (runId: number, logName: string) => windowSeries(zoomed.series, runId, logName) : seriesOf;
    const shownSteps = (onScreen ? runs : []).flatMap((run) => panel.logNames.map((logName) => source(run.id, logName)?.steps ?? []));
    const xAxis = drawnAxis(options.xAxis, shownSteps, "wall", panel.logNames);
    const drawnOptions = { ...options, xAxis };
    /**
     * A run's line of a metric as drawn (clipped to a zoom), and its series: null while either is
     * not loaded (the panel then waits for it), and recorded for a zoom's step window and the CSV.
     */
    const runLine = (run: RunListItem, logName: string): { line: Line; series: BatchSeries } | null => {
      const series = source(run.id, logName);
      const xSeries = xMetric ? source(run.id, xMetric) : undefined;
      if (!series || (xMetric && !xSeries)) {
        waiting = true;
        return null;
      }
      // Relative time counts from the run's start, which the whole series knows (a window's first point is later).
      const created = Date.parse(run.createdAt);
      const start = Math.min(created, (seriesOf(run.id, logName) ?? series).times[0] ?? created);
      const whole = lineOf(series, drawnOptions, start, xSeries);
      const line = zoomed ? clipLine(whole, zoomed.x[0], zoomed.x[1]) : whole;
      drawnLines.push(line);
      drawnSeries.push({ run, logName, series, steps: line.steps });
      return { line, series };
    };
    if (groups && grouping) {
      const byId = new Map(runs.map((run) => [run.id, run]));
      for (const [groupIndex, group] of (onScreen ? groups : []).entries()) {
        const color = groupColor(groupIndex);
        for (const [index, logName] of panel.logNames.entries()) {
          const members = group.runIds.flatMap((runId) => runLine(byId.get(runId)!, logName)?.line ?? []);
          const line = groupLine(members, grouping, buckets);
          if (line.x.length === 0) continue;
          const name = `${group.label} (${group.runIds.length})`;
          const label = panel.logNames.length > 1 ? `${name} · ${logName}` : name;
          const values = options.smoothing > 0 ? smooth(line.y, options.smoothing) : line.y;
          const markers = members.flatMap((member) => member.markers.map((marker) => ({ ...marker, color, label })));
          perRun.push({ x: line.x, lines: [{ label, values, color, dash: index > 0, key: `group:${groupIndex}` }], markers });
          bands.push({ color, x: line.x, lo: line.lo, hi: line.hi });
        }
      }
      return { ...overlayRuns(perRun), bands, waiting, drawn: perRun.length, drawnLines, drawnSeries, xAxis };
    }
    for (const run of onScreen ? runs : []) {
      const color = colorOf(run.id);
      const key = String(run.id);
      for (const [index, logName] of panel.logNames.entries()) {
        const drawn = runLine(run, logName);
        if (!drawn || drawn.line.x.length === 0) continue;
        const { line, series } = drawn;
        const label = panel.logNames.length > 1 ? `${run.name} · ${logName}` : run.name;
        const dash = index > 0;
        const lines =
          options.smoothing > 0
            ? [
                { label: `${label} (raw)`, values: line.y, color, faint: true, dash, key },
                { label, values: smooth(line.y, options.smoothing), color, dash, key },
              ]
            : [{ label, values: line.y, color, dash, key }];
        perRun.push({ x: line.x, lines, markers: line.markers.map((marker) => ({ ...marker, color, label })) });
        if (!isDownsampled(series, buckets)) continue;
        // On a time axis one band per segment: none across a gap in time, each with its share of the buckets.
        const starts = xAxis === "wall" || xAxis === "relative" ? gapStarts(line.x) : [];
        for (const [from, to] of segmentsOf(line.x.length, starts)) {
          const part = starts.length === 0 ? line : clipLine(line, line.x[from]!, line.x[to - 1]!);
          const band = minMaxBand(part, Math.max(1, Math.round((buckets * (to - from)) / line.x.length)));
          if (band) bands.push({ color, ...band });
        }
      }
    }
    return { ...overlayRuns(perRun), bands, waiting, drawn: perRun.length, drawnLines, drawnSeries, xAxis };
  }, [onScreen, runs, loads, options, panel.logNames.join("\n"), zoomed, colorOf, groups, grouping]);

  const onZoom = (min: number, max: number) => {
    // Against steps the window is the dragged range (as on the run page); otherwise the steps the drawn points there cover.
    const window = chart.xAxis === "step" ? stepsOfRange([], "step", min, max) : zoomStepWindow(chart.drawnLines, min, max);
    if (!window || window[0] > window[1]) return;
    readWindow([min, max], window);
  };

  const title = panel.logNames.join(" · ");
  const savePng = () => {
    const canvas = card.current?.querySelector<HTMLCanvasElement>(".chart-canvas canvas");
    if (!canvas) return;
    const legend = chart.lines.filter((line) => !line.faint).map((line) => ({ label: line.label, color: line.color, dash: line.dash }));
    chartPng(canvas, title, legend).then(
      (blob) => download(blob, fileNameOf(title, "png")),
      (failure: Error) => setZoomError(failure.message),
    );
  };
  const saveCsv = () => download(new Blob([csvOf(chart.drawnSeries)], { type: "text/csv" }), fileNameOf(title, "csv"));
  const xLabel = chart.xAxis === "metric" ? options.xMetric || "step" : X_LABELS.get(chart.xAxis);
  return (
    <div
      class={fullScreen ? "chart-card ws-panel ws-panel-full" : "chart-card ws-panel"}
      ref={card}
      data-panel={panel.id}
      data-metric={panel.logNames.length === 1 ? panel.logNames[0] : undefined}
      data-runs={runIds.join(",")}
      data-zoomed={zoomed ? `${zoomed.window[0]}-${zoomed.window[1]}` : undefined}
      data-complete={onScreen && !chart.waiting ? "true" : undefined}
    >
      <div class="chart-head">
        <h3 title={title}>{title}</h3>
        {zoomed && (
          <button
            type="button"
            class="link ws-zoom"
            title="Show the whole range (or double-click the chart)"
            data-testid="panel-unzoom"
            onClick={unzoom}
          >
            steps {formatNumber(zoomed.window[0])}–{formatNumber(zoomed.window[1])} ✕
          </button>
        )}
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
          <button
            type="button"
            class="icon"
            title="Move earlier in its section"
            aria-label="Move panel earlier"
            disabled={!canMove[0]}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            class="icon"
            title="Move later in its section"
            aria-label="Move panel later"
            disabled={!canMove[1]}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
          <details class="ws-menu">
            <summary class="icon" title="Clip the y range; save as PNG or CSV" aria-label="More panel options" data-testid="panel-menu">
              ⋯
            </summary>
            <div class="ws-menu-items">
              <label title="Clip the y range to the bulk of the data (1st–99th percentile); points outside are marked at the edge">
                <input
                  type="checkbox"
                  checked={options.clipY}
                  data-testid="panel-clip"
                  onChange={(event) => onOptions({ ...options, clipY: event.currentTarget.checked })}
                />
                clip y to the bulk of the data
              </label>
              <button type="button" class="link" data-testid="panel-png" disabled={chart.drawn === 0} onClick={savePng}>
                Save chart as PNG
              </button>
              <button type="button" class="link" data-testid="panel-csv" disabled={chart.drawn === 0} onClick={saveCsv}>
                Save drawn points as CSV
              </button>
            </div>
          </details>
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
      {zoomError && <p class="error">{zoomError}</p>}
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
          xAxis={chart.xAxis === "wall" ? "time" : chart.xAxis === "step" ? "step" : chart.xAxis}
          xLabel={xLabel}
          logScale={options.logScale}
          clipY={options.clipY}
          height={fullScreen ? Math.max(300, innerHeight - 140) : 200}
          sortedTooltip
          onZoom={onZoom}
          onReset={unzoom}
          highlighted={groups || highlighted === null ? null : String(highlighted)}
          onHover={groups ? undefined : (key) => highlightRun(key === null ? null : Number(key))}
        />
      )}
      {/* Whether drawn yet or not: a legend appearing with the data would push the panels below down. */}
      {groups ? <GroupLegend groups={groups} /> : runs.length > 0 && <Legend runs={runs} colorOf={colorOf} highlighted={highlighted} />}
    </div>
  );
}

/** Runs a legend lists before "+N more": a 200-run panel would otherwise be mostly legend. */
const LEGEND_RUNS = 8;

/** The panel's runs by colour and name; pointing at one highlights its lines in every panel and its table row. */
function Legend({
  runs,
  colorOf,
  highlighted,
}: {
  runs: readonly RunListItem[];
  colorOf: (runId: number) => string;
  highlighted: number | null;
}) {
  const [all, setAll] = useState(false);
  const listed = all ? runs : runs.slice(0, LEGEND_RUNS);
  return (
    <ul class="ws-legend" data-testid="panel-legend" onMouseLeave={() => highlightRun(null)}>
      {listed.map((run) => (
        <li
          key={run.id}
          data-run-id={run.id}
          class={highlighted !== null && highlighted !== run.id ? "faded" : undefined}
          onMouseEnter={() => highlightRun(run.id)}
          title={run.name}
        >
          <span class="swatch" style={{ background: colorOf(run.id) }} />
          <span class="truncate">{run.name}</span>
        </li>
      ))}
      {runs.length > LEGEND_RUNS && (
        <li>
          <button type="button" class="link" onClick={() => setAll(!all)}>
            {all ? "fewer" : `+${runs.length - LEGEND_RUNS} more`}
          </button>
        </li>
      )}
    </ul>
  );
}

/** A group's colour: groups are few and listed in order, so the palette's colours in turn. */
const groupColor = (index: number) => paletteColor(index);

/** The groups by colour, label and member count. */
function GroupLegend({ groups }: { groups: readonly Group[] }) {
  return (
    <ul class="ws-legend" data-testid="panel-legend">
      {groups.map((group, index) => (
        <li key={group.label} data-group={group.label} title={`${group.label}: ${group.runIds.length} runs`}>
          <span class="swatch" style={{ background: groupColor(index) }} />
          <span class="truncate">{group.label}</span>
          <span class="muted">&nbsp;({group.runIds.length})</span>
        </li>
      ))}
    </ul>
  );
}
