import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { join } from "node:path";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { waitingOutLocks } from "../../src/store/unavailable.js";
import { makeTempDir } from "../helpers/start-server.js";

/** Two connections to one SQLite file, as two processes have: one holds the write lock for a while. */
describe("start-up writes wait out another process's lock", () => {
  it("a write that finds the store locked is tried again until the lock is gone; without waiting it fails busy", async () => {
    const dir = makeTempDir();
    const holder = SqliteStore.open(dir);
    const waiter = SqliteStore.open(dir, { busyTimeoutMs: 0 });
    // A second connection to the file, as another process has.
    const db = new Database(join(dir, DATABASE_FILE));
    try {
      db.exec("BEGIN IMMEDIATE");
      await assert.rejects(waiter.getOrCreateSigningSecret(randomBytes(32), 0), { code: "SQLITE_BUSY" });
      await assert.rejects(
        waitingOutLocks(waiter, 100).getOrCreateSigningSecret(randomBytes(32), 0),
        { code: "SQLITE_BUSY" },
        "gives up after its wait",
      );

      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          db.exec("COMMIT");
          resolve();
        }, 300),
      );
      const candidate = randomBytes(32);
      const started = Date.now();
      const secret = await waitingOutLocks(waiter, 5000).getOrCreateSigningSecret(candidate, 0);
      await released;
      assert.ok(Date.now() - started >= 250, "it waited for the lock");
      assert.deepEqual(Buffer.from(secret), candidate);
      await assert.rejects(waitingOutLocks(waiter, 5000).exportRows("no-such-table", null, 1), /no copyable table/, "other errors at once");
    } finally {
      db.close();
      await waiter.close();
      await holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
