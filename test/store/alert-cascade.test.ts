import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { INITIAL_STATE } from "../../src/domain/alerts/conditions.js";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import type { Store } from "../../src/store/store.js";
import { makeTestStoreLocation, type TestStoreLocation } from "../helpers/start-server.js";

/**
 * Purging a run or a project (deleting its rows from `runs` / `projects`, as run and project deletion
 * does) takes its alert rows with it: the foreign keys of migration 0020 cascade. Raw SQL stands for
 * the deleting side, on the store the run selects.
 */
const ALERT_TABLES = ["alert_rules", "alert_rule_destinations", "alert_states", "alert_events", "alert_deliveries"];

describe("alert rows go with their run and project", () => {
  const locations: TestStoreLocation[] = [];
  after(async () => {
    for (const location of locations) await location.remove();
  });

  async function populated() {
    const location = await makeTestStoreLocation();
    locations.push(location);
    const store: Store = await location.openStore();
    const org = await store.createOrganization("cascade", 1);
    const { run } = await store.createRun(org.id, { projectName: "p", name: "r", tags: [], now: 1 }, { userId: null, apiKeyId: null });
    const destination = await store.createAlertDestination(
      org.id,
      { name: "d", kind: "webhook", url: "https://x.example", secret: "s".repeat(20) },
      1,
    );
    const condition = { type: "non_finite" as const, metric: "loss" };
    const rule = (await store.createAlertRule(
      org.id,
      run.projectId,
      { name: "n", condition, destinationIds: [destination.id], enabled: true },
      1,
    ))!;
    const event = {
      orgId: org.id,
      projectId: run.projectId,
      runId: run.id,
      ruleId: rule.id,
      ruleName: "n",
      kind: "non_finite" as const,
      title: "t",
      body: "",
      level: "ERROR",
    };
    await store.recordAlertTransitions(
      [{ ruleId: rule.id, runId: run.id, from: INITIAL_STATE, to: { active: true, streak: 1 }, event }],
      2,
    );
    await store.close();
    return { location, runId: run.id, projectId: run.projectId };
  }

  /** Runs SQL on the store's database as another connection would (SQLite with its foreign keys on, as Stepwise opens it). */
  async function sql(location: TestStoreLocation, statements: [string, unknown[]][]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (location.databaseUrl === "") {
      const db = new Database(join(location.dataDir, DATABASE_FILE));
      db.pragma("foreign_keys = ON");
      for (const [text, params] of statements) db.prepare(text).run(...params);
      for (const table of ALERT_TABLES) counts.set(table, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
      db.close();
    } else {
      const client = new pg.Client({ connectionString: location.databaseUrl });
      await client.connect();
      // Each statement takes one parameter.
      for (const [text, params] of statements) await client.query(text.replace("?", "$1"), params);
      for (const table of ALERT_TABLES) counts.set(table, Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n));
      await client.end();
    }
    return counts;
  }

  it("deleting the run deletes its states, events and their deliveries; the rule stays", async () => {
    const { location, runId } = await populated();
    const counts = await sql(location, [
      ["DELETE FROM status_events WHERE run_id = ?", [runId]],
      ["DELETE FROM runs WHERE id = ?", [runId]],
    ]);
    assert.deepEqual(Object.fromEntries(counts), {
      alert_rules: 1,
      alert_rule_destinations: 1,
      alert_states: 0,
      alert_events: 0,
      alert_deliveries: 0,
    });
  });

  it("deleting the project deletes its rules too", async () => {
    const { location, runId, projectId } = await populated();
    const counts = await sql(location, [
      ["DELETE FROM status_events WHERE run_id = ?", [runId]],
      ["DELETE FROM runs WHERE id = ?", [runId]],
      ["DELETE FROM projects WHERE id = ?", [projectId]],
    ]);
    assert.deepEqual(Object.fromEntries(counts), {
      alert_rules: 0,
      alert_rule_destinations: 0,
      alert_states: 0,
      alert_events: 0,
      alert_deliveries: 0,
    });
  });
});
