import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { backupDatabase } from "./backup.js";

describe("backupDatabase", () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-backup-unit-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("copies a database another connection commits to between every step without restarting, as of the moment it began", async () => {
    const file = join(dir, "source.db");
    const writer = new Database(file);
    writer.pragma("journal_mode = WAL");
    writer.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, blob BLOB)");
    writer.transaction(() => {
      for (let i = 0; i < 4000; i++) writer.prepare("INSERT INTO t (blob) VALUES (randomblob(8000))").run();
    })();
    // A commit every millisecond from another connection, as a server under ingest makes them.
    const insert = writer.prepare("INSERT INTO t (blob) VALUES (randomblob(100))");
    const commits = setInterval(() => insert.run(), 1);
    const seen: number[] = [];
    try {
      await backupDatabase(file, join(dir, "copy.db"), ({ copiedPages, totalPages }) => {
        // The backup API starts over when the source changes under it: copied pages would fall back.
        if (copiedPages < (seen.at(-1) ?? 0)) throw new Error(`the backup restarted at page ${seen.at(-1)} of ${totalPages}`);
        seen.push(copiedPages);
      });
    } finally {
      clearInterval(commits);
    }
    const written = (writer.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
    writer.close();
    assert.ok(seen.length > 5, `copied in ${seen.length} steps`);
    assert.ok(written > 4000, "the other connection committed while the copy ran");
    const copy = new Database(join(dir, "copy.db"), { readonly: true });
    const copied = (copy.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;
    assert.equal(copy.pragma("journal_mode", { simple: true }), "delete");
    copy.close();
    assert.ok(copied >= 4000 && copied < written, `the copy holds the rows of its moment (${copied} of ${written} now)`);
  });
});
