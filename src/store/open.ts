import type { Config } from "../config.js";
import { PostgresStore } from "./postgres/index.js";
import { SqliteStore } from "./sqlite/index.js";
import type { Store } from "./store.js";

/**
 * The store the configuration names: PostgreSQL when --database-url is set, else SQLite in --data-dir.
 * The server passes the waits it allows (`busyTimeoutMs` for SQLite's lock; `lockTimeoutMs` and
 * `statementTimeoutMs` for PostgreSQL's statements); without them the store waits as long as the
 * CLI should (docs/decisions.md, "Busy store, full disk").
 */
export async function openConfiguredStore(
  config: Pick<Config, "dataDir" | "databaseUrl">,
  options: { busyTimeoutMs?: number; lockTimeoutMs?: number; statementTimeoutMs?: number } = {},
): Promise<Store> {
  if (config.databaseUrl !== "") {
    return PostgresStore.open(config.databaseUrl, { lockTimeoutMs: options.lockTimeoutMs, statementTimeoutMs: options.statementTimeoutMs });
  }
  return SqliteStore.open(config.dataDir, { busyTimeoutMs: options.busyTimeoutMs });
}
