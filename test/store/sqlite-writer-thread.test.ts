import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { DomainError } from "../../src/domain/errors.js";
import { MAX_METRICS_PER_RUN } from "../../src/domain/log-names.js";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { MetricWriterThread } from "../../src/store/sqlite/metric-writer-thread.js";
import { storeUnavailability } from "../../src/store/unavailable.js";
import type { MetricSeries } from "../../src/store/store.js";
import { makeTempDir } from "../helpers/start-server.js";
import { ACTOR, runInput, T0 } from "./contract/backends.js";

/**
 * The SQLite store's metric writer thread (src/store/sqlite/metric-writer-thread.ts). The Store
 * contract runs through it too (test/store/contract.test.ts); here is what only a second thread
 * and a second connection can get wrong.
 */
describe("SQLite metric writer thread", () => {
  const series = (names: string[], from: number, points = 1): MetricSeries[] =>
    names.map((logName) => ({
      logName,
      steps: Array.from({ length: points }, (_, i) => from + i),
      values: Array.from({ length: points }, (_, i) => from + i / 2),
      times: Array.from({ length: points }, () => T0),
    }));

  it("gives the main thread's writes their turn while it commits: none waits for its lock", async () => {
    const dir = makeTempDir();
    // No busy timeout at all: a main-thread write that met the thread's lock would fail SQLITE_BUSY.
    const store = SqliteStore.open(dir, { busyTimeoutMs: 0, writerThreadMinPoints: 0 });
    try {
      const org = await store.createOrganization("turns", T0);
      const { run } = await store.createRun(org.id, runInput(), ACTOR);
      const names = Array.from({ length: 50 }, (_, i) => `m${i}`);
      let beside = 0;
      for (let round = 0; round < 5; round++) {
        // A group of 100,000 points keeps the thread committing for a while; the main thread writes meanwhile.
        let committed = false;
        const group = store.appendMetricPoints(org.id, run.id, series(names, round * 2000, 2000), T0).finally(() => (committed = true));
        while (!committed) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          await store.createRun(org.id, runInput({ name: `beside-${beside++}` }), ACTOR);
          await store.updateRunTags(org.id, run.id, [`round-${round}`], T0);
        }
        assert.equal(await group, 50 * 2000);
      }
      assert.ok(beside >= 5, `only ${beside} writes were made while the thread committed`);
      const summaries = await store.listMetricSummaries(org.id, run.id);
      assert.equal(summaries.length, 50);
      assert.ok(summaries.every((summary) => summary.count === 5 * 2000));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers a failed item with its own error, class and code included, and stores the rest of the group", async () => {
    const dir = makeTempDir();
    const store = SqliteStore.open(dir, { writerThreadMinPoints: 0 });
    try {
      const org = await store.createOrganization("errors", T0);
      const { run } = await store.createRun(org.id, runInput(), ACTOR);
      const tooMany = Array.from({ length: MAX_METRICS_PER_RUN + 1 }, (_, i) => `m${i}`);
      const [refused, stored] = await Promise.allSettled([
        store.appendMetricPoints(org.id, run.id, series(tooMany, 0), T0),
        store.appendMetricPoints(org.id, run.id, series(["loss"], 0, 3), T0),
      ]);
      assert.equal(refused.status, "rejected");
      assert.ok(refused.reason instanceof DomainError, String(refused.reason));
      assert.equal(refused.reason.code, "INVALID_INPUT");
      assert.match(refused.reason.message, /at most 20000 metrics/);
      assert.deepEqual(stored, { status: "fulfilled", value: 3 });
      assert.deepEqual(
        (await store.listMetricSummaries(org.id, run.id)).map((m) => [m.logName, m.count]),
        [["loss", 3]],
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails a group with the driver's code when another process holds the lock (a 503, as on the main thread)", async () => {
    const dir = makeTempDir();
    const store = SqliteStore.open(dir, { busyTimeoutMs: 0, writerThreadMinPoints: 0 });
    const other = new Database(join(dir, DATABASE_FILE));
    try {
      const org = await store.createOrganization("busy", T0);
      const { run } = await store.createRun(org.id, runInput(), ACTOR);
      other.exec("BEGIN IMMEDIATE");
      const failed = await store.appendMetricPoints(org.id, run.id, series(["loss"], 0), T0).catch((error: unknown) => error);
      other.exec("ROLLBACK");
      assert.equal(storeUnavailability(failed)?.cause, "busy", String(failed));
      assert.equal(await store.appendMetricPoints(org.id, run.id, series(["loss"], 0), T0), 1);
    } finally {
      other.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails the group in flight when the thread dies, and starts a new thread for the next", async () => {
    const dir = makeTempDir();
    const item = { orgId: "org", runId: 1, series: series(["loss"], 0), now: T0 };
    // A directory is no database: the thread fails as it opens it.
    const broken = new MetricWriterThread({ file: dir, busyTimeoutMs: 0 });
    await assert.rejects(broken.commit([item]), { code: "SQLITE_CANTOPEN" });
    // Sent at once, before the dead thread's second event ("exit", after "error") arrives: that
    // event must not fail this group, which the new thread answers with its own error.
    await assert.rejects(broken.commit([item]), { code: "SQLITE_CANTOPEN" });
    await broken.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
