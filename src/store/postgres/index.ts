import type pg from "pg";
import type { Store } from "../store.js";
import { composeStore } from "../compose.js";
import { runAsync } from "../workflow.js";
import { openPool, type PoolOptions, preparedTexts, row, type Sql, transaction } from "./db.js";
import * as functions from "./functions.js";
import { postgresOperations } from "./operations.js";

/** The PostgreSQL store, with the SQL texts it has prepared by name (tests check that request data never shapes SQL). */
export type PostgresStore = Store & { preparedStatements(): string[] };

/**
 * The PostgreSQL store: a pool of connections to one database, which several Stepwise processes
 * may share. Each write transaction is READ COMMITTED, its read-then-write steps guarded by
 * constraints, upserts and row locks (docs/architecture.md, "PostgreSQL: many writers").
 * Connects, applies pending migrations under an advisory lock, and refuses a newer schema.
 * `lockTimeoutMs` and `statementTimeoutMs` bound every statement of the pool's connections (the
 * server's request paths; see openPool); left out, statements wait as long as they need (the CLI).
 */
export async function openPostgresStore(url: string, options: PoolOptions = {}): Promise<PostgresStore> {
  const pool: pg.Pool = await openPool(url, options);
  const store = composeStore<Sql>({
    connection: {
      async ping() {
        await row(pool, "SELECT 1 FROM schema_migrations LIMIT 1");
      },
      async reclaimSpace() {
        const size = (await row<{ n: number }>(pool, "SELECT pg_database_size(current_database()) AS n"))!.n;
        return { bytesBefore: size, bytesAfter: size, freeBytesLeft: 0 };
      },
      /** Closing twice is harmless, as with the SQLite store (shutdown and tests may both close). */
      async close() {
        if (!pool.ended) await pool.end();
      },
      poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    },
    functions,
    statement: async (work) => work(pool),
    transaction: (work) => transaction(pool, async (sql) => work(sql)),
    perform: (workflow, sql) => runAsync(workflow, postgresOperations(sql)),
  });
  return Object.assign(store, { preparedStatements: preparedTexts });
}

/** `PostgresStore.open(url)`: the name callers know this store by. */
export const PostgresStore = { open: openPostgresStore };
