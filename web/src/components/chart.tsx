// One uPlot chart. Drag to select a range (the owner re-fetches it at full resolution), double-click
// to go back. Non-finite points are never drawn as values: they are marks in a lane of their own
// above the plot, labelled "NaN/±Inf", in the colour of their run (NaN a circle, +Inf a triangle
// up, -Inf one down). On a time axis a line breaks where its points are far apart in time (a fork's
// or a resumed run's segments, lib/chart-marks.ts). With `clipY` the y range holds the bulk of the
// data and the points outside it are arrows at the plot's edge, counted below the chart.
// Every number on it (ticks and hover values) goes through the UI's one formatter. Workspace panels
// add faint min/max bands (where the server downsampled a line), dashed lines (a panel's second
// metric), and instead of uPlot's legend a tooltip listing the lines by their value at the cursor.

import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import uPlot from "uplot";
import { useMediaQuery } from "../hooks.ts";
import "uplot/dist/uPlot.min.css";
import { clipRange, gapStarts, outsideNote, sideOf } from "../lib/chart-marks.ts";
import { formatDuration, formatNumber, formatTicks } from "../lib/format.ts";
import { type ChartSeries, logSplits, type NonFiniteKind, type XAxis } from "../lib/series.ts";
import { sortByValue } from "../lib/workspace.ts";

export interface ChartProps {
  x: number[];
  series: ChartSeries[];
  /** Non-finite points; `label` names the line whose hover value reads as the point's kind. */
  markers: { x: number; kind: NonFiniteKind; color: string; label: string }[];
  /** step, wall time, seconds since the run started ("relative") or another metric's value ("metric"). */
  xAxis: XAxis | "relative" | "metric";
  /** The x axis's name in the legend and tooltip (default: step or time). */
  xLabel?: string;
  logScale: boolean;
  height?: number;
  /** Faint min/max bands drawn behind the lines (x ascending). */
  bands?: { color: string; x: number[]; lo: number[]; hi: number[] }[];
  /** A tooltip listing the lines sorted by value at the cursor, in place of uPlot's legend. */
  sortedTooltip?: boolean;
  /** Vertical lines at x values, each labelled (a fork's step: the points before it are its parent's). */
  rules?: { x: number; label: string }[];
  /** The y range clipped to the bulk of the data (1st–99th percentile and a margin), the points outside marked at its edge. */
  clipY?: boolean;
  onZoom?: (min: number, max: number) => void;
  onReset?: () => void;
  /** The lines whose `key` this is stay bright, the others fade (null: all bright). */
  highlighted?: string | null;
  /** The `key` of the line nearest the pointer, as it moves from line to line (null: off every line). */
  onHover?: (key: string | null) => void;
}

/** A faded line's opacity: the highlighted run's lines stand out, the others stay in sight. */
const FADED = 0.15;

/** Fades every line but the highlighted ones; redraws only when a line's opacity changes. */
function applyHighlight(plot: uPlot, series: readonly ChartSeries[], highlighted: string | null | undefined): void {
  let changed = false;
  for (const [index, line] of series.entries()) {
    const alpha = highlighted === null || highlighted === undefined || line.key === highlighted ? 1 : FADED;
    const drawn = plot.series[index + 1];
    if (drawn && drawn.alpha !== alpha) {
      drawn.alpha = alpha;
      changed = true;
    }
  }
  if (changed) plot.redraw(false);
}

