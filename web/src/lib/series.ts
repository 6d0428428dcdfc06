// Metric points → chart series: sorting, smoothing, merging live updates, non-finite markers,
// zoom windows, run alignment. The UI never thins points out itself (the server's sampler keeps
// every non-finite kind per bucket, docs/api.md "Sampling"): each step below keeps every point it
// is given, and every non-finite one becomes a marker, so a divergence shows at any zoom.

import { isSystem } from "./metric-choice.ts";
import { type ValueFlag, valueFlagOfFlags } from "../../../src/domain/shared-with-ui.ts";
import type { BatchSeries, MetricPoint } from "../types.ts";
import { smooth } from "./smoothing.ts";

/** A point of GET /api/runs/metrics, as far as a chart reads it. */
export type Point = Pick<MetricPoint, "step" | "time" | "value" | "nonFiniteFlags">;

/**
 * A series of the batch read (POST /api/runs/metrics/batch: parallel arrays, epoch-millisecond
 * times) as the points GET /api/runs/metrics gives: the same sample, one object per point.
 */
export function pointsOfBatch(series: Pick<BatchSeries, "steps" | "values" | "nonFiniteFlags" | "times">): Point[] {
  return series.steps.map((step, i) => ({
    step,
    time: new Date(series.times[i]!).toISOString(),
    value: series.values[i]!,
    nonFiniteFlags: series.nonFiniteFlags[i]!,
  }));
}

export type XAxis = "step" | "time";

export interface ChartSettings {
  xAxis: XAxis;
  smoothing: number;
  logScale: boolean;
  /** The y range clipped to the bulk of the data (lib/chart-marks.ts); absent in settings stored before it. */
  clipY?: boolean;
}

/** One line of a chart. */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
  /** A faint line (the raw values behind a smoothed one). */
  faint?: boolean;
  /** A dashed line (a panel's second and later metrics). */
  dash?: boolean;
  /** What the line belongs to (a run's ID): the lines the chart's `highlighted` names stay bright. */
  key?: string;
  /**
   * The line's own points, where `values` is one of several runs' lines on their shared x axis:
   * the chart draws these instead of walking the shared axis, which is mostly other runs' x.
   */
  own?: Pick<Series, "x" | "y">;
}
/** How the UI writes a non-finite kind (chart markers, the end of a series): with the sign of an infinity. */
export type NonFiniteKind = "NaN" | "+Inf" | "-Inf";
const KIND_OF_FLAG: Record<ValueFlag, NonFiniteKind | null> = { NaN: "NaN", Inf: "+Inf", "-Inf": "-Inf", "": null };

export interface Series {
  x: number[];
  /** null where the point is not finite (drawn as a marker instead) or unusable on a log scale. */
  y: (number | null)[];
  markers: { x: number; kind: NonFiniteKind }[];
}

/** The kind an API's `valueFlag` names, null for a finite value. */
export function kindOfValueFlag(flag: ValueFlag): NonFiniteKind | null {
  return KIND_OF_FLAG[flag];
}

/** The kind a `nonFiniteFlags` bitmask names (its bits are the server's, domain/non-finite.ts), null for a finite value. */
export function nonFiniteKind(flags: number): NonFiniteKind | null {
  return KIND_OF_FLAG[valueFlagOfFlags(flags)];
}

const xOf = (point: Point, axis: XAxis) => (axis === "step" ? point.step : Date.parse(point.time) / 1000);

/** Points (sorted by step) as one series; on a log scale non-positive values cannot be drawn. */
export function toSeries(points: readonly Point[], axis: XAxis, logScale = false): Series {
  const ordered = axis === "step" ? points : [...points].sort((a, b) => xOf(a, axis) - xOf(b, axis));
  const series: Series = { x: [], y: [], markers: [] };
  for (const point of ordered) {
    const x = xOf(point, axis);
    const kind = nonFiniteKind(point.nonFiniteFlags);
    series.x.push(x);
    if (kind) series.markers.push({ x, kind });
    series.y.push(kind || (logScale && point.value <= 0) ? null : point.value);
  }
  return series;
}

/**
 * New points merged into a list in the point order (by step, then time): the incoming points of a
 * step replace those the list had at it, as a step's points come whole from the server (a step sent
 * again replaces its value; under MLflow's rule a step may hold several points).
 */
export function mergePoints<P extends Point>(existing: readonly P[], incoming: readonly P[]): P[] {
  if (incoming.length === 0) return existing as P[];
  const steps = new Set(incoming.map((point) => point.step));
  return [...existing.filter((point) => !steps.has(point.step)), ...incoming].sort(
    (a, b) => a.step - b.step || Date.parse(a.time) - Date.parse(b.time),
  );
}

