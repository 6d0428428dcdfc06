import { chmodSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError, loadConfig } from "../../config.js";
import { SIGNING_SECRET_FILE } from "../../files/signing-secret.js";
import { backupDatabase, type BackupProgress, syncFile, verifyBackup, type VerifiedBackup } from "../../store/sqlite/backup.js";
import { DATABASE_FILE } from "../../store/sqlite/index.js";
import { configFlags, UsageError, type Command } from "../command.js";

/** A progress line at most this often: a 5 GB copy prints a few dozen lines, not thousands. */
const PROGRESS_EVERY_MS = 1000;

export const backupCommand: Command = {
  summary: "write a consistent, verified copy of the embedded store while servers keep running",
  usage: `Usage: stepwise backup --to <file> [--data-dir DIR] [--force]

Copies the data directory's SQLite database to one file, as one consistent snapshot, while servers
keep reading and writing it (every point acknowledged before the backup started is in it). Prints
progress on stderr, then verifies the copy (SQLite's integrity check, the schema version, the row
count of every table) before giving it its name: a file at --to is always a whole, checked backup.
The copy is a single file; restore it with 'stepwise restore'.

File bytes (the data directory's files/ folder, or the S3 bucket) are not in it: back them up
apart (README, "Backup and restore"). A PostgreSQL store is backed up with pg_dump.

Options:
  --to FILE         the backup file to write (its folder must exist)
  --data-dir DIR    data directory of the store (default ./data, env STEPWISE_DATA_DIR)
  --force           replace a file already at --to`,
  valueOptions: ["to", "data-dir", "database-url"],
  switches: ["force"],
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (typeof values.to !== "string" || values.to === "") throw new UsageError("--to is required");
    const config = loadConfig(configFlags(values));
    if (config.databaseUrl !== "")
      throw new ConfigError('the store is a PostgreSQL database: back it up with pg_dump (README, "Backup and restore")');
    const source = join(config.dataDir, DATABASE_FILE);
    if (!existsSync(source)) throw new ConfigError(`no Stepwise data directory at ${config.dataDir} (pass --data-dir)`);
    const target = resolve(values.to);
    if (existsSync(target) && values.force !== true)
      throw new ConfigError(`${target} exists: choose another name, or pass --force to replace it`);
    if (!existsSync(dirname(target))) throw new ConfigError(`the folder of ${target} does not exist`);

    // Written under a name of its own beside the target, renamed only once verified.
    const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
    const started = performance.now();
    const removePartial = () => {
      rmSync(partial, { force: true });
      rmSync(`${partial}-journal`, { force: true });
    };
    // Interrupted (Ctrl-C, a supervisor's stop), it leaves no partial file behind.
    const interrupted = (signal: NodeJS.Signals) => {
      removePartial();
      process.exit(signal === "SIGINT" ? 130 : 143);
    };
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
    let verified: VerifiedBackup;
    try {
      console.error(`Backing up ${source}`);
      await backupDatabase(source, partial, progressPrinter());
      const copiedAt = performance.now();
      console.error(
        `Copied in ${((copiedAt - started) / 1000).toFixed(1)} s; verifying the copy (integrity check, schema version, row counts)`,
      );
      verified = verifyBackup(partial);
      console.error(`Verified in ${((performance.now() - copiedAt) / 1000).toFixed(1)} s`);
      // Owner-only, like the store itself: a backup holds key hashes and every organization's data.
      chmodSync(partial, 0o600);
      renameSync(partial, target);
      syncFile(dirname(target));
    } finally {
      removePartial();
      process.off("SIGINT", interrupted);
      process.off("SIGTERM", interrupted);
    }
    const seconds = (performance.now() - started) / 1000;
    const bytes = statSync(target).size;
    printCounts(verified);
    console.log(
      `\nBackup written to ${target}: ${megabytes(bytes)} in ${seconds.toFixed(1)} s (${megabytes(bytes / seconds)}/s), verified.`,
    );
    if (existsSync(join(config.dataDir, SIGNING_SECRET_FILE)))
      console.log(
        `The data directory still has ${SIGNING_SECRET_FILE} (no server has started on it since the secret moved into the store): keep a copy of it with the backup.`,
      );
    if (config.blobUrl === "")
      console.log(`File bytes are not in the backup: copy ${join(config.dataDir, "files")} too (README, "Backup and restore").`);
    return 0;
  },
};

/** Prints "n% (x MB of y MB)" on stderr, at most once a second and once at the end. */
function progressPrinter(): (progress: BackupProgress) => void {
  let printedAt = -Infinity;
  return ({ copiedPages, totalPages }) => {
    const now = performance.now();
    if (now - printedAt < PROGRESS_EVERY_MS && copiedPages < totalPages) return;
    printedAt = now;
    const percent = totalPages === 0 ? 100 : Math.floor((copiedPages * 100) / totalPages);
    console.error(`  ${String(percent).padStart(3)}%  ${copiedPages} of ${totalPages} pages`);
  };
}

export function printCounts(verified: VerifiedBackup): void {
  console.log(`Schema version ${verified.schemaVersion}; rows per table:`);
  for (const { table, rows } of verified.counts) console.log(`  ${table.padEnd(24)}${String(rows).padStart(14)}`);
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
