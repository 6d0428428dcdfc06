import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import type { RecordRead } from "../rows.js";
import { StoreOpenError } from "../store.js";
import { checkSchemaVersion, migrationFiles } from "../migrations.js";

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/** Any advisory lock key of our own: migrations take it so two processes starting together apply each migration once. */
export const MIGRATION_LOCK = 7_315_020_901;

// BIGINT (int8) and count(*) come as strings by default, because they may exceed 2^53. Every int8
// here is an ID, a step, a count or epoch milliseconds, all below 2^53 (steps are checked at the
// edge), so they are read as numbers; numeric (sum) likewise.
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** A pool or a client inside a transaction: what a store function runs its statements on. */
export type Sql = pg.Pool | pg.PoolClient;

/**
 * The most SQL texts prepared by name. Code builds SQL from a fixed set of texts (the same ~150 as
 * the SQLite store), so the cap is never reached in normal use; it bounds the statements each
 * connection keeps should a bug ever build SQL from request data: texts past it run unnamed.
 */
export const PREPARED_TEXTS_CAP = 500;
const preparedNames = new Map<string, string>();

/** Statements are named by their text, so each connection parses and plans each text once. */
function named(text: string): string | undefined {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < PREPARED_TEXTS_CAP) {
    name = `s${createHash("sha1").update(text).digest("base64url")}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** The SQL texts prepared by name in this process (tests check that request data never shapes SQL). */
export function preparedTexts(): string[] {
  return [...preparedNames.keys()];
}

export async function rows<T>(sql: Sql, text: string, values: unknown[] = []): Promise<T[]> {
  return (await sql.query<T & pg.QueryResultRow>({ name: named(text), text, values })).rows;
}

export async function row<T>(sql: Sql, text: string, values: unknown[] = []): Promise<T | undefined> {
  return (await rows<T>(sql, text, values))[0];
}

/** The records `read` selects with `clauses` (its WHERE, ORDER BY, LIMIT, FOR UPDATE) and their values. */
export async function readAll<R, T>(sql: Sql, read: RecordRead<R, T>, clauses: string, values: unknown[] = []): Promise<T[]> {
  return (await rows<R>(sql, `${read.select} ${clauses}`, values)).map((found) => read.toRecord(found));
}

/** The first record of readAll, or undefined. */
export async function readOne<R, T>(sql: Sql, read: RecordRead<R, T>, clauses: string, values: unknown[] = []): Promise<T | undefined> {
  const found = await row<R>(sql, `${read.select} ${clauses}`, values);
  return found && read.toRecord(found);
}

/** Rows as arrays, for long results (building row objects costs more than the query). */
export async function arrays<T extends unknown[]>(sql: Sql, text: string, values: unknown[] = []): Promise<T[]> {
  return (await sql.query<T>({ name: named(text), text, values, rowMode: "array" })).rows;
}

/** Runs a statement; returns how many rows it changed. */
export async function run(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  return (await sql.query({ name: named(text), text, values })).rowCount ?? 0;
}

/** What a URL names, for messages: host and port, never the password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "localhost"}:${parsed.port || "5432"}`;
  } catch {
    return "an invalid URL";
  }
}

function oneLine(error: unknown): string {
  const message = error instanceof AggregateError ? error.errors.map((e: Error) => e.message).join("; ") : (error as Error).message;
  return (message || String(error)).replace(/\s+/g, " ");
}

/** Opens a pool, proves it answers, and applies pending migrations under the migration lock. */
export interface PoolOptions {
  maxConnections?: number;
  /** lock_timeout of every connection: a statement waiting longer for a lock (a row another transaction holds) fails with 55P03. */
  lockTimeoutMs?: number;
  /** statement_timeout of every connection: a statement running longer is cancelled (57014); 0 or absent: no bound. */
  statementTimeoutMs?: number;
}

