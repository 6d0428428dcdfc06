/**
 * The live summary of one metric of one run (docs/semantics.md, Metrics: summaries). count/min/max/mean/stddev
 * cover finite values only; firstStep/lastStep cover every point; lastValue is the finite value at
 * the highest step that has one.
 *
 * The spread is kept as mean and population standard deviation (Welford's form, combined with
 * Chan's parallel rule), never as sums of values and squares: a sum of squares overflows for any
 * value above ~1e154 (and inf − inf is NaN), and sum-of-squares variance loses every digit when
 * the mean is large next to the spread. Mean and standard deviation of finite values always lie
 * within the float range (the mean between min and max, the deviation at most half of max − min),
 * so every stored figure is a finite number.
 */
export interface MetricSummaryState extends Moments {
  nonFiniteCount: number;
  min: number | null;
  max: number | null;
  firstStep: number | null;
  lastStep: number | null;
  lastValue: number | null;
  lastValueStep: number | null;
}

/** Count, mean and population standard deviation of finite values (mean and stddev 0 without any). */
export interface Moments {
  count: number;
  mean: number;
  stddev: number;
}

export const EMPTY_MOMENTS: Moments = Object.freeze({ count: 0, mean: 0, stddev: 0 });

export const EMPTY_SUMMARY: MetricSummaryState = Object.freeze({
  ...EMPTY_MOMENTS,
  nonFiniteCount: 0,
  min: null,
  max: null,
  firstStep: null,
  lastStep: null,
  lastValue: null,
  lastValueStep: null,
});

/**
 * Moments of the finite values among values[from, to). Passes over values divided by a power
 * of two near the largest magnitude, so neither the sum nor the squared deviations can overflow,
 * and dividing by a power of two is exact (values that become subnormal are ~1e-308 of the largest
 * and cannot move the result).
 */
export function momentsOf(values: ArrayLike<number>, from = 0, to = values.length): Moments {
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = from; i < to; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    count++;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (count === 0) return EMPTY_MOMENTS;
  const largest = Math.max(-min, max);
  if (largest === 0) return { count, mean: 0, stddev: 0 };
  // log2 of the largest double rounds up to 1024, and 2^1024 is Infinity.
  const scale = 2 ** Math.min(Math.floor(Math.log2(largest)), 1023);
  let sum = 0;
  for (let i = from; i < to; i++) {
    const value = values[i]!;
    if (Number.isFinite(value)) sum += value / scale;
  }
  const roughMean = sum / count;
  // The corrected two-pass form: the deviations' own sum removes the first pass's rounding error
  // from both the mean and the squares (a constant series gets a deviation of 0, not of rounding).
  let deviations = 0;
  let squares = 0;
  for (let i = from; i < to; i++) {
    const value = values[i]!;
    if (!Number.isFinite(value)) continue;
    const deviation = value / scale - roughMean;
    deviations += deviation;
    squares += deviation * deviation;
  }
  const spread = Math.max(0, squares - (deviations * deviations) / count);
  // Clamped: rounding may step a hair past the values (or, next to the largest double, past the float range).
  const mean = Math.min(Math.max((roughMean + deviations / count) * scale, min), max);
  return { count, mean, stddev: Math.min(Math.sqrt(spread / count) * scale, Number.MAX_VALUE) };
}

/**
 * The moments of two disjoint sets of values (Chan, Golub & LeVeque's parallel combination):
 * σ² = wa·σa² + wb·σb² + wa·wb·δ² with weights w = n/(na+nb) and δ = μb − μa. Every term is
 * divided by the largest of σa, σb and δ/2 before squaring, so nothing overflows on the way.
 */
export function mergeMoments(a: Moments, b: Moments): Moments {
  if (b.count === 0) return a;
  if (a.count === 0) return b;
  const count = a.count + b.count;
  const wa = a.count / count;
  const wb = b.count / count;
  // The true mean lies between the two means; clamping removes a rounding step past either (or past the float range).
  const mean = Math.min(Math.max(wa * a.mean + wb * b.mean, Math.min(a.mean, b.mean)), Math.max(a.mean, b.mean));
  const halfDelta = b.mean / 2 - a.mean / 2;
  const scale = Math.max(a.stddev, b.stddev, Math.abs(halfDelta));
  if (scale === 0) return { count, mean, stddev: 0 };
  const sa = a.stddev / scale;
  const sb = b.stddev / scale;
  const d = halfDelta / scale;
  const stddev = scale * Math.sqrt(wa * sa * sa + wb * sb * sb + 4 * wa * wb * d * d);
  return { count, mean, stddev: Math.min(stddev, Number.MAX_VALUE) };
}

