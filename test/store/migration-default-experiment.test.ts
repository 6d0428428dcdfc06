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
 * Migration 0013 (both stores): which project is an organization's default experiment, MLflow's
 * experiment "0". A database written before it keeps its projects unmarked until MLflow's protocol
 * first needs the default, which then adopts a project named "Default"; and the database itself
 * refuses a second default in one organization, whatever a writer does.
 */
const actor = { userId: null, apiKeyId: null };

/** Projects in two organizations, one named "Default"; returns what must hold after the migration. */
async function seed(store: Store) {
  const a = (await store.createOrganization("a", 1)).id;
  const b = (await store.createOrganization("b", 1)).id;
  const { run } = await store.createRun(a, { projectName: "Default", name: "r", tags: [], now: 5 }, actor);
  const other = (await store.createProject(a, "other", 2)).id;
  const theirs = (await store.createProject(b, "theirs", 2)).id;
  return {
    ids: { default: run.projectId, other, theirs },
    async check(reopened: Store) {
      assert.deepEqual(
        (await reopened.listMlflowProjects(a)).map((p) => [p.name, p.defaultExperiment]),
        [
          ["Default", false],
          ["other", false],
        ],
        "no project is marked by the migration",
      );
      assert.equal(await reopened.getMlflowDefaultProject(a), undefined);
      const adopted = await reopened.createMlflowDefaultProject(a);
      assert.deepEqual([adopted.id, adopted.runCount, adopted.defaultExperiment], [run.projectId, 1, true]);
      const made = await reopened.createMlflowDefaultProject(b);
      assert.deepEqual([made.name, made.createdAt, made.runCount], ["Default", 1, 0], "made, dated from the organization");
    },
  };
}

/** One default per organization and 0 or 1 only: the database's own rules (a raw UPDATE past the store). */
async function refusesASecondDefault(update: (sql: string) => Promise<unknown>, ids: Record<string, number>) {
  // The store has marked ids.default in check(); the other organization's default is its own.
  await assert.rejects(update(`UPDATE projects SET mlflow_default = 1 WHERE id = ${ids.other}`), /unique|UNIQUE/, "a second default");
  await assert.rejects(update(`UPDATE projects SET mlflow_default = 2 WHERE id = ${ids.theirs}`), /check|CHECK/, "0 or 1");
  await update(`UPDATE projects SET mlflow_default = 0 WHERE id = ${ids.default}`);
  await update(`UPDATE projects SET mlflow_default = 1 WHERE id = ${ids.other}`);
}

describe("migration 0013: an organization's default experiment", () => {
  it("SQLite: leaves older projects unmarked, adopts a Default when first needed, refuses a second default", async () => {
    const dir = makeTempDir();
    try {
      const store = SqliteStore.open(dir);
      const { ids, check } = await seed(store);
      await store.close();
      const db = new Database(join(dir, DATABASE_FILE));
      db.exec(
        "DELETE FROM schema_migrations WHERE version = 13; DROP INDEX projects_mlflow_default; ALTER TABLE projects DROP COLUMN mlflow_default;",
      );
      db.close();
      const reopened = SqliteStore.open(dir);
      await check(reopened).finally(() => reopened.close());
      const raw = new Database(join(dir, DATABASE_FILE));
      try {
        await refusesASecondDefault(async (sql) => raw.exec(sql), ids);
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const database = createTestDatabase();
  after(async () => (await database).drop());
  it("PostgreSQL: leaves older projects unmarked, adopts a Default when first needed, refuses a second default", async () => {
    const { url } = await database;
    const store = await PostgresStore.open(url);
    const { ids, check } = await seed(store);
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("DELETE FROM schema_migrations WHERE version = 13; ALTER TABLE projects DROP COLUMN mlflow_default");
      const reopened = await PostgresStore.open(url);
      await check(reopened).finally(() => reopened.close());
      await refusesASecondDefault((sql) => client.query(sql), ids);
    } finally {
      await client.end();
    }
  });
});
