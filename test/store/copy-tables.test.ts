import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { COPY_TABLES } from "../../src/store/copy-tables.js";
import Database from "better-sqlite3";
import { join } from "node:path";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { makeTempDir } from "../helpers/start-server.js";

/**
 * Tables that are not data: the migration log, SQLite's own, leases of running processes, browser
 * sessions, sign-ins in flight, invitation links and failed sign-ins (people sign in again, or are
 * invited again, after a copy).
 */
const NOT_COPIED = new Set([
  "schema_migrations",
  "sqlite_sequence",
  "leases",
  "sessions",
  "oidc_logins",
  "invitations",
  "sign_in_failures",
]);

describe("the copy table list", () => {
  it("names every table and column of the SQLite schema, so `copy` loses nothing a migration adds", async () => {
    const dir = makeTempDir();
    const store = SqliteStore.open(dir);
    // A second connection to the file, as another process has.
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
        .map((row) => row.name)
        .filter((name) => !NOT_COPIED.has(name));
      assert.deepEqual(COPY_TABLES.map((table) => table.name).sort(), tables);
      for (const table of COPY_TABLES) {
        const columns = db.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY name`).all(table.name) as {
          name: string;
          pk: number;
        }[];
        assert.deepEqual(
          table.columns.map(([name]) => name).sort(),
          columns.map((column) => column.name),
          table.name,
        );
        const key = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
        assert.deepEqual(
          table.key,
          key.map((column) => column.name),
          `${table.name}: the key is the primary key`,
        );
      }
    } finally {
      db.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
