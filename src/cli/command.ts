import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, loadConfig, OPTIONS } from "../config.js";
import { openConfiguredStore } from "../store/open.js";
import { PostgresStore } from "../store/postgres/index.js";
import { DATABASE_FILE, SqliteStore } from "../store/sqlite/index.js";
import type { Store } from "../store/store.js";

export interface Command {
  summary: string;
  usage: string;
  /** Option names (without --) that take a value, and those that are plain switches. */
  valueOptions: string[];
  switches?: string[];
  /** Options that take a value and may be given several times: their values, in order, come in `lists`. */
  repeatable?: string[];
  run(args: {
    positionals: string[];
    values: Record<string, string | boolean | undefined>;
    lists?: Record<string, string[]>;
  }): Promise<number | void>;
}

/** Wrong use of a command (unknown action, missing or extra argument): printed with a pointer to --help, exit 2. */
export class UsageError extends Error {}

export const DATA_DIR_HELP = `  --data-dir DIR   data directory (default ./data, env STEPWISE_DATA_DIR)
  --database-url U PostgreSQL database instead of the data directory's SQLite (env STEPWISE_DATABASE_URL)`;

/** The options every command that opens the store takes. */
export const STORE_OPTIONS = ["data-dir", "database-url"];

/** Turns parsed `--flag value` options back into the `--flag` → value map that loadConfig reads. */
export function configFlags(values: Record<string, string | boolean | undefined>): Record<string, string> {
  return Object.fromEntries(
    OPTIONS.flatMap((option) => {
      const value = values[option.flag.slice(2)];
      return typeof value === "string" ? [[option.flag, value]] : [];
    }),
  );
}

/**
 * Opens the store the options name: the PostgreSQL database of --database-url, else the data
 * directory's. Only `orgs create` may start a new data directory (setting up before the first
 * server start); elsewhere a mistyped --data-dir is an error, not a fresh empty database.
 */
export function openStore(values: Record<string, string | boolean | undefined>, options: { create: boolean }): Promise<Store> {
  const config = loadConfig(configFlags(values));
  if (config.databaseUrl === "" && !options.create && !existsSync(join(config.dataDir, DATABASE_FILE))) {
    throw new ConfigError(`no Stepwise data directory at ${config.dataDir} (start the server once, or pass --data-dir)`);
  }
  return openConfiguredStore(config);
}

/** The positionals an action takes, exactly: a missing or extra argument is a UsageError. */
export function expectArguments(positionals: string[], names: string[]): string[] {
  const [action, ...rest] = positionals;
  if (rest.length < names.length)
    throw new UsageError(
      `${action}: missing ${names
        .slice(rest.length)
        .map((n) => `<${n}>`)
        .join(" ")}`,
    );
  if (rest.length > names.length) throw new UsageError(`${action}: unexpected argument '${rest[names.length]}'`);
  return rest;
}

/** `postgres://…`, `postgresql://…` or any `scheme://…`: a database URL, not a data directory. */
export function isDatabaseUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/**
 * Opens the store a location names: a database URL, or else a data directory of the embedded
 * store. A data directory must hold a store already unless `create` is set.
 */
export async function openStoreAt(location: string, options: { create: boolean }): Promise<Store> {
  if (isDatabaseUrl(location)) {
    const scheme = location.slice(0, location.indexOf(":")).toLowerCase();
    if (scheme === "postgres" || scheme === "postgresql") return PostgresStore.open(location);
    throw new ConfigError(`unsupported database URL scheme '${scheme}': use postgres://user:password@host:port/database`);
  }
  const dataDir = resolve(location);
  if (!options.create && !existsSync(join(dataDir, DATABASE_FILE))) throw new ConfigError(`no Stepwise data directory at ${dataDir}`);
  return SqliteStore.open(dataDir);
}
