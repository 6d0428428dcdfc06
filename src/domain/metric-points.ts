/**
 * The order and identity of a metric's points (docs/semantics.md, Metrics: points). A metric holds
 * points ordered by step, then client time, then value. Two rules write them:
 *
 * - Stepwise's own protocol replaces a step: a step sent again replaces every point stored at it,
 *   so a retried batch never double-counts, and a step holds one point.
 * - MLflow's routes keep every point, as MLflow's server does: points at one step with different
 *   times or values are all kept, and a point identical to a stored one (step, time and value) is
 *   kept once. `for ...: mlflow.log_metric("loss", v)` logs every value at step 0.
 *
 * Either way no two stored points share step, time and value, so (step, time, value) names a point.
 */

/** How a write treats the points already stored at its steps. */
export type PointRule = "replace-step" | "keep-every-point";

/** A value's rank in the point order: −Infinity < finite values < +Infinity < NaN. */
function valueRank(value: number): number {
  return Number.isNaN(value) ? 1 : 0;
}

/** Compares two values in the point order (−Infinity first, NaN last; NaN equals NaN). */
export function compareValues(a: number, b: number): number {
  return valueRank(a) - valueRank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Compares two points by step, then client time, then value. */
export function comparePoints(stepA: number, timeA: number, valueA: number, stepB: number, timeB: number, valueB: number): number {
  return stepA - stepB || timeA - timeB || compareValues(valueA, valueB);
}

/** Whether two points are the same point (NaN is the same as NaN). */
export function samePoint(stepA: number, timeA: number, valueA: number, stepB: number, timeB: number, valueB: number): boolean {
  return stepA === stepB && timeA === timeB && Object.is(valueA, valueB);
}

/** Points as columns: step, value and client time of each. */
export interface PointList {
  steps: number[];
  values: number[];
  times: number[];
}

/**
 * Points in the point order with identical ones once (MLflow's rule for one request). Points
 * usually arrive in order: then the list itself is returned.
 */
export function orderDistinct<T extends PointList>(points: T): T {
  const { steps, values, times } = points;
  let ordered = true;
  for (let i = 1; i < steps.length && ordered; i++) {
    ordered = comparePoints(steps[i - 1]!, times[i - 1]!, values[i - 1]!, steps[i]!, times[i]!, values[i]!) < 0;
  }
  if (ordered) return points;
  const index = steps.map((_, i) => i).sort((a, b) => comparePoints(steps[a]!, times[a]!, values[a]!, steps[b]!, times[b]!, values[b]!));
  const out: T = { ...points, steps: [], values: [], times: [] };
  for (const i of index) {
    const n = out.steps.length;
    if (n > 0 && samePoint(out.steps[n - 1]!, out.times[n - 1]!, out.values[n - 1]!, steps[i]!, times[i]!, values[i]!)) continue;
    out.steps.push(steps[i]!);
    out.values.push(values[i]!);
    out.times.push(times[i]!);
  }
  return out;
}
