import { checkMetricCount, logNameEntries } from "../../domain/log-names.js";
import type { SeriesColumns } from "../store.js";
import { performer, type Workflow } from "../workflow.js";
import type { RunWriteOperations } from "./run-writes.js";

/** What appending metric points asks of a backend besides the run writes it shares, each inside the workflow's transaction. */
export interface MetricWriteOperations {
  /**
   * Creates the run's metrics of these names (distinct, ascending) that it does not have yet, in
   * that order; returns the names it created. Concurrent batches naming the same metrics take
   * their locks in one order, so they never wait on each other in a cycle.
   */
  createMetrics(runId: number, logNames: string[]): string[];
  /** How many metrics the run has. */
  countMetrics(runId: number): number;
  /** Adds names to the run's project's metric names (the list that project-wide name searches read). */
  addProjectMetricNames(runId: number, logNames: string[]): void;
  /**
   * The storage engine's part: stores the points of series of the run's existing metrics, a step
   * sent again replacing its value, and updates each metric's summary with them. Series of one name
   * are applied in the order given, as if sent in successive batches.
   */
  writeMetricPoints(runId: number, series: SeriesColumns[], now: number): void;
}

type Operations = MetricWriteOperations & Pick<RunWriteOperations, "runProjectId" | "insertLogNames" | "touchActivity">;
const perform = performer<Operations>();

/**
 * Store.appendMetricPoints. A metric's first point registers it: the run's log name (type METRIC)
 * and its project's metric name, in the transaction that creates it (nothing deletes either, so a
 * metric that exists had both written). The run's metric count is bounded (MAX_METRICS_PER_RUN),
 * counted after the new ones are created: concurrent first batches of one run may each pass and
 * together exceed the bound by what they carry, which a lock taken here would only trade for a
 * deadlock with the activity write.
 */
export function* appendMetricPoints(
  orgId: string,
  runId: number,
  series: SeriesColumns[],
  now: number,
): Workflow<number | undefined, Operations> {
  if ((yield* perform("runProjectId", orgId, runId)) === undefined) return undefined;
  const sent = series.filter((one) => one.steps.length > 0);
  if (sent.length > 0) {
    const created = yield* perform("createMetrics", runId, [...new Set(sent.map((one) => one.logName))].sort());
    if (created.length > 0) {
      const after = yield* perform("countMetrics", runId);
      checkMetricCount(after - created.length, after);
      yield* perform(
        "insertLogNames",
        runId,
        logNameEntries(
          created,
          (name) => name,
          () => "METRIC",
        ),
        now,
      );
      yield* perform("addProjectMetricNames", runId, created);
    }
    yield* perform("writeMetricPoints", runId, sent, now);
  }
  yield* perform("touchActivity", runId, now);
  return sent.reduce((points, one) => points + one.steps.length, 0);
}
