import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { makeTempDir } from "../helpers/start-server.js";

/**
 * Migration 0005 replaces sums of values and squares with mean and standard deviation and adds the
 * chunks' non-finite steps, computed from the stored points. A database written before it must read
 * exactly like one written after it, even where the old sums had overflowed.
 */
describe("migration 0005: stable summaries from stored points", () => {
  const dir = makeTempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("rebuilds summaries and chunk aggregates of existing data without loss", async () => {
    const actor = { userId: null, apiKeyId: null };
    let store = SqliteStore.open(dir);
    const orgId = (await store.createOrganization("o", 1)).id;
    const { run } = await store.createRun(orgId, { projectName: "p", name: "r", tags: [], now: 1 }, actor);
    const steps = Array.from({ length: 3000 }, (_, i) => i);
    // Client times differ from steps, so a sample shows whether the stored extremes' times were rebuilt.
    const values = steps.map((i) => (i === 7 ? 1e155 : i === 2500 ? NaN : i === 2600 ? -Infinity : i === 40 ? Infinity : Math.sin(i)));
    for (let i = 0; i < steps.length; i += 700) {
      const batch = steps.slice(i, i + 700);
      await store.appendMetricPoints(
        orgId,
        run.id,
        [
          { logName: "loss", steps: batch, values: batch.map((s) => values[s]!), times: batch.map((s) => 1_700_000_000_000 + 3 * s) },
          { logName: "acc", steps: batch, values: batch.map((s) => s / 3000), times: batch },
        ],
        5,
      );
    }
    const read = async () => ({
      summaries: await store.listMetricSummaries(orgId, run.id),
      sample: await store.sampleMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER, 100),
      // Three buckets of 1,000 steps hold whole chunks, whose stored extremes (and their times) the sample uses.
      wide: await store.sampleMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER, 12),
      points: await store.readMetricPoints(orgId, run.id, "loss", 0, Number.MAX_SAFE_INTEGER),
    });
    const before = await read();
    assert.equal(before.summaries.find((s) => s.logName === "loss")!.stddev > 1e152, true);
    await store.close();

    // Put the database back into its pre-0005 shape, with the overflowed sums the old code wrote.
    const db = new Database(join(dir, DATABASE_FILE));
    db.exec(`
      DELETE FROM schema_migrations WHERE version = 5;
      ALTER TABLE metrics ADD COLUMN sum REAL NOT NULL DEFAULT 0;
      ALTER TABLE metrics ADD COLUMN sum_sq REAL NOT NULL DEFAULT 0;
      UPDATE metrics SET sum = 1e155, sum_sq = 9e999;
      ALTER TABLE metrics DROP COLUMN mean;
      ALTER TABLE metrics DROP COLUMN stddev;
      ALTER TABLE metric_chunks ADD COLUMN sum REAL NOT NULL DEFAULT 0;
      ALTER TABLE metric_chunks ADD COLUMN sum_sq REAL NOT NULL DEFAULT 0;
      ALTER TABLE metric_chunks DROP COLUMN mean;
      ALTER TABLE metric_chunks DROP COLUMN stddev;
      ALTER TABLE metric_chunks DROP COLUMN min_time;
      ALTER TABLE metric_chunks DROP COLUMN max_time;
      ALTER TABLE metric_chunks DROP COLUMN nan_step;
      ALTER TABLE metric_chunks DROP COLUMN inf_step;
      ALTER TABLE metric_chunks DROP COLUMN neg_inf_step;
    `);
    db.close();

    store = SqliteStore.open(dir);
    try {
      const migrated = await read();
      assert.deepEqual(migrated.points, before.points);
      assert.deepEqual(migrated.sample, before.sample);
      assert.deepEqual(migrated.wide, before.wide);
      // Recomputed from chunks rather than batch by batch: equal up to rounding in the last digits.
      for (const [i, summary] of migrated.summaries.entries()) {
        const { mean, stddev, ...rest } = summary;
        const { mean: meanBefore, stddev: stddevBefore, ...restBefore } = before.summaries[i]!;
        assert.deepEqual(rest, restBefore);
        assert.ok(Math.abs(mean - meanBefore) <= 1e-13 * Math.abs(meanBefore), `${summary.logName} mean`);
        assert.ok(Math.abs(stddev - stddevBefore) <= 1e-13 * stddevBefore, `${summary.logName} stddev`);
      }
    } finally {
      await store.close();
    }
  });
});
