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
 * The migration that keeps an MLflow run's `user_id` as a field of the run (mlflow_user_id, 0014 on
 * both backends): before it, the user was only an `mlflow.user` tag, so a run written then takes its
 * user from that tag, and a run without one has none.
 */
const actor = { userId: null, apiKeyId: null };

/** Runs as MLflow's create wrote them before the migration; returns the check of their user IDs after it. */
async function seed(store: Store) {
  const orgId = (await store.createOrganization("o", 1)).id;
  const create = async (mlflowTags: [string, string][]) =>
    (await store.createRun(orgId, { projectName: "p", name: "r", tags: [], mlflowTags, now: 1 }, actor)).run.id;
  const tagged = await create([
    ["mlflow.runName", "r"],
    ["mlflow.user", "ann"],
  ]);
  const untagged = await create([["mlflow.runName", "r"]]);
  const lookalike = await create([["note", "mlflow.user"]]);
  return async (reopened: Store) => {
    const runs = await reopened.getMlflowRuns(orgId, [tagged, untagged, lookalike]);
    assert.deepEqual(
      runs.map((run) => [run.mlflowUserId, run.mlflowTags.length]),
      [
        ["ann", 2],
        ["", 1],
        ["", 1],
      ],
      "the user of the mlflow.user tag, which stays; none without one",
    );
  };
}

describe("migration to an MLflow run's user ID", () => {
  it("SQLite (0014): a run takes its user from the mlflow.user tag it had", async () => {
    const dir = makeTempDir();
    try {
      const store = SqliteStore.open(dir);
      const check = await seed(store);
      await store.close();
      const db = new Database(join(dir, DATABASE_FILE));
      db.exec("DELETE FROM schema_migrations WHERE version = 14; ALTER TABLE runs DROP COLUMN mlflow_user_id;");
      db.close();
      const reopened = SqliteStore.open(dir);
      await check(reopened).finally(() => reopened.close());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const database = createTestDatabase();
  after(async () => (await database).drop());
  it("PostgreSQL (0014): a run takes its user from the mlflow.user tag it had", async () => {
    const { url } = await database;
    const store = await PostgresStore.open(url);
    const check = await seed(store);
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("DELETE FROM schema_migrations WHERE version = 14; ALTER TABLE runs DROP COLUMN mlflow_user_id");
    await client.end();
    const reopened = await PostgresStore.open(url);
    await check(reopened).finally(() => reopened.close());
  });
});
