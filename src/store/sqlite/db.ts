import Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Db = Database.Database;

const MIGRATIONS_DIR = fileURLToPath(new URL("./migrations/", import.meta.url));

/**
 * Opens the database file with the pragmas every connection needs and applies pending migrations.
 * WAL lets readers run beside the single writer; synchronous=FULL makes every commit durable
 * before it is acknowledged (a 200 means on disk); busy_timeout lets the CLI write while a server runs.
 */
export function openDatabase(file: string): Db {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);
  return db;
}

/** Applies each numbered migration not yet recorded, each in its own transaction. Forward only. */
export function migrate(db: Db): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((row) => row.version),
  );
  const files = readdirSync(MIGRATIONS_DIR).filter((file) => /^\d{4}_.*\.sql$/.test(file)).sort();
  for (const file of files) {
    const version = Number(file.slice(0, 4));
    if (applied.has(version)) continue;
    const sql = readFileSync(MIGRATIONS_DIR + file, "utf8");
    db.transaction(() => {
      db.exec(sql);
      db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(version, Date.now());
    }).immediate();
  }
}

/** Prepared statements cached per connection: preparing costs more than running a small query. */
export class Statements {
  private readonly cache = new Map<string, Database.Statement>();
  constructor(readonly db: Db) {}

  get(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}

export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJsonText<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}
