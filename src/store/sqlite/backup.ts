import Database from "better-sqlite3";
import { closeSync, fsyncSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { COPY_TABLES } from "../copy-tables.js";
import { migrationFiles } from "../migrations.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/** Pages copied per step of the online backup (4 MiB of 4 KiB pages); between steps the event loop turns and progress is printed. */
const PAGES_PER_STEP = 1024;

/** How long opening the source waits for a lock held by the server (it holds write locks for milliseconds). */
const SOURCE_BUSY_TIMEOUT_MS = 5000;

export interface BackupProgress {
  copiedPages: number;
  totalPages: number;
}

/**
 * Copies the database in `sourceFile` to `targetFile` as one consistent snapshot while servers go on
 * writing to it, with SQLite's online backup API, in steps (docs/decisions.md, "Backup without
 * downtime"). The backup API restarts from the first page whenever another connection commits to
 * the source between two steps, and a server under ingest commits every few milliseconds: this
 * connection holds one read transaction open over all the steps instead, so every step reads the
 * same WAL snapshot (commits after it stay in the WAL for the live database, unseen here) and the
 * copy never restarts. Writers are never blocked; checkpoints cannot move past the snapshot until
 * the backup ends, so the WAL grows by what is written meanwhile.
 */
export async function backupDatabase(
  sourceFile: string,
  targetFile: string,
  onProgress: (progress: BackupProgress) => void,
): Promise<void> {
  const source = new Database(sourceFile, { fileMustExist: true });
  try {
    source.pragma(`busy_timeout = ${SOURCE_BUSY_TIMEOUT_MS}`);
    source.exec("BEGIN");
    // The snapshot is taken by the transaction's first read.
    source.prepare("SELECT count(*) FROM sqlite_master").get();
    // better-sqlite3 reports before each step, not after the last one: the end is reported here.
    const { totalPages } = await source.backup(targetFile, {
      progress({ totalPages, remainingPages }) {
        onProgress({ copiedPages: totalPages - remainingPages, totalPages });
        return PAGES_PER_STEP;
      },
    });
    onProgress({ copiedPages: totalPages, totalPages });
    source.exec("COMMIT");
  } finally {
    source.close();
  }
  // The copy's first page says WAL, as the source's does: made a single-file database (rollback
  // journal), a backup is one file to move, and its bytes are on disk before it gets its name.
  const copy = new Database(targetFile, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  syncFile(targetFile);
}

export interface VerifiedBackup {
  /** The newest migration applied in the copy. */
  schemaVersion: number;
  /** Row counts of every table a store copy moves (copy-tables.ts). */
  counts: { table: string; rows: number }[];
}

export class BackupVerificationError extends Error {}

/**
 * Proves a backup file is a whole Stepwise database: SQLite's integrity check finds nothing (every
 * page, index and constraint, not only the quick check's structure), its migrations are ones this
 * Stepwise knows, and every table can be read to the end (the counts).
 */
export function verifyBackup(file: string): VerifiedBackup {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupVerificationError(`${file} cannot be opened as a database: ${(error as Error).message}`);
  }
  try {
    let problems: string[];
    try {
      problems = (db.pragma("integrity_check(20)") as { integrity_check: string }[]).map((row) => row.integrity_check);
    } catch (error) {
      throw new BackupVerificationError(`${file} is not a whole SQLite database: ${(error as Error).message}`);
    }
    if (problems.length !== 1 || problems[0] !== "ok")
      throw new BackupVerificationError(`${file} fails SQLite's integrity check:\n  ${problems.join("\n  ")}`);
    const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!hasMigrations) throw new BackupVerificationError(`${file} is a SQLite database but not a Stepwise store (no schema_migrations)`);
    const applied = (db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map(
      (row) => row.version,
    );
    const known = new Set(migrationFiles(MIGRATIONS_DIR).map((migration) => migration.version));
    const unknown = applied.filter((version) => !known.has(version));
    if (applied.length === 0 || unknown.length > 0)
      throw new BackupVerificationError(
        applied.length === 0
          ? `${file} has no migration applied`
          : `${file} has schema versions this Stepwise does not know (${unknown.join(", ")}): restore it with the Stepwise that made it, or a newer one`,
      );
    const counts = COPY_TABLES.map(({ name }) => ({
      table: name,
      rows: (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n,
    }));
    return { schemaVersion: applied[applied.length - 1]!, counts };
  } finally {
    db.close();
  }
}

/** Forces a file's bytes to disk (a rename after it must not name a file whose data is still in the page cache). */
export function syncFile(file: string): void {
  const fd = openSync(file, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
