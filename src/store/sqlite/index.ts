import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store.js";
import { composeStore, type Operations } from "../compose.js";
import { GroupCommit } from "../group-commit.js";
import { runSync } from "../workflow.js";
import { WriteTurns } from "../write-turns.js";
import { metricGroupCommitter, pointsOf, type MetricWrite } from "./metric-groups.js";
import { MetricWriterThread, UnsendableGroup } from "./metric-writer-thread.js";
import { openDatabase, reclaimSqliteSpace } from "./db.js";
import { Statements } from "./statements.js";
import * as functions from "./functions.js";
import { sqliteOperations } from "./operations.js";

export const DATABASE_FILE = "stepwise.db";

/** The SQLite store, with the SQL texts it has prepared (tests check that request data never shapes SQL). */
export type SqliteStore = Store & { preparedStatements(): string[] };

/**
 * Groups of at least this many points go to the metric writer thread; smaller ones are written on
 * the main thread, where a thread hop would cost more than the overlap gains (measured in
 * docs/decisions.md, "A writer thread for metric writes"). 0 sends every group to the thread.
 */
export const WRITER_THREAD_MIN_POINTS = 2000;

export interface SqliteStoreOptions {
  /** How long a statement waits for another process's lock (see openDatabase). */
  busyTimeoutMs?: number;
  writerThreadMinPoints?: number;
}

/**
 * The embedded store: one SQLite database in the data directory. better-sqlite3 is synchronous,
 * so each method runs to completion before another request's code runs; write methods still
 * use IMMEDIATE transactions because the CLI may write to the same file from another process.
 * Large groups of metric writes are committed by a writer thread on a connection of its own
 * (MetricWriterThread): every write of this process takes a write turn (WriteTurns), so the two
 * connections never wait for each other's lock.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): SqliteStore {
  // Owner-only, like signing.key: the database holds key hashes and every organization's data.
  // SQLite gives its -wal and -shm files the database file's permissions.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, DATABASE_FILE);
  closeSync(openSync(file, "a", 0o600));
  const db = openDatabase(file, options.busyTimeoutMs);
  const s = new Statements(db);
  const reads = s.readOnly();
  const turns = new WriteTurns();
  const write = <T>(work: () => T): Promise<T> => turns.take(() => db.transaction(work).immediate());
  const operations: Operations = sqliteOperations(s);
  const readOperations: Operations = sqliteOperations(reads);

  // Metric writes of requests that arrive together share one transaction and one durable commit (GroupCommit).
  const commitHere = metricGroupCommitter(db, operations);
  const writer = new MetricWriterThread({ file, busyTimeoutMs: db.pragma("busy_timeout", { simple: true }) as number });
  const minPoints = options.writerThreadMinPoints ?? WRITER_THREAD_MIN_POINTS;
  const metricWrites = new GroupCommit<MetricWrite, number | undefined>((items) =>
    turns.take(async () => {
      if (pointsOf(items) < minPoints) return commitHere(items);
      try {
        return await writer.commit(items);
      } catch (error) {
        if (error instanceof UnsendableGroup) return commitHere(items);
        throw error;
      }
    }),
  );

  const store = composeStore<Statements>({
    connection: {
      /** Reads, then takes and releases the write lock: a lock held by another process fails readiness. */
      async ping() {
        s.get("SELECT 1 FROM schema_migrations LIMIT 1").get();
        await write(() => undefined);
      },
      async reclaimSpace({ rewrite, budgetMs }) {
        return turns.take(() => reclaimSqliteSpace(db, rewrite, budgetMs));
      },
      async close() {
        await metricWrites.idle();
        await writer.close();
        if (db.open) {
          db.pragma("wal_checkpoint(TRUNCATE)");
          db.close();
        }
      },
    },
    functions,
    statement: async (work) => work(reads),
    write: (work) => turns.take(() => work(s)),
    transaction: async (work) => write(() => work(s)) as Awaited<ReturnType<typeof work>>,
    perform: (workflow, ctx) => runSync(workflow, ctx === reads ? readOperations : operations),
    overrides: {
      appendMetricPoints: (orgId, runId, series, now) => metricWrites.submit({ orgId, runId, series, now }),
    },
  });
  return Object.assign(store, { preparedStatements: () => s.cachedTexts() });
}

/** `SqliteStore.open(dataDir)`: the name callers know the embedded store by. */
export const SqliteStore = { open: openSqliteStore };
