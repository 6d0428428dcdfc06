import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { Statements } from "./statements.js";

describe("Statements", () => {
  it("prepares each SQL text once and reuses it", () => {
    const statements = new Statements(new Database(":memory:"), 3);
    const first = statements.get("SELECT 1");
    assert.equal(statements.get("SELECT 1"), first);
    assert.deepEqual(statements.cachedTexts(), ["SELECT 1"]);
  });

  it("holds at most its cap, dropping the least recently used statement", () => {
    const statements = new Statements(new Database(":memory:"), 3);
    for (const n of [1, 2, 3]) statements.get(`SELECT ${n}`);
    statements.get("SELECT 1"); // now the most recently used
    statements.get("SELECT 4");
    assert.deepEqual(statements.cachedTexts(), ["SELECT 3", "SELECT 1", "SELECT 4"]);
    for (let n = 5; n < 1000; n++) statements.get(`SELECT ${n}`);
    assert.equal(statements.cachedTexts().length, 3);
    assert.deepEqual(statements.get("SELECT 1 AS n").get(), { n: 1 }, "an evicted text is prepared again");
  });

  it("refuses a write through its read-only view, which shares its statements", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (n INTEGER)");
    const statements = new Statements(db);
    const reads = statements.readOnly();
    assert.equal(reads.get("SELECT count(*) AS n FROM t"), statements.get("SELECT count(*) AS n FROM t"));
    assert.throws(() => reads.get("INSERT INTO t (n) VALUES (1)"), /read-only store method prepared a write/);
    assert.throws(() => reads.get("UPDATE t SET n = 2"), /read-only store method prepared a write/);
    statements.get("INSERT INTO t (n) VALUES (1)").run();
    assert.deepEqual(reads.get("SELECT count(*) AS n FROM t").get(), { n: 1 });
  });
});