/**
 * The x axis a chart draws on (`timeAxis`: the caller's name for its time axis). Against steps, a
 * chart of system metrics only (`sys/…`: their steps count the client's samples, not training
 * steps) is drawn against time, and so is one whose points all sit at one step (MLflow's
 * `log_metric` without a step logs every value at step 0), which would be a vertical line.
 */
export function drawnAxis<A extends string, T extends string>(
  axis: A,
  stepsOfSeries: readonly (readonly number[])[],
  timeAxis: T,
  logNames: readonly string[] = [],
): A | T {
  if (axis !== "step") return axis;
  if (logNames.length > 0 && logNames.every(isSystem)) return timeAxis;
  const steps = new Set(stepsOfSeries.flat());
  return steps.size === 1 && stepsOfSeries.some((steps) => steps.length > 1) ? timeAxis : axis;
}

/** Several runs' series on one shared, sorted x axis (uPlot's aligned data); missing x are null. */
export function alignSeries(seriesList: readonly Series[]): [number[], ...(number | null)[][]] {
  const xs = [...new Set(seriesList.flatMap((series) => series.x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const columns = seriesList.map((series) => {
    const column: (number | null)[] = new Array(xs.length).fill(null);
    for (const [i, x] of series.x.entries()) column[index.get(x)!] = series.y[i] ?? null;
    return column;
  });
  return [xs, ...columns];
}

/** The largest step among points, or -1; live updates ask for steps after it. */
export function lastStep(points: readonly Point[]): number {
  return points.reduce((max, point) => Math.max(max, point.step), -1);
}

/** Chart lines for one run's points with the chosen smoothing (the raw line stays, faint, behind it). */
export function runSeries(points: readonly Point[], settings: ChartSettings, label: string, color: string) {
  const series = toSeries(points, settings.xAxis, settings.logScale);
  const lines: ChartSeries[] =
    settings.smoothing > 0
      ? [
          { label: `${label} (raw)`, values: series.y, color, faint: true },
          { label, values: smooth(series.y, settings.smoothing), color },
        ]
      : [{ label, values: series.y, color }];
  return { x: series.x, lines, markers: series.markers.map((marker) => ({ ...marker, color, label })) };
}

export type RunChart = ReturnType<typeof runSeries>;

/** Several runs' charts overlaid on one shared x axis; every run's markers are kept, in its colour. */
export function overlayRuns(perRun: readonly RunChart[]) {
  const aligned = alignSeries(perRun.flatMap((run) => run.lines.map((line) => ({ x: run.x, y: line.values, markers: [] }))));
  const lines = perRun.flatMap((run) => run.lines.map((line) => ({ ...line, own: { x: run.x, y: line.values } })));
  for (const [index, line] of lines.entries()) line.values = aligned[index + 1]!;
  return { x: aligned[0], lines, markers: perRun.flatMap((run) => run.markers) };
}

/** The step window a dragged x range covers (on a time axis, through the points' own times). */
export function stepsOfRange(points: readonly Point[], xAxis: XAxis, min: number, max: number): [number, number] | null {
  if (xAxis === "step") return [Math.max(0, Math.ceil(min)), Math.max(0, Math.floor(max))];
  const inside = points.filter((point) => {
    const seconds = Date.parse(point.time) / 1000;
    return seconds >= min && seconds <= max;
  });
  return inside.length === 0 ? null : [inside[0]!.step, inside[inside.length - 1]!.step];
}

/**
 * Tick positions of a log-scaled axis from `min` to `max` (both > 0): whole decades, every k-th
 * so at most `maxTicks` remain, so a range of 20 decades is not a wall of minor ticks and grid
 * lines; within less than two decades, `maxTicks` geometrically even values instead.
 */
export function logSplits(min: number, max: number, maxTicks = 6): number[] {
  if (!(min > 0) || !(max > min) || !Number.isFinite(max)) return [];
  const low = Math.ceil(Math.log10(min) - 1e-9);
  const high = Math.floor(Math.log10(max) + 1e-9);
  if (high - low + 1 < 2) {
    const ratio = (max / min) ** (1 / (maxTicks - 1));
    return Array.from({ length: maxTicks }, (_, i) => Number((min * ratio ** i).toPrecision(2))).filter(
      (value, i, all) => value >= min && value <= max && value !== all[i - 1],
    );
  }
  const every = Math.ceil((high - low + 1) / maxTicks);
  const splits: number[] = [];
  for (let exponent = high; exponent >= low; exponent -= every) splits.unshift(Number(`1e${exponent}`));
  return splits;
}
