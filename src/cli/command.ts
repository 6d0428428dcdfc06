import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, OPTIONS } from "../config.js";
import { DATABASE_FILE, SqliteStore } from "../store/sqlite/index.js";

export interface Command {
  summary: string;
  usage: string;
  /** Option names (without --) that take a value, and those that are plain switches. */
  valueOptions: string[];
  switches?: string[];
  run(args: { positionals: string[]; values: Record<string, string | boolean | undefined> }): Promise<number | void>;
}

/** Wrong use of a command (unknown action, missing or extra argument): printed with a pointer to --help, exit 2. */
export class UsageError extends Error {}

export const DATA_DIR_HELP = `  --data-dir DIR   data directory (default ./data, env STEPWISE_DATA_DIR)`;

/** Turns parsed `--flag value` options back into the `--flag` → value map that loadConfig reads. */
export function configFlags(values: Record<string, string | boolean | undefined>): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const option of OPTIONS) {
    const value = values[option.flag.slice(2)];
    if (typeof value === "string") flags[option.flag] = value;
  }
  return flags;
}

/**
 * Opens the store of the data directory the options name. Only `orgs create` may start a new one
 * (setting up before the first server start); elsewhere a mistyped --data-dir is an error, not a
 * fresh empty database.
 */
export function openStore(values: Record<string, string | boolean | undefined>, options: { create: boolean }): SqliteStore {
  const { dataDir } = loadConfig(configFlags(values));
  if (!options.create && !existsSync(join(dataDir, DATABASE_FILE))) {
    throw new ConfigError(`no Stepwise data directory at ${dataDir} (start the server once, or pass --data-dir)`);
  }
  return SqliteStore.open(dataDir);
}

/** The positionals an action takes, exactly: a missing or extra argument is a UsageError. */
export function expectArguments(positionals: string[], names: string[]): string[] {
  const [action, ...rest] = positionals;
  if (rest.length < names.length) throw new UsageError(`${action}: missing ${names.slice(rest.length).map((n) => `<${n}>`).join(" ")}`);
  if (rest.length > names.length) throw new UsageError(`${action}: unexpected argument '${rest[names.length]}'`);
  return rest;
}
