import { endsNonFinite, type MetricSummaryState } from "../domain/summaries.js";
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
 * at once; only the diverged series cost a read of their last point.
 */
export async function divergedMetrics(store: Store, orgId: string, runIds: number[]): Promise<Map<number, DivergedMetric[]>> {
  const out = new Map<number, DivergedMetric[]>();
  for (const [runId, summaries] of await store.listMetricSummariesOfRuns(orgId, runIds)) {
    const diverged: DivergedMetric[] = [];
    for (const summary of summaries) {
      if (!endsNonFinite(summary)) continue;
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

/**
 * The last point of one run's metric (docs/api.md, "The end of a series"). The summary alone
 * answers for a series that ends finite (the usual case); one that ends non-finite costs one read
 * of that single point, for its kind.
 */
export async function seriesEnd(
  store: Store,
  orgId: string,
  runId: number,
  logName: string,
  summary: MetricSummaryState,
): Promise<SeriesEnd | null> {
  if (summary.lastStep === null) return null;
  if (!endsNonFinite(summary)) return { step: summary.lastStep, value: summary.lastValue!, valueFlag: "" };
  const [point] = await store.readMetricPoints(orgId, runId, logName, summary.lastStep, summary.lastStep, 1);
  // The summary and the points are written in one transaction, so the point is there; read as NaN if not.
  const value = point?.value ?? NaN;
  return { step: summary.lastStep, value: finiteOrZero(value), valueFlag: valueFlag(value) };
}
