import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { backfillMetricAggregates } from "./metric-backfill.js";
import type { Db } from "./statements.js";
import { checkSchemaVersion, migrationFiles } from "../migrations.js";

const OPENING_BUSY_TIMEOUT_MS = 5000;

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/**
 * Opens the database file with the pragmas every connection needs and applies pending migrations.
 * WAL lets readers run beside the single writer; synchronous=FULL makes every commit durable
 * before it is acknowledged (a 200 means on disk); busy_timeout lets the CLI write while a server
 * runs. better-sqlite3 waits for a lock synchronously, so the server passes a short busy timeout
 * (its event loop stands still meanwhile); the CLI keeps the long default (see "Busy store, full disk" in
 * docs/decisions.md).
 */
export function openDatabase(file: string, busyTimeoutMs = OPENING_BUSY_TIMEOUT_MS): Db {
  // Opening and migrating wait as long as the CLI does: nothing else runs yet.
  const db = connectDatabase(file, OPENING_BUSY_TIMEOUT_MS);
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  return db;
}

/** A connection with the pragmas every connection needs, to a database migrated already (the metric writer thread's). */
export function connectDatabase(file: string, busyTimeoutMs: number): Db {
  const db = new Database(file);
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // Takes effect on a new database only (before its first table): the purge then gives the pages of
  // deleted rows back to the file system (reclaimSqliteSpace). An older one switches with one VACUUM (`stepwise gc --vacuum`).
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  return db;
}

/**
 * Pages given back per step of incremental_vacuum (~2 MB of 4 KiB pages), each step its own short
 * write. A step's cost grows with the free list (SQLite searches it for the pages it moves), so a
 * huge free list is given back over several rounds, or at once by a VACUUM (docs/decisions.md).
 */
const VACUUM_STEP_PAGES = 500;

/** StoreConnection.reclaimSpace on SQLite. */
export function reclaimSqliteSpace(
  db: Db,
  rewrite: boolean,
  budgetMs: number,
): { bytesBefore: number; bytesAfter: number; freeBytesLeft: number } {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const size = () => (db.pragma("page_count", { simple: true }) as number) * pageSize;
  const free = () => db.pragma("freelist_count", { simple: true }) as number;
  const bytesBefore = size();
  if (rewrite) {
    db.pragma("auto_vacuum = INCREMENTAL");
    db.exec("VACUUM");
  } else if (db.pragma("auto_vacuum", { simple: true }) === 2) {
    const deadline = performance.now() + budgetMs;
    while (free() > 0 && performance.now() < deadline) db.pragma(`incremental_vacuum(${VACUUM_STEP_PAGES})`);
  }
  // The WAL holds the moved pages until a checkpoint writes them and truncates the file.
  db.pragma("wal_checkpoint(TRUNCATE)");
  return { bytesBefore, bytesAfter: size(), freeBytesLeft: free() * pageSize };
}

/** Migrations whose new columns are computed from stored data (not expressible in SQL) finish with a step in code. */
const DATA_STEPS = new Map<number, (db: Db) => void>([[5, backfillMetricAggregates]]);

/**
 * Applies each numbered migration not yet recorded, each in its own transaction. Forward only; a
 * database migrated by a newer Stepwise is refused (migrations.ts).
 */
export function migrate(db: Db): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((row) => row.version));
  const files = migrationFiles(MIGRATIONS_DIR);
  checkSchemaVersion(applied, files);
  for (const { version, file } of files) {
    if (applied.has(version)) continue;
    const sql = readFileSync(MIGRATIONS_DIR + file, "utf8");
    db.transaction(() => {
      // Another process opening the same file may have applied it since the read above: the
      // check is repeated under the write lock, so processes starting together migrate once.
      if (db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(version)) return;
      db.exec(sql);
      DATA_STEPS.get(version)?.(db);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, Date.now());
    }).immediate();
  }
}
