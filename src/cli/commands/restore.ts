import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, loadConfig } from "../../config.js";
import { BackupVerificationError, syncFile, verifyBackup } from "../../store/sqlite/backup.js";
import { DATABASE_FILE } from "../../store/sqlite/index.js";
import { configFlags, UsageError, type Command } from "../command.js";
import { printCounts } from "./backup.js";

export const restoreCommand: Command = {
  summary: "place a backup file as the store of an empty data directory, after verifying it",
  usage: `Usage: stepwise restore --from <file> --data-dir <dir>

Verifies the backup file (SQLite's integrity check, a schema version this Stepwise knows, the row
count of every table), then places it as the store of the data directory, which is created if
missing and must not hold a store already. 'stepwise serve --data-dir <dir>' then starts on it.
File bytes are restored apart: copy the backed-up files/ folder into <dir> (README, "Backup and
restore").

Options:
  --from FILE       a file written by 'stepwise backup'
  --data-dir DIR    the data directory to restore into (default ./data, env STEPWISE_DATA_DIR)`,
  valueOptions: ["from", "data-dir"],
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (typeof values.from !== "string" || values.from === "") throw new UsageError("--from is required");
    const from = resolve(values.from);
    const { dataDir } = loadConfig(configFlags(values));
    const target = join(dataDir, DATABASE_FILE);
    // The database's WAL and shared-memory files count: a store's last commits may be in them alone.
    const present = [target, `${target}-wal`, `${target}-shm`].filter((file) => existsSync(file));
    if (present.length > 0)
      throw new ConfigError(`${dataDir} holds a store already (${present.join(", ")}): restore into an empty data directory`);
    if (!existsSync(from)) throw new ConfigError(`no backup file at ${from}`);

    console.error(`Verifying ${from}`);
    let verified: ReturnType<typeof verifyBackup>;
    try {
      verified = verifyBackup(from);
    } catch (error) {
      if (error instanceof BackupVerificationError) throw new ConfigError(`refusing to restore: ${error.message}`);
      throw error;
    }
    // Owner-only, as the server makes them: the database holds key hashes and every organization's data.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const partial = join(dataDir, `.${DATABASE_FILE}.restoring-${process.pid}`);
    try {
      copyFileSync(from, partial);
      chmodSync(partial, 0o600);
      syncFile(partial);
      renameSync(partial, target);
      syncFile(dataDir);
    } finally {
      rmSync(partial, { force: true });
    }
    printCounts(verified);
    console.log(`\nRestored ${from} into ${dataDir}. Start the server with: stepwise serve --data-dir ${dataDir}`);
    console.log(`File bytes are not in the backup: copy the backed-up files/ folder to ${join(dataDir, "files")}.`);
    return 0;
  },
};
