import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { MetricSeries, Store } from "../store.js";
import { composeStore, type Operations } from "../compose.js";
import { GroupCommit, type Outcome } from "../group-commit.js";
import { runSync } from "../workflow.js";
import { appendMetricPoints } from "../workflows/metric-writes.js";
import { openDatabase, reclaimSqliteSpace } from "./db.js";
import { Statements } from "./statements.js";
import * as functions from "./functions.js";
import { sqliteOperations } from "./operations.js";

export const DATABASE_FILE = "stepwise.db";

/** The SQLite store, with the SQL texts it has prepared (tests check that request data never shapes SQL). */
export type SqliteStore = Store & { preparedStatements(): string[] };

interface MetricWrite {
  orgId: string;
  runId: number;
  series: MetricSeries[];
  now: number;
}

/**
 * The embedded store: one SQLite database in the data directory. better-sqlite3 is synchronous,
 * so each method runs to completion before another request's code runs; write methods still
 * use IMMEDIATE transactions because the CLI may write to the same file from another process.
 * `busyTimeoutMs`: how long a statement waits for another process's lock (see openDatabase).
 */
export function openSqliteStore(dataDir: string, options: { busyTimeoutMs?: number } = {}): SqliteStore {
  // Owner-only, like signing.key: the database holds key hashes and every organization's data.
  // SQLite gives its -wal and -shm files the database file's permissions.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DATABASE_FILE);
  closeSync(openSync(file, "a", 0o600));
  const db = openDatabase(file, options.busyTimeoutMs);
  const s = new Statements(db);
  const write = <T>(work: () => T): T => db.transaction(work).immediate();
  const operations: Operations = sqliteOperations(s);

  // Metric writes of requests that arrive together share one transaction and one durable commit (GroupCommit).
  // Called inside the group's transaction, a transaction function runs as a savepoint (better-sqlite3).
  const inSavepoint = db.transaction((w: MetricWrite) => runSync(appendMetricPoints(w.orgId, w.runId, w.series, w.now), operations));
  const metricWrites = new GroupCommit<MetricWrite, number | undefined>((items) =>
    write(() =>
      items.map((item): Outcome<number | undefined> => {
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
    ),
  );

  const store = composeStore<Statements>({
    connection: {
      /** Reads, then takes and releases the write lock: a lock held by another process fails readiness. */
      async ping() {
        s.get("SELECT 1 FROM schema_migrations LIMIT 1").get();
        write(() => undefined);
      },
      async reclaimSpace({ rewrite, budgetMs }) {
        await metricWrites.idle();
        return reclaimSqliteSpace(db, rewrite, budgetMs);
      },
      async close() {
        await metricWrites.idle();
        if (db.open) {
          db.pragma("wal_checkpoint(TRUNCATE)");
          db.close();
        }
      },
    },
    functions,
    statement: async (work) => work(s),
    transaction: async (work) => write(() => work(s)) as Awaited<ReturnType<typeof work>>,
    perform: (workflow) => runSync(workflow, operations),
    overrides: {
      appendMetricPoints: (orgId, runId, series, now) => metricWrites.submit({ orgId, runId, series, now }),
    },
  });
  return Object.assign(store, { preparedStatements: () => s.cachedTexts() });
}

/** `SqliteStore.open(dataDir)`: the name callers know the embedded store by. */
export const SqliteStore = { open: openSqliteStore };
