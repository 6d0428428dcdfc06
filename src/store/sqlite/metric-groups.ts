import type { Operations } from "../compose.js";
import type { Outcome } from "../group-commit.js";
import type { SeriesColumns } from "../store.js";
import { runSync } from "../workflow.js";
import { appendMetricPoints } from "../workflows/metric-writes.js";
import type { Db } from "./statements.js";

/** One request's metric write, as GroupCommit collects them. */
export interface MetricWrite {
  orgId: string;
  runId: number;
  series: SeriesColumns[];
  now: number;
}

export type MetricOutcome = Outcome<number | undefined>;

/**
 * Writes a group of metric writes in one IMMEDIATE transaction on `db`, each item in its own
 * savepoint (GroupCommit's rule), and returns once it has committed. The same code runs on the main
 * thread and in the metric writer thread (metric-writer.ts), each on its own connection.
 */
export function metricGroupCommitter(db: Db, operations: Operations): (items: MetricWrite[]) => MetricOutcome[] {
  // Called inside the group's transaction, a transaction function runs as a savepoint (better-sqlite3).
  const inSavepoint = db.transaction((w: MetricWrite) => runSync(appendMetricPoints(w.orgId, w.runId, w.series, w.now), operations));
  const group = db.transaction((items: MetricWrite[]) =>
    items.map((item): MetricOutcome => {
      try {
        return { ok: true, value: inSavepoint(item) };
      } catch (error) {
        // Disk full, I/O errors and the like end the whole transaction in SQLite, not just the
        // savepoint: then the group fails as one (nothing of it is stored), never committing
        // the items after it outside any transaction.
        if (!db.inTransaction) throw error;
        return { ok: false, error };
      }
    }),
  );
  return (items) => group.immediate(items);
}

/** The points of a group: what decides whether it is worth sending to the writer thread. */
export function pointsOf(items: MetricWrite[]): number {
  let points = 0;
  for (const item of items) for (const series of item.series) points += series.steps.length;
  return points;
}
