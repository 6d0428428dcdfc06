/** One stored metric point. */
export interface Point {
  step: number;
  value: number;
  /** Client time, epoch ms. */
  time: number;
  /** Server write time, epoch ms. */
  writtenAt: number;
}

/**
 * Read access to the points of one series within a step window, ascending by step. Backed by an
 * in-memory array (arraySeries) or by stored chunks, so sampling a 5M-point series never loads
 * it whole.
 */
export interface SeriesAccess {
  /** The number of points, or any number above `cap` when there are more (counting a long series costs). */
  countUpTo(cap: number): number;
  readAll(): Point[];
  first(): Point | undefined;
  last(): Point | undefined;
  /** The finite minimum and maximum; on ties the point with the lowest step. */
  extremes(): { min?: Point; max?: Point };
  /** The first point with step ≥ `step`, if any. */
  firstAtOrAfter(step: number): Point | undefined;
}

/**
 * Deterministic downsampling (decisions §6, §8): at most `limit` points that always include the
 * first, last, minimum and maximum of the window; the other slots go to the first point at or
 * after evenly spaced target steps, so gaps in steps show as gaps. The same data and request
 * always give the same points, ascending by step.
 */
export function samplePoints(series: SeriesAccess, limit: number): Point[] {
  if (series.countUpTo(limit + 1) <= limit) return series.readAll();
  const first = series.first()!;
  const last = series.last()!;
  const { min, max } = series.extremes();
  const chosen = new Map<number, Point>();
  for (const point of [first, last, min, max]) if (point && chosen.size < limit) chosen.set(point.step, point);
  const slots = limit - chosen.size;
  const span = last.step - first.step;
  for (let j = 0; j < slots; j++) {
    const target = first.step + Math.ceil(((j + 0.5) * span) / slots);
    const point = series.firstAtOrAfter(target);
    if (point && point.step <= last.step && !chosen.has(point.step)) chosen.set(point.step, point);
  }
  return [...chosen.values()].sort((a, b) => a.step - b.step);
}

/** SeriesAccess over points already in memory (ascending by step). */
export function arraySeries(points: Point[]): SeriesAccess {
  return {
    countUpTo: () => points.length,
    readAll: () => points,
    first: () => points[0],
    last: () => points[points.length - 1],
    extremes: () => {
      let min: Point | undefined;
      let max: Point | undefined;
      for (const point of points) {
        if (!Number.isFinite(point.value)) continue;
        if (!min || point.value < min.value) min = point;
        if (!max || point.value > max.value) max = point;
      }
      return { min, max };
    },
    firstAtOrAfter: (step) => points[lowerBound(points.length, (i) => points[i]!.step, step)],
  };
}

/** The first index in [0, n) whose key is ≥ target (n when none), for keys ascending. */
export function lowerBound(n: number, keyAt: (i: number) => number, target: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
