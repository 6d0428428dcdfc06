import { mayEndNonFinite, type MetricSummaryState } from "../domain/summaries.js";
import { finiteOrZero, valueFlag, type ValueFlag } from "../domain/non-finite.js";
import type { Store } from "../store/store.js";

/** The point at a series' highest step, of any kind: `value` is 0 when `valueFlag` names a non-finite kind. */
export interface SeriesEnd {
  step: number;
  value: number;
  valueFlag: ValueFlag;
}

/** A metric whose series ended in NaN or ±Inf: its name, the step of its last point and its kind. */
export interface DivergedMetric {
  logName: string;
  step: number;
  valueFlag: Exclude<ValueFlag, "">;
}

/**
 * The metrics of each run whose series ended non-finite, by name (the run list's `divergedMetrics`),
 * for a page of runs. The summaries tell which (inherited points included), read for the whole page
 * at once; only series holding a non-finite point cost a read of their last step.
 */
export async function divergedMetrics(store: Store, orgId: string, runIds: number[]): Promise<Map<number, DivergedMetric[]>> {
  const out = new Map<number, DivergedMetric[]>();
  for (const [runId, summaries] of await store.listMetricSummariesOfRuns(orgId, runIds)) {
    const diverged: DivergedMetric[] = [];
    for (const summary of summaries) {
      if (!mayEndNonFinite(summary)) continue;
      const end = await seriesEnd(store, orgId, runId, summary.logName, summary);
      if (end && end.valueFlag !== "") diverged.push({ logName: summary.logName, step: end.step, valueFlag: end.valueFlag });
    }
    out.set(
      runId,
      diverged.sort((a, b) => (a.logName < b.logName ? -1 : a.logName > b.logName ? 1 : 0)),
    );
  }
  return out;
}

/** The point at a series' highest step as stored: its value of any kind, and its client time when known. */
export interface LastPoint {
  step: number;
  value: number;
  time: number | null;
}

/** Points of a series' last step read in one go before its last point is read by skipping to it. */
const LAST_STEP_PAGE = 1000;

/**
 * The end-of-series rule, the one place every reader of a series' last point (Stepwise's run list
 * and series ends, MLflow's latest metrics and search by metric) takes it from (docs/api.md, "The
 * end of a series"): the summary alone answers for a series without non-finite points (mayEndNonFinite),
 * the usual case, and, when `withTime`, keeps that point's time; otherwise the last step is read.
 * Undefined for a series without points (or a point not found).
 */
export async function lastPoint(
  store: Store,
  orgId: string,
  runId: number,
  logName: string,
  summary: MetricSummaryState & { lastTime?: number | null },
  withTime: boolean,
): Promise<LastPoint | undefined> {
  if (summary.lastStep === null) return undefined;
  if (!mayEndNonFinite(summary) && (!withTime || (summary.lastTime ?? null) !== null))
    return { step: summary.lastStep, value: summary.lastValue!, time: summary.lastTime ?? null };
  // The last of the last step's points (usually its only one; MLflow's rule may keep many there, and
  // past a page of them the whole series' last is read, skipping the chunks before it unread).
  const points = await store.readMetricPoints(orgId, runId, logName, summary.lastStep, summary.lastStep, LAST_STEP_PAGE);
  const point =
    points.length < LAST_STEP_PAGE
      ? points[points.length - 1]
      : (await store.readMetricPoints(orgId, runId, logName, 0, Number.MAX_SAFE_INTEGER, 1, summary.count + summary.nonFiniteCount - 1))[0];
  return point && { step: point.step, value: point.value, time: point.time };
}

/**
 * The last point of one run's metric (docs/api.md, "The end of a series"), by lastPoint: a series
 * that ends non-finite costs one read of that single point, for its kind.
 */
export async function seriesEnd(
  store: Store,
  orgId: string,
  runId: number,
  logName: string,
  summary: MetricSummaryState,
): Promise<SeriesEnd | null> {
  if (summary.lastStep === null) return null;
  // The summary and the points are written in one transaction, so the point is there; read as NaN if not.
  const value = (await lastPoint(store, orgId, runId, logName, summary, false))?.value ?? NaN;
  return { step: summary.lastStep, value: finiteOrZero(value), valueFlag: valueFlag(value) };
}