function drawRules(plot: uPlot, rules: NonNullable<ChartProps["rules"]>): void {
  const { ctx, bbox } = plot;
  ctx.save();
  ctx.strokeStyle = getComputedStyle(plot.root).getPropertyValue("--chart-axis").trim() || "#374151";
  ctx.fillStyle = ctx.strokeStyle;
  ctx.lineWidth = devicePixelRatio;
  ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
  ctx.font = `${11 * devicePixelRatio}px sans-serif`;
  // uPlot leaves the alignment of its last axis labels on the context.
  ctx.textAlign = "left";
  ctx.textBaseline = "alphabetic";
  for (const rule of rules) {
    const x = plot.valToPos(rule.x, "x", true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    // The label beside the line, on its left where the plot's right edge would cut it.
    const width = ctx.measureText(rule.label).width;
    const gap = 3 * devicePixelRatio;
    const left = x + gap + width > bbox.left + bbox.width ? x - gap - width : x + gap;
    ctx.fillText(rule.label, left, bbox.top + 12 * devicePixelRatio);
  }
  ctx.restore();
}

/** The lane of non-finite marks, in CSS pixels: its height, and the room between it and the plot (the y axis's top label). */
const LANE_HEIGHT = 14;
const LANE_GAP = 8;
export const LANE_LABEL = "NaN/±Inf";

/**
 * Non-finite points as marks in a lane above the plot, outside the data area where nothing reads as
 * a value: NaN a circle, +Inf a triangle pointing up, -Inf one pointing down. Where each mark went
 * is left on the element (`data-lane-marks`: kind, x and y in CSS pixels of the canvas) for tests.
 */
function drawMarkers(plot: uPlot, markers: ChartProps["markers"], element: HTMLElement): void {
  const { ctx, bbox } = plot;
  const dpr = devicePixelRatio;
  const laneBottom = bbox.top - LANE_GAP * dpr;
  const laneTop = laneBottom - LANE_HEIGHT * dpr;
  const middle = (laneTop + laneBottom) / 2;
  const size = 4.5 * dpr;
  const drawn: string[] = [];
  ctx.save();
  ctx.fillStyle = getComputedStyle(plot.root).getPropertyValue("--chart-grid").trim() || "rgb(0 0 0 / 0.08)";
  ctx.fillRect(bbox.left, laneTop, bbox.width, laneBottom - laneTop);
  ctx.fillStyle = getComputedStyle(plot.root).getPropertyValue("--chart-axis").trim() || "#374151";
  ctx.font = `${9 * dpr}px sans-serif`;
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  // In the y axis's gutter, or from the canvas's left edge where the gutter is narrower than the label.
  ctx.fillText(LANE_LABEL, Math.max(bbox.left - 3 * dpr, ctx.measureText(LANE_LABEL).width + dpr), middle);
  ctx.lineWidth = dpr;
  for (const marker of markers) {
    const x = plot.valToPos(marker.x, "x", true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    ctx.fillStyle = marker.color;
    ctx.strokeStyle = "#fff";
    ctx.beginPath();
    if (marker.kind === "NaN") ctx.arc(x, middle, size * 0.85, 0, 2 * Math.PI);
    else {
      const tip = marker.kind === "+Inf" ? -size : size;
      ctx.moveTo(x, middle + tip);
      ctx.lineTo(x - size, middle - tip);
      ctx.lineTo(x + size, middle - tip);
      ctx.closePath();
    }
    ctx.fill();
    ctx.stroke();
    drawn.push(`${marker.kind} ${(x / dpr).toFixed(1)} ${(middle / dpr).toFixed(1)}`);
  }
  ctx.restore();
  element.dataset.laneMarks = drawn.join(";");
}

/** The points a clipped range leaves outside, each an arrow at the plot's edge pointing the way it went. */
function drawOutside(plot: uPlot, outside: NonNullable<Clip>["outside"]): void {
  const { ctx, bbox } = plot;
  const dpr = devicePixelRatio;
  const size = 4 * dpr;
  ctx.save();
  ctx.lineWidth = dpr;
  for (const point of outside) {
    const x = plot.valToPos(point.x, "x", true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    const edge = point.side === 1 ? bbox.top + size : bbox.top + bbox.height - size;
    const tip = point.side === 1 ? -size : size;
    ctx.fillStyle = point.color;
    ctx.strokeStyle = "#fff";
    ctx.beginPath();
    ctx.moveTo(x, edge + tip);
    ctx.lineTo(x - size, edge);
    ctx.lineTo(x - size / 2.5, edge);
    ctx.lineTo(x - size / 2.5, edge - tip);
    ctx.lineTo(x + size / 2.5, edge - tip);
    ctx.lineTo(x + size / 2.5, edge);
    ctx.lineTo(x + size, edge);
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
  }
  ctx.restore();
}

function drawBands(plot: uPlot, bands: NonNullable<ChartProps["bands"]>): void {
  const { ctx, bbox } = plot;
  ctx.save();
  ctx.beginPath();
  ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
  ctx.clip();
  for (const band of bands) {
    if (band.x.length < 2) continue;
    ctx.fillStyle = `${band.color}26`;
    ctx.beginPath();
    for (let i = 0; i < band.x.length; i++) {
      const x = plot.valToPos(band.x[i]!, "x", true);
      const y = plot.valToPos(band.hi[i]!, "y", true);
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    for (let i = band.x.length - 1; i >= 0; i--) ctx.lineTo(plot.valToPos(band.x[i]!, "x", true), plot.valToPos(band.lo[i]!, "y", true));
    ctx.closePath();
    ctx.fill();
  }
  ctx.restore();
}

/** The nearest non-null value of a column around `index` (runs' points need not share every x). */
function nearestValue(column: readonly (number | null | undefined)[], index: number, reach = 64): number | null {
  for (let d = 0; d <= reach; d++) {
    const before = column[index - d];
    if (before !== null && before !== undefined) return before;
    const after = column[index + d];
    if (after !== null && after !== undefined) return after;
  }
  return null;
}

/** Rows of the sorted tooltip: one per solid line (faint raw lines behind smoothed ones are left out). */
function fillTooltip(tooltip: HTMLElement, plot: uPlot, props: ChartProps, xText: string): void {
  const index = plot.cursor.idx;
  if (index === null || index === undefined) {
    tooltip.hidden = true;
    return;
  }
  const x = plot.data[0][index]!;
  const rows = sortByValue(
    props.series.flatMap((series, column) => {
      if (series.faint) return [];
      const kind = props.markers.find((marker) => marker.x === x && marker.label === series.label)?.kind ?? null;
      return [
        {
          label: series.label,
          color: series.color,
          kind,
          value: kind ? null : nearestValue(plot.data[column + 1] as (number | null)[], index),
        },
      ];
    }),
  ).filter((row) => row.kind || row.value !== null);
  const limit = 25;
  tooltip.replaceChildren();
  const head = document.createElement("div");
  head.className = "tooltip-x";
  head.textContent = xText;
  tooltip.append(head);
  for (const row of rows.slice(0, limit)) {
    const line = document.createElement("div");
    line.className = "tooltip-row";
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = row.color;
    const name = document.createElement("span");
    name.className = "tooltip-name";
    name.textContent = row.label;
    const value = document.createElement("span");
    value.className = row.kind ? "tooltip-value diverged" : "tooltip-value";
    value.textContent = row.kind ?? formatNumber(row.value);
    line.append(swatch, name, value);
    tooltip.append(line);
  }
  if (rows.length > limit) {
    const more = document.createElement("div");
    more.className = "muted";
    more.textContent = `+${rows.length - limit} more`;
    tooltip.append(more);
  }
  const left = plot.cursor.left ?? 0;
  const wide = left > plot.over.clientWidth / 2;
  tooltip.style.left = wide ? "" : `${left + 16}px`;
  tooltip.style.right = wide ? `${plot.over.clientWidth - left + 16}px` : "";
  tooltip.hidden = false;
}

/** Axis labels through formatTicks, with the axis as wide as its longest label; `drawn` hears the labels. */
const numberAxis = (drawn: (labels: string[]) => void, logScale: boolean): uPlot.Axis => ({
  ...(logScale
    ? {
        splits: (_plot: uPlot, _axis: number, min: number, max: number) => logSplits(min, max),
        filter: (_plot: uPlot, splits: number[]) => splits,
      }
    : {}),
  values: (_plot, splits) => {
    const labels = formatTicks(splits);
    drawn(labels);
    return labels;
  },
  size: (_plot, values) => Math.max(40, 22 + 8 * Math.max(0, ...(values ?? []).map((label) => String(label).length))),
});

/** Axis and grid colours of the page's theme (`--chart-axis`, `--chart-grid` in styles.css). */
function themedAxis(axis: uPlot.Axis): uPlot.Axis {
  const style = getComputedStyle(document.documentElement);
  const text = style.getPropertyValue("--chart-axis").trim() || "#374151";
  const grid = style.getPropertyValue("--chart-grid").trim() || "rgb(0 0 0 / 0.08)";
  return { ...axis, stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
}

/**
 * A line through a series's points: its own (`own`, for one of many runs on a shared x axis: 200
 * runs of ~250 sampled points each share ~9,000 x values, and uPlot's own path builder walks all of
 * them for every line), or its column of the aligned data. Non-finite points are skipped as
 * `spanGaps` does (their marks show them); on a time axis the line breaks at gaps in time
 * (gapStarts), so a resumed run's segments are not joined. uPlot clips the path to the plot.
 */
function linePath(ownOf: () => ChartSeries["own"], timeAxis: boolean): uPlot.Series.PathBuilder {
  const breaksOf = new WeakMap<object, Set<number>>();
  return (plot, seriesIndex) => {
    const own = ownOf() ?? { x: plot.data[0] as number[], y: plot.data[seriesIndex] as (number | null)[] };
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < own.x.length; i++) {
      const value = own.y[i];
      if (value === null || value === undefined) continue;
      xs.push(own.x[i]!);
      ys.push(value);
    }
    let breaks = breaksOf.get(own.y);
    if (!breaks) {
      breaks = new Set(timeAxis ? gapStarts(xs) : []);
      breaksOf.set(own.y, breaks);
    }
    const stroke = new Path2D();
    for (let i = 0; i < xs.length; i++) {
      const x = plot.valToPos(xs[i]!, "x", true);
      const y = plot.valToPos(ys[i]!, "y", true);
      if (i === 0 || breaks.has(i)) stroke.moveTo(x, y);
      else stroke.lineTo(x, y);
    }
    return { stroke, fill: null, clip: null, flags: 0 };
  };
}

/** A clipped y range and the points of the chart's own lines outside it (a smoothed line's raw one stands for it). */
type Clip = { range: [number, number]; outside: { x: number; side: 1 | -1; color: string }[]; note: string | null } | null;

function clipOf(props: Pick<ChartProps, "x" | "series" | "logScale">): Clip {
  const raw = props.series.filter(
    (series) => series.faint || !props.series.some((other) => other.faint && other.label === `${series.label} (raw)`),
  );
  const pointsOf = (series: ChartSeries) => series.own ?? { x: props.x, y: series.values };
  const range = clipRange(
    raw.flatMap((series) => pointsOf(series).y),
    props.logScale,
  );
  if (!range) return null;
  const outside: NonNullable<Clip>["outside"] = [];
  for (const series of raw) {
    const { x, y } = pointsOf(series);
    for (let i = 0; i < x.length; i++) {
      const side = sideOf(y[i], range);
      if (side !== 0) outside.push({ x: x[i]!, side, color: series.color });
    }
  }
  const above = outside.filter((point) => point.side === 1).length;
  return { range, outside, note: outsideNote(above, outside.length - above) };
}

const alignedData = (props: ChartProps) => [props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData;

export function Chart(props: ChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const drawnData = useRef<ChartSeries[] | null>(null);
  const drawnBands = useRef(props.bands);
  const latest = useRef(props);
  latest.current = props;
  const clip = useMemo(() => (props.clipY ? clipOf(props) : null), [props.clipY && props.series, props.clipY, props.logScale]);
  const latestClip = useRef(clip);
  latestClip.current = clip;
  // The lane of non-finite marks takes room above the plot only while there are some.
  const lane = props.markers.length > 0;
  // Charts are rebuilt in the new colours when the system's colour scheme changes.
  const dark = useMediaQuery("(prefers-color-scheme: dark)");
  const shapeKey = `${dark}|${props.xAxis}|${props.xLabel}|${props.logScale}|${props.height}|${props.sortedTooltip}|${lane}|${props.clipY ?? false}|${props.series
    .map((s) => `${s.label}:${s.color}:${s.faint ?? false}:${s.dash ?? false}:${s.own !== undefined}`)
    .join(",")}`;

  // Built before the browser paints: an empty container shown for a frame would be shorter than
  // the chart, and the cards below it would flash into view (and have their data loaded for nothing).
  useLayoutEffect(() => {
    const element = container.current!;
    const xAxis = props.xAxis;
    const xText = (value: number) =>
      xAxis === "time"
        ? new Date(value * 1000).toLocaleString()
        : xAxis === "relative"
          ? formatDuration(value * 1000)
          : formatNumber(value);
    const xLabel = props.xLabel ?? (xAxis === "time" ? "time" : "step");
    let tooltip: HTMLDivElement | null = null;
    const logScale = props.logScale;
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height: props.height ?? 220,
      // null: uPlot's own padding on that side.
      padding: [lane ? LANE_HEIGHT + LANE_GAP + 4 : null, null, null, null],
      scales: {
        x: { time: xAxis === "time" },
        y: {
          distr: logScale ? 3 : 1,
          ...(props.clipY
            ? {
                range: (_plot: uPlot, min: number, max: number) =>
                  latestClip.current?.range ?? (logScale ? uPlot.rangeLog(min, max, 10, true) : uPlot.rangeNum(min, max, 0.1, true)),
              }
            : {}),
        },
      },
      axes: [
        themedAxis(
          xAxis === "time"
            ? {}
            : xAxis === "relative"
              ? { values: (_plot, splits) => splits.map((value) => formatDuration(value * 1000)) }
              : { values: (_plot, splits) => formatTicks(splits) },
        ),
        themedAxis(numberAxis((labels) => (element.dataset.yTicks = labels.join(" ")), props.logScale)),
      ],
      series: [
        xAxis === "time" ? { label: xLabel } : { label: xLabel, value: (_plot, value) => (value === null ? "–" : xText(value)) },
        ...props.series.map((series, index) => ({
          label: series.label,
          stroke: series.faint ? `${series.color}40` : series.color,
          width: series.faint ? 1 : 1.5,
          ...(series.dash ? { dash: [6, 4] } : {}),
          spanGaps: true,
          // The latest data's points (new data comes through setData, not a new chart).
          paths: linePath(() => latest.current.series[index]?.own, xAxis === "time" || xAxis === "relative"),
          points: { show: false },
          show: true,
          // A non-finite point is a gap in the line: hovering it names its kind instead of "–".
          value: (plot: uPlot, value: number | null, _series: number, index: number | null) => {
            if (value !== null || index === null) return formatNumber(value);
            const x = plot.data[0][index];
            return latest.current.markers.find((marker) => marker.x === x && marker.label === series.label)?.kind ?? "–";
          },
        })),
      ],
      legend: { live: true, show: !props.sortedTooltip },
      // The nearest line is found within 24 px of the pointer (uPlot's focus), and only reported:
      // fading is done by the highlight, the same in every chart of the page.
      focus: { alpha: 1 },
      cursor: { drag: { x: true, y: false, setScale: false }, focus: { prox: props.onHover ? 24 : -1 } },
      hooks: {
        setSeries: [
          (_u, index, change) => {
            // uPlot's types name the change a Series; what it passes is {show?, focus?}.
            if ((change as { focus?: boolean }).focus === undefined) return;
            latest.current.onHover?.(index === null ? null : (latest.current.series[index - 1]?.key ?? null));
          },
        ],
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            const min = u.posToVal(u.select.left, "x");
            const max = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            latest.current.onZoom?.(min, max);
          },
        ],
        drawAxes: [(u) => latest.current.bands && drawBands(u, latest.current.bands)],
        setCursor: [(u) => tooltip && fillTooltip(tooltip, u, latest.current, xText(u.data[0][u.cursor.idx ?? 0] ?? 0))],
        draw: [
          (u) => {
            drawRules(u, latest.current.rules ?? []);
            element.dataset.rules = (latest.current.rules ?? []).map((rule) => rule.label).join("|");
            if (latest.current.markers.length > 0) drawMarkers(u, latest.current.markers, element);
            else delete element.dataset.laneMarks;
            if (latestClip.current) drawOutside(u, latestClip.current.outside);
            // The plot's box in CSS pixels of the canvas (left top width height), for tests reading its pixels.
            element.dataset.plot = [u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height]
              .map((value) => (value / devicePixelRatio).toFixed(1))
              .join(" ");
            element.dataset.drawn = "true";
            element.dataset.draws = String(Number(element.dataset.draws ?? 0) + 1); // tests count redraws
          },
        ],
      },
    };
    const instance = new uPlot(options, alignedData(props), element);
    applyHighlight(instance, props.series, props.highlighted);
    drawnData.current = props.series;
    drawnBands.current = props.bands;
    plot.current = instance;
    if (props.sortedTooltip) {
      tooltip = document.createElement("div");
      tooltip.className = "chart-tooltip";
      tooltip.dataset.testid = "chart-tooltip";
      tooltip.hidden = true;
      instance.over.append(tooltip);
    }
    const onDoubleClick = () => latest.current.onReset?.();
    instance.over.addEventListener("dblclick", onDoubleClick);
    // uPlot reports no focus change when the pointer leaves the chart on a line.
    const onLeave = () => latest.current.onHover?.(null);
    instance.over.addEventListener("mouseleave", onLeave);
    // An observer reports the size it starts with too: drawing again at the same size would double the first paint.
    const resize = new ResizeObserver(() => {
      const width = Math.max(element.clientWidth, 200);
      if (width !== instance.width) instance.setSize({ width, height: options.height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      instance.destroy();
      plot.current = null;
      delete element.dataset.drawn;
      delete element.dataset.draws;
    };
    // The chart is rebuilt only when its shape changes; new data goes through setData below.
  }, [shapeKey]);

  useEffect(() => {
    // A chart just built already shows this data; drawing it again would double the first paint.
    if (!plot.current || drawnData.current === props.series) return;
    drawnData.current = props.series;
    plot.current.setData(alignedData(props));
  }, [props.series]);

  useEffect(() => {
    if (plot.current) applyHighlight(plot.current, props.series, props.highlighted);
  }, [props.highlighted, props.series]);

  // New bands with the same lines only need a redraw; a chart just built draws its own.
  useEffect(() => {
    if (!plot.current || drawnBands.current === props.bands) return;
    drawnBands.current = props.bands;
    plot.current.redraw(false);
  }, [props.bands]);

  return (
    <>
      <div
        class="chart-canvas"
        ref={container}
        data-points={props.x.length}
        data-nonfinite={props.markers.length}
        data-marker-colors={[...new Set(props.markers.map((marker) => marker.color))].join(" ")}
        data-lines={props.series.filter((series) => !series.faint).length}
        data-bands={props.bands?.length ?? 0}
        data-outside={clip?.outside.length ?? 0}
        data-highlighted={props.highlighted ?? undefined}
      />
      {clip?.note && (
        <p class="muted chart-note" data-testid="chart-outside">
          {clip.note}
        </p>
      )}
    </>
  );
}
