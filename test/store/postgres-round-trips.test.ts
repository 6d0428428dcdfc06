import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import type { MetricSeries } from "../../src/store/store.js";
import { createTestDatabase } from "../helpers/postgres.js";

/** Statements sent to PostgreSQL while `action` runs (each one a round trip). */
async function statements(action: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await action();
  } finally {
    pg.Client.prototype.query = query;
  }
  return count;
}

function batch(metrics: number, fromStep: number, steps: number): MetricSeries[] {
  return Array.from({ length: metrics }, (_, m) => {
    const stepList = Array.from({ length: steps }, (_, k) => fromStep + k);
    return { logName: `group${m % 10}/metric_${m}`, steps: stepList, values: stepList.map((s) => Math.sin(s + m)), times: stepList };
  });
}

/**
 * On PostgreSQL every statement is a round trip, so a batch of metric points costs a fixed number
 * of statements whatever its number of metrics (docs/benchmarks.md, "PostgreSQL — `bench:ingest`
 * and `bench:read` with `--database-url`"): one per kind, not a few per metric.
 */
describe("PostgreSQL metric ingest round trips", () => {
  let store: PostgresStore;
  let drop: () => Promise<void>;
  let orgId = "";
  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    store = await PostgresStore.open(database.url);
    orgId = (await store.createOrganization("o", 1)).id;
  });
  after(async () => {
    await store.close();
    await drop();
  });

  it("appends a batch of 100 metrics in about as many statements as a batch of 2", async () => {
    const costs = new Map<number, number[]>();
    for (const metrics of [2, 100]) {
      const { run } = await store.createRun(
        orgId,
        { projectName: "p", name: `m${metrics}`, tags: [], now: 1 },
        { userId: null, apiKeyId: null },
      );
      // New metrics, then appends that extend the last chunk, then appends that start a new one.
      const spent = [];
      for (const [b, from] of [0, 100, 200].entries()) {
        spent.push(await statements(() => store.appendMetricPoints(orgId, run.id, batch(metrics, from, 100), 10 + b)));
      }
      costs.set(metrics, spent);
      const summaries = await store.listMetricSummaries(orgId, run.id);
      assert.equal(summaries.length, metrics);
      assert.ok(summaries.every((summary) => summary.count === 300 && summary.lastStep === 299));
    }
    const [few, many] = [costs.get(2)!, costs.get(100)!];
    for (const [b, cost] of many.entries()) {
      // 100 chunk rows take two multi-row INSERTs where 2 take one.
      assert.ok(cost <= few[b]! + 1, `batch ${b}: ${cost} statements for 100 metrics, ${few[b]} for 2`);
      assert.ok(cost <= 14, `batch ${b}: ${cost} statements`);
    }
  });
});
