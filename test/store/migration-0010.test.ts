import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { makeTempDir } from "../helpers/start-server.js";

/**
 * Migration 0010 adds each project's metric names (project_metric_names), which the project-wide
 * name list reads: a database written before it must list the names its runs already have.
 */
describe("migration 0010: each project's metric names from the stored metrics", () => {
  const dir = makeTempDir();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lists the names a project's runs had before the migration, and only that project's", async () => {
    const actor = { userId: null, apiKeyId: null };
    let store = SqliteStore.open(dir);
    const orgId = (await store.createOrganization("o", 1)).id;
    const point = (logName: string) => ({ logName, steps: [0], values: [1], times: [1] });
    const runIn = async (projectName: string, names: string[]) => {
      const { run } = await store.createRun(orgId, { projectName, name: "r", tags: [], now: 1 }, actor);
      await store.appendMetricPoints(orgId, run.id, names.map(point), 1);
      return run.projectId;
    };
    const mine = await runIn("mine", ["train/loss", "acc"]);
    await runIn("mine", ["acc", "val/loss"]);
    const theirs = await runIn("theirs", ["other"]);
    await store.close();

    // Back to the shape before 0010: no name table.
    const db = new Database(join(dir, DATABASE_FILE));
    db.exec("DELETE FROM schema_migrations WHERE version = 10; DROP TABLE project_metric_names;");
    db.close();

    store = SqliteStore.open(dir);
    try {
      assert.deepEqual(await store.listMetricNames(orgId, mine, { limit: 100 }), ["acc", "train/loss", "val/loss"]);
      assert.deepEqual(await store.listMetricNames(orgId, theirs, { limit: 100 }), ["other"]);
    } finally {
      await store.close();
    }
  });
});