/**
 * Adds points that are not in the summary yet. At one step, a point added later is taken to come
 * later in the point order (its value becomes the last).
 */
export function addPoints(state: MetricSummaryState, steps: ArrayLike<number>, values: ArrayLike<number>): MetricSummaryState {
  const next = { ...state, ...mergeMoments(state, momentsOf(values)) };
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const value = values[i]!;
    if (next.firstStep === null || step < next.firstStep) next.firstStep = step;
    if (next.lastStep === null || step > next.lastStep) next.lastStep = step;
    if (!Number.isFinite(value)) {
      next.nonFiniteCount++;
      continue;
    }
    if (next.min === null || value < next.min) next.min = value;
    if (next.max === null || value > next.max) next.max = value;
    if (next.lastValueStep === null || step >= next.lastValueStep) {
      next.lastValueStep = step;
      next.lastValue = value;
    }
  }
  return next;
}

/**
 * Takes replaced points back out. Only non-finite points come out in place (a count); taking a
 * finite value out of a mean and deviation is a subtraction that can cancel every digit (remove a
 * spike of 1e150 from a series of ones), so then the caller must recompute the summary from the
 * stored points' chunk aggregates (`rescan`).
 */
export function removePoints(state: MetricSummaryState, values: ArrayLike<number>): { state: MetricSummaryState; rescan: boolean } {
  let nonFinite = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i]!)) return { state, rescan: true };
    nonFinite++;
  }
  // Points are only ever replaced, never deleted, so the step range cannot shrink.
  return { state: { ...state, nonFiniteCount: state.nonFiniteCount - nonFinite }, rescan: false };
}

/**
 * Mean and population variance of the finite values; null without any. The variance is the one
 * figure that can exceed the float range (two values 1e155 apart have a variance of 2.5e309): it
 * is then reported as the largest finite double, 1.7976931348623157e308 (docs/semantics.md,
 * Metrics: numbers beyond the float range), while its order among runs is kept by the standard
 * deviation.
 */
export function meanAndVariance(summary: Moments): { mean: number | null; variance: number | null } {
  if (summary.count === 0) return { mean: null, variance: null };
  return { mean: summary.mean, variance: Math.min(summary.stddev * summary.stddev, Number.MAX_VALUE) };
}

/**
 * The summary of two sets of points, `b`'s after `a`'s in the point order (lineage segments, chunks):
 * at a step both hold, `b`'s last finite value is the later one.
 */
export function combineSummaries(a: MetricSummaryState, b: MetricSummaryState): MetricSummaryState {
  const pick = (x: number | null, y: number | null, choose: (x: number, y: number) => number) =>
    x === null ? y : y === null ? x : choose(x, y);
  const bLater = b.lastValueStep !== null && (a.lastValueStep === null || b.lastValueStep >= a.lastValueStep);
  return {
    ...mergeMoments(a, b),
    nonFiniteCount: a.nonFiniteCount + b.nonFiniteCount,
    min: pick(a.min, b.min, Math.min),
    max: pick(a.max, b.max, Math.max),
    firstStep: pick(a.firstStep, b.firstStep, Math.min),
    lastStep: pick(a.lastStep, b.lastStep, Math.max),
    lastValue: bLater ? b.lastValue : a.lastValue,
    lastValueStep: bLater ? b.lastValueStep : a.lastValueStep,
  };
}

/**
 * Whether a series may end in a non-finite point (a diverged run), so that only its last point can
 * tell (docs/api.md, "The end of a series"). One without a non-finite point ends finite. One with
 * may: `lastStep` covers every point and `lastValueStep` finite ones only, so when they differ the
 * highest step holds NaN or ±Inf, but when they are equal that step may hold a non-finite point
 * after the finite one (MLflow's rule keeps several points at a step, domain/metric-points.ts).
 */
export function mayEndNonFinite(summary: MetricSummaryState): boolean {
  return summary.lastStep !== null && summary.nonFiniteCount > 0;
}