/**
 * A pool whose connections carry the waits the server allows (docs/decisions.md, "Busy store, full
 * disk"): both errors map to 503 in src/store/unavailable.ts. A lock timeout of 0 means "do not
 * wait", so it becomes 1 ms (PostgreSQL reads 0 as "wait forever").
 */
export async function openPool(url: string, options: PoolOptions = {}): Promise<pg.Pool> {
  const { maxConnections = 10, lockTimeoutMs, statementTimeoutMs } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    types,
    connectionTimeoutMillis: 10_000,
    ...(lockTimeoutMs === undefined ? {} : { lock_timeout: Math.max(1, Math.trunc(lockTimeoutMs)) }),
    ...(statementTimeoutMs ? { statement_timeout: Math.trunc(statementTimeoutMs) } : {}),
  });
  // An idle client losing its connection (a database restart) must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw new StoreOpenError(`cannot connect to PostgreSQL at ${describeUrl(url)}: ${oneLine(error)}`);
  }
  try {
    await migrate(client);
  } catch (error) {
    client.release();
    await pool.end();
    throw error;
  }
  client.release();
  return pool;
}

/**
 * Applies each numbered migration not yet recorded, each in its own transaction, forward only,
 * holding a session advisory lock: a second process starting at the same time waits, then finds
 * them applied. A database migrated by a newer Stepwise is refused: this binary does not know its schema.
 * Migrating waits as long as it needs, whatever the pool's lock and statement timeouts (restored after).
 */
export async function migrate(client: pg.PoolClient): Promise<void> {
  await client.query("SET lock_timeout = 0; SET statement_timeout = 0");
  const reset = () => client.query("RESET lock_timeout; RESET statement_timeout");
  try {
    await migrateLocked(client);
  } catch (error) {
    await reset().catch(() => {}); // the migration's error is the one to report
    throw error;
  }
  await reset();
}

async function migrateLocked(client: pg.PoolClient): Promise<void> {
  await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
  try {
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
    // Migrations after 0001 were numbered 0002-0006 here before they took the SQLite store's numbers (0008-0012).
    await client.query(
      "UPDATE schema_migrations SET version = version + 6 WHERE version BETWEEN 2 AND 6 AND NOT EXISTS (SELECT 1 FROM schema_migrations WHERE version > 6)",
    );
    const applied = new Set((await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => r.version));
    const files = migrationFiles(MIGRATIONS_DIR);
    checkSchemaVersion(applied, files);
    for (const { version, file } of files) {
      if (applied.has(version)) continue;
      await client.query("BEGIN");
      try {
        await client.query(readFileSync(MIGRATIONS_DIR + file, "utf8"));
        await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)", [version, Date.now()]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
  }
}

/** PostgreSQL error codes a transaction is retried on: it was chosen as a deadlock victim. */
const RETRIED = new Set(["40P01", "40001"]);

/** Runs `work` in one READ COMMITTED transaction on one connection; the guards it needs are its own locks. */
export async function transaction<T>(pool: pg.Pool, work: (sql: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      if (attempt < 3 && RETRIED.has((error as { code?: string }).code ?? "")) continue;
      throw error;
    } finally {
      client.release();
    }
  }
}

/** Rows fetched per round trip when reading a page measured in bytes. */
const PAGE_SLICE = 64;

/**
 * The rows a page (src/domain/paging.ts) may take, fetched a slice at a time until the page is full
 * by count or bytes, so a page of large rows never loads `limit` of them at once.
 * `fetch(limit, skip)` reads rows from the page's first row on.
 */
export async function pageRows<T>(
  request: { limit: number; maxBytes: number },
  sizeOf: (row: T) => number,
  fetch: (limit: number, skip: number) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  let bytes = 0;
  for (;;) {
    const slice = await fetch(PAGE_SLICE, out.length);
    for (const found of slice) {
      out.push(found);
      bytes += sizeOf(found);
    }
    if (slice.length < PAGE_SLICE || out.length > request.limit || bytes > request.maxBytes) return out;
  }
}
