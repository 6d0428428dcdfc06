import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { makeTempDir } from "../helpers/start-server.js";

const MIGRATIONS = fileURLToPath(new URL("../../src/store/sqlite/migrations/", import.meta.url));

describe("migration 0006: console lines keyed by (run, logType, lineNumber, time)", () => {
  const dir = makeTempDir("stepwise-migration-");
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every line stored under the old key, then keeps lines of two processes beside them", async () => {
    // A database as the migrations before 0006 left it, with lines written under the old key.
    const db = new Database(join(dir, DATABASE_FILE));
    db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const file of readdirSync(MIGRATIONS).sort()) {
      const version = Number(file.slice(0, 4));
      if (version >= 6) continue;
      db.exec(readFileSync(join(MIGRATIONS, file), "utf8"));
      db.prepare("INSERT INTO schema_migrations VALUES (?, 0)").run(version);
    }
    db.exec(`INSERT INTO organizations VALUES ('org', 'org', 0);
      INSERT INTO projects (id, org_id, name, run_prefix, created_at, updated_at) VALUES (1, 'org', 'p', 'P', 0, 0);
      INSERT INTO runs (id, org_id, project_id, name, number, display_id, status, created_at, updated_at, heartbeat_at)
        VALUES (1, 'org', 1, 'r', 1, 'P-1', 'RUNNING', 0, 0, 0);`);
    const old = db.prepare("INSERT INTO console_logs (run_id, log_type, line_number, time, message, step) VALUES (1, ?, ?, ?, ?, ?)");
    old.run("INFO", 2, 1000, "second", null);
    old.run("INFO", 1, 3000, "first, written last", 4);
    old.run("ERROR", 1, 2000, "an error", null);
    db.close();

    const store = SqliteStore.open(dir);
    try {
      const page = { limit: 100, offset: 0, maxBytes: 1 << 20 };
      const read = await store.listConsoleLines("org", 1, page);
      assert.equal(read.total, 3);
      assert.deepEqual(
        read.items.map((l) => [l.time, l.lineNumber, l.logType, l.message, l.step]),
        [
          [1000, 2, "INFO", "second", null],
          [2000, 1, "ERROR", "an error", null],
          [3000, 1, "INFO", "first, written last", 4],
        ],
      );
      await store.appendConsoleLines("org", 1, [{ time: 500, lineNumber: 1, logType: "INFO", message: "another process", step: null }], 0);
      assert.equal((await store.listConsoleLines("org", 1, page)).total, 4);
    } finally {
      await store.close();
    }
  });
});
