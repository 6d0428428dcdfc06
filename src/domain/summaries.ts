/**
 * The live summary of one metric of one run (decisions §6). count/min/max/sum/sumSq cover
 * finite values only; firstStep/lastStep cover every point; lastValue is the finite value at
 * the highest step that has one.
 */
export interface MetricSummaryState {
  count: number;
  nonFiniteCount: number;
  min: number | null;
  max: number | null;
  sum: number;
  sumSq: number;
  firstStep: number | null;
  lastStep: number | null;
  lastValue: number | null;
  lastValueStep: number | null;
}

export const EMPTY_SUMMARY: MetricSummaryState = Object.freeze({
  count: 0,
  nonFiniteCount: 0,
  min: null,
  max: null,
  sum: 0,
  sumSq: 0,
  firstStep: null,
  lastStep: null,
  lastValue: null,
  lastValueStep: null,
});

/** Adds points whose steps are not in the summary yet. Steps need not be ordered. */
export function addPoints(state: MetricSummaryState, steps: ArrayLike<number>, values: ArrayLike<number>): MetricSummaryState {
  const next = { ...state };
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const value = values[i]!;
    if (next.firstStep === null || step < next.firstStep) next.firstStep = step;
    if (next.lastStep === null || step > next.lastStep) next.lastStep = step;
    if (!Number.isFinite(value)) {
      next.nonFiniteCount++;
      continue;
    }
    next.count++;
    next.sum += value;
    next.sumSq += value * value;
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
 * Takes replaced points back out. Counts and sums are exact to rounding; when a removed value
 * could have been the minimum, maximum or last value, the caller must recompute the summary
 * from the stored points (`rescan`).
 */
export function removePoints(
  state: MetricSummaryState,
  steps: ArrayLike<number>,
  values: ArrayLike<number>,
): { state: MetricSummaryState; rescan: boolean } {
  const next = { ...state };
  let rescan = false;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const value = values[i]!;
    // Points are only ever replaced, never deleted, so the step range cannot shrink.
    if (step === next.lastValueStep) rescan = true;
    if (!Number.isFinite(value)) {
      next.nonFiniteCount--;
      continue;
    }
    next.count--;
    next.sum -= value;
    next.sumSq -= value * value;
    if (value === next.min || value === next.max) rescan = true;
  }
  return { state: next, rescan };
}

/** mean and population variance of the finite values; null without any. */
export function meanAndVariance(summary: Pick<MetricSummaryState, "count" | "sum" | "sumSq">): { mean: number | null; variance: number | null } {
  if (summary.count === 0) return { mean: null, variance: null };
  const mean = summary.sum / summary.count;
  // Clamped: sumSq/n − mean² can dip below 0 by rounding when all values are equal.
  return { mean, variance: Math.max(0, summary.sumSq / summary.count - mean * mean) };
}

/** The summary of two sets of points with no step in common (lineage segments, chunk ranges). */
export function combineSummaries(a: MetricSummaryState, b: MetricSummaryState): MetricSummaryState {
  const pick = (x: number | null, y: number | null, choose: (x: number, y: number) => number) => (x === null ? y : y === null ? x : choose(x, y));
  const bLater = b.lastValueStep !== null && (a.lastValueStep === null || b.lastValueStep > a.lastValueStep);
  return {
    count: a.count + b.count,
    nonFiniteCount: a.nonFiniteCount + b.nonFiniteCount,
    min: pick(a.min, b.min, Math.min),
    max: pick(a.max, b.max, Math.max),
    sum: a.sum + b.sum,
    sumSq: a.sumSq + b.sumSq,
    firstStep: pick(a.firstStep, b.firstStep, Math.min),
    lastStep: pick(a.lastStep, b.lastStep, Math.max),
    lastValue: bLater ? b.lastValue : a.lastValue,
    lastValueStep: bLater ? b.lastValueStep : a.lastValueStep,
  };
}
