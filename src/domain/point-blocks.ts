/**
 * A series's points as stored blocks (chunks) with their aggregates, and the primitives that read
 * them: what domain/sampling.ts samples and domain/sample-fill.ts fills from.
 */

/** One stored metric point. */
export interface Point {
  step: number;
  value: number;
  /** Client time, epoch ms. */
  time: number;
  /** Server write time, epoch ms. */
  writtenAt: number;
}

/** A point as a sample shows it: the server write time is not part of a chart. */
export type SampledPoint = Omit<Point, "writtenAt">;

/** The points of one block, read in place, ascending by step. */
export interface PointReader {
  count: number;
  stepAt(i: number): number;
  valueAt(i: number): number;
  timeAt(i: number): number;
}

/**
 * Where a block's extremes and non-finite points are, without reading its points. The extremes
 * carry their client time too: a sample shows a bucket's minimum and maximum, and reading a whole
 * block for one time would cost more than the rest of the sampling.
 */
export interface BlockExtremes {
  /** The finite minimum and maximum; on ties the lowest step. */
  min: number | null;
  minStep: number | null;
  minTime: number | null;
  max: number | null;
  maxStep: number | null;
  maxTime: number | null;
  /** The first step holding each non-finite kind. */
  nanStep: number | null;
  infStep: number | null;
  negInfStep: number | null;
}

/**
 * A run of consecutive points of a series (a stored chunk) with its aggregates. Only its points
 * within [lowStep, highStep] belong to the series being read (the request's window, and for an
 * inherited segment the fork cut); the aggregates speak for the block only when it lies wholly
 * inside that range.
 */
export interface PointBlock extends BlockExtremes {
  startStep: number;
  endStep: number;
  count: number;
  lowStep: number;
  highStep: number;
}

/** A series as blocks ascending by step and never overlapping, and a way to read a block's points. */
export interface BlockSeries {
  blocks: PointBlock[];
  read(block: PointBlock): PointReader;
}

/** The extremes and first non-finite steps of points [from, to) (what a stored chunk records). */
export function blockExtremes(
  steps: ArrayLike<number>,
  values: ArrayLike<number>,
  times: ArrayLike<number>,
  from = 0,
  to = steps.length,
): BlockExtremes {
  const e: BlockExtremes = {
    min: null,
    minStep: null,
    minTime: null,
    max: null,
    maxStep: null,
    maxTime: null,
    nanStep: null,
    infStep: null,
    negInfStep: null,
  };
  for (let i = from; i < to; i++) {
    const value = values[i]!;
    const step = steps[i]!;
    if (Number.isNaN(value)) e.nanStep ??= step;
    else if (value === Infinity) e.infStep ??= step;
    else if (value === -Infinity) e.negInfStep ??= step;
    else {
      if (e.min === null || value < e.min) [e.min, e.minStep, e.minTime] = [value, step, times[i]!];
      if (e.max === null || value > e.max) [e.max, e.maxStep, e.maxTime] = [value, step, times[i]!];
    }
  }
  return e;
}

/** Whether any of the block's points lie within its [lowStep, highStep]; whether all of them do. */
export const inRange = (block: PointBlock) => block.startStep <= block.highStep && block.endStep >= block.lowStep;
export const isWhole = (block: PointBlock) => block.startStep >= block.lowStep && block.endStep <= block.highStep;

/** The indexes [i, j) of a block's points within its [lowStep, highStep]. */
export function indexRange(reader: PointReader, block: PointBlock): [number, number] {
  return [lowerBound(reader.count, reader.stepAt, block.lowStep), lowerBound(reader.count, reader.stepAt, block.highStep + 1)];
}

export function pointAt(reader: PointReader, i: number): SampledPoint {
  return { step: reader.stepAt(i), value: reader.valueAt(i), time: reader.timeAt(i) };
}

/** The first index in [0, n) whose key is ≥ target (n when none), for keys ascending. */
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
