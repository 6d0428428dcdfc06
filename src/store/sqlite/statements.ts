import type Database from "better-sqlite3";
import type { RecordRead } from "../rows.js";

export type Db = Database.Database;

/**
 * The most statements one connection keeps prepared. Code builds SQL from a fixed set of texts
 * (about 150 today, counting each combination of the run list's optional clauses), so the cap is
 * never reached in normal use; it bounds memory anyway should a bug ever build SQL from request
 * data (each prepared statement holds memory in SQLite).
 */
export const STATEMENT_CACHE_CAP = 500;

/**
 * Prepared statements cached per connection: preparing costs more than running a small query.
 * Least recently used first out once the cache holds `cap` statements.
 */
export class Statements {
  constructor(
    readonly db: Db,
    private readonly cap = STATEMENT_CACHE_CAP,
    private readonly cache = new Map<string, Database.Statement>(),
  ) {}

  /**
   * The same statements (one cache) for work that must only read: the store's "read" methods
   * (compose.ts), which run without a write turn. A statement that would write throws here, so a
   * write classified as a read fails every test that reaches it instead of, in production, waiting
   * for the metric writer thread's lock on the event loop.
   */
  readOnly(): Statements {
    return new ReadOnlyStatements(this.db, this.cap, this.cache);
  }

  get(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (statement) {
      // A Map iterates in insertion order: re-inserting makes this the most recently used.
      this.cache.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.cache.size >= this.cap) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(sql, statement);
    return statement;
  }

  /** The SQL texts prepared now, least recently used first. */
  cachedTexts(): string[] {
    return [...this.cache.keys()];
  }
}

class ReadOnlyStatements extends Statements {
  override get(sql: string): Database.Statement {
    const statement = super.get(sql);
    if (!statement.readonly)
      throw new Error(
        `a read-only store method prepared a write (TRANSACTIONS in compose.ts says "statement" for its method: "write" or "transaction"?): ${sql}`,
      );
    return statement;
  }

  override readOnly(): Statements {
    return this;
  }
}

/** The records `read` selects with `clauses` (its WHERE, ORDER BY, LIMIT) and their parameters. */
export function readAll<R, T>(s: Statements, read: RecordRead<R, T>, clauses: string, ...params: unknown[]): T[] {
  return (s.get(`${read.select} ${clauses}`).all(...params) as R[]).map((row) => read.toRecord(row));
}

/** The first record of readAll, or undefined. */
export function readOne<R, T>(s: Statements, read: RecordRead<R, T>, clauses: string, ...params: unknown[]): T | undefined {
  const row = s.get(`${read.select} ${clauses}`).get(...params) as R | undefined;
  return row && read.toRecord(row);
}
