// Metric points → chart series: sorting, merging live updates, non-finite markers, run alignment.

export interface Point {
  step: number;
  time: string;
  value: number;
  nonFiniteFlags: number;
}

export type XAxis = "step" | "time";
export type NonFiniteKind = "NaN" | "+Inf" | "-Inf";

export interface Series {
  x: number[];
  /** null where the point is not finite (drawn as a marker instead) or unusable on a log scale. */
  y: (number | null)[];
  markers: { x: number; kind: NonFiniteKind }[];
}

export function nonFiniteKind(flags: number): NonFiniteKind | null {
  if (flags & 1) return "NaN";
  if (flags & 2) return "+Inf";
  if (flags & 4) return "-Inf";
  return null;
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

/** New points appended to a step-sorted list; a step sent again replaces its value (as the store does). */
export function mergePoints<P extends Point>(existing: readonly P[], incoming: readonly P[]): P[] {
  if (incoming.length === 0) return existing as P[];
  const byStep = new Map<number, P>();
  for (const point of existing) byStep.set(point.step, point);
  for (const point of incoming) byStep.set(point.step, point);
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/** Several runs' series on one shared, sorted x axis (uPlot's aligned data); missing x are null. */
export function alignSeries(seriesList: readonly Series[]): [number[], ...(number | null)[][]] {
  const xs = [...new Set(seriesList.flatMap((series) => series.x))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const columns = seriesList.map((series) => {
    const column: (number | null)[] = new Array(xs.length).fill(null);
    series.x.forEach((x, i) => (column[index.get(x)!] = series.y[i] ?? null));
    return column;
  });
  return [xs, ...columns];
}

/** The largest step among points, or -1; live updates ask for steps after it. */
export function lastStep(points: readonly Point[]): number {
  return points.reduce((max, point) => Math.max(max, point.step), -1);
}
