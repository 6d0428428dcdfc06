import assert from "node:assert/strict";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { makeTempDir } from "../helpers/start-server.js";
import { ACTOR, runInput, T0 } from "./contract/backends.js";

/**
 * The embedded store's group commit (src/store/group-commit.ts): metric writes of requests that
 * arrive together share one transaction. Seen from outside as the WAL: every commit appends the
 * pages it changed, so eight commits write far more of it than one commit of the same changes.
 */
describe("SQLite group commit of metric writes", () => {
  it("writes concurrent appends to eight runs in one commit, sequential ones in eight", async () => {
    const dir = makeTempDir();
    const store = SqliteStore.open(dir);
    const other = new Database(join(dir, DATABASE_FILE));
    try {
      const org = await store.createOrganization("group", T0);
      const runs = [];
      for (let i = 0; i < 8; i++) runs.push((await store.createRun(org.id, runInput({ name: `r${i}` }), ACTOR)).run.id);
      const batch = (from: number) => [
        { logName: "loss", steps: [from, from + 1], values: [1, 2], times: [T0, T0] },
        { logName: "acc", steps: [from, from + 1], values: [1, 2], times: [T0, T0] },
      ];
      const walBytes = () => statSync(join(dir, `${DATABASE_FILE}-wal`)).size;
      // Metrics, log names and first chunks exist before the measured writes, which then change alike.
      await Promise.all(runs.map((runId) => store.appendMetricPoints(org.id, runId, batch(0), T0)));

      other.pragma("wal_checkpoint(TRUNCATE)");
      for (const runId of runs) await store.appendMetricPoints(org.id, runId, batch(10), T0);
      const oneByOne = walBytes();

      other.pragma("wal_checkpoint(TRUNCATE)");
      assert.equal(walBytes(), 0);
      const accepted = await Promise.all(runs.map((runId) => store.appendMetricPoints(org.id, runId, batch(20), T0)));
      const together = walBytes();

      assert.deepEqual(accepted, Array(8).fill(4));
      assert.ok(together * 3 < oneByOne, `WAL bytes: ${together} together, ${oneByOne} one by one`);
      for (const runId of runs)
        assert.deepEqual(
          (await store.listMetricSummaries(org.id, runId)).map((m) => [m.logName, m.count]),
          [
            ["acc", 6],
            ["loss", 6],
          ],
        );
    } finally {
      other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
