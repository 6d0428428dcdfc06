import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import type { Store } from "../../src/store/store.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { makeTempDir } from "../helpers/start-server.js";

/**
 * The migration that adds each project's metric names (project_metric_names: SQLite 0010,
 * PostgreSQL 0004), which the project-wide name list reads: a database written before it must list
 * the names its runs already have, and only its own project's.
 */
const actor = { userId: null, apiKeyId: null };

/** Runs with metrics in two projects; returns what the name lists must say. */
async function seed(store: Store) {
  const orgId = (await store.createOrganization("o", 1)).id;
  const runIn = async (projectName: string, names: string[]) => {
    const { run } = await store.createRun(orgId, { projectName, name: "r", tags: [], now: 1 }, actor);
    await store.appendMetricPoints(
      orgId,
      run.id,
      names.map((logName) => ({ logName, steps: [0], values: [1], times: [1] })),
      1,
    );
    return run.projectId;
  };
  const mine = await runIn("mine", ["train/loss", "acc"]);
  await runIn("mine", ["acc", "val/loss"]);
  const theirs = await runIn("theirs", ["other"]);
  return async (reopened: Store) => {
    assert.deepEqual(await reopened.listMetricNames(orgId, mine, { limit: 100 }), ["acc", "train/loss", "val/loss"]);
    assert.deepEqual(await reopened.listMetricNames(orgId, theirs, { limit: 100 }), ["other"]);
  };
}

describe("migration to each project's metric names", () => {
  it("SQLite (0010): lists the names a project's runs had before the migration", async () => {
    const dir = makeTempDir();
    try {
      const store = SqliteStore.open(dir);
      const check = await seed(store);
      await store.close();
      const db = new Database(join(dir, DATABASE_FILE));
      db.exec("DELETE FROM schema_migrations WHERE version = 10; DROP TABLE project_metric_names;");
      db.close();
      const reopened = SqliteStore.open(dir);
      await check(reopened).finally(() => reopened.close());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const database = createTestDatabase();
  after(async () => (await database).drop());
  it("PostgreSQL (0010): lists the names a project's runs had before the migration", async () => {
    const { url } = await database;
    const store = await PostgresStore.open(url);
    const check = await seed(store);
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("DELETE FROM schema_migrations WHERE version = 10; DROP TABLE project_metric_names");
    await client.end();
    const reopened = await PostgresStore.open(url);
    await check(reopened).finally(() => reopened.close());
  });
});
