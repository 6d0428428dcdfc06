/**
 * How a large ingest body is written: in slices, each its own store write, so that between two
 * slices the event loop serves every other request (a 64 MiB body written in one synchronous
 * SQLite transaction held the whole process for seconds). The whole body is decoded and validated
 * before the first slice, so a bad line still stores nothing; the answer comes only after the last
 * slice is durable. A store failure between slices leaves the first slices written: sending the
 * same body again completes it, as a step sent again replaces its value (docs/api.md, "Large bodies").
 */

/** Points per slice: about 50 ms of SQLite's write time at ~1M points/s. */
export const SLICE_POINTS = 50_000;
/** Characters of console messages or data per slice. */
export const SLICE_TEXT = 4 * 1024 * 1024;

interface Series {
  logName: string;
  steps: number[];
  values: number[];
  times: number[];
}

/**
 * Slices of at most `maxPoints` points (or one point per series, when a batch names more series
 * than that). The first slice holds a point of every series, so each metric the batch creates is
 * created, and counted against a run's bound, before anything else is written; the points of a
 * series keep their order across slices. One slice, the batch itself, when it fits.
 */
export function sliceSeries<S extends Series>(series: S[], maxPoints = SLICE_POINTS): S[][] {
  const total = series.reduce((sum, one) => sum + one.steps.length, 0);
  if (total <= maxPoints) return [series];
  const taken = series.map(() => 0);
  const slices: S[][] = [];
  const pieceOf = (one: S, from: number, count: number): S => ({
    ...one,
    steps: one.steps.slice(from, from + count),
    values: one.values.slice(from, from + count),
    times: one.times.slice(from, from + count),
  });
  // The first slice: one point of every series, then as many more as fit, in series order.
  let extra = Math.max(0, maxPoints - series.length);
  const first: S[] = [];
  series.forEach((one, i) => {
    if (one.steps.length === 0) return;
    const count = 1 + Math.min(one.steps.length - 1, extra);
    extra -= count - 1;
    first.push(pieceOf(one, 0, count));
    taken[i] = count;
  });
  slices.push(first);
  for (;;) {
    let budget = maxPoints;
    const slice: S[] = [];
    series.forEach((one, i) => {
      const count = Math.min(one.steps.length - taken[i]!, budget);
      if (count === 0) return;
      slice.push(pieceOf(one, taken[i]!, count));
      taken[i]! += count;
      budget -= count;
    });
    if (slice.length === 0) return slices;
    slices.push(slice);
  }
}

/** Consecutive slices of items whose `size` adds up to at most `maxSize` each (an item larger than that alone). */
export function sliceBySize<T>(items: T[], size: (item: T) => number, maxSize = SLICE_TEXT): T[][] {
  const slices: T[][] = [];
  let current: T[] = [];
  let currentSize = 0;
  for (const item of items) {
    const itemSize = size(item);
    if (current.length > 0 && currentSize + itemSize > maxSize) {
      slices.push(current);
      current = [];
      currentSize = 0;
    }
    current.push(item);
    currentSize += itemSize;
  }
  if (current.length > 0 || slices.length === 0) slices.push(current);
  return slices;
}
