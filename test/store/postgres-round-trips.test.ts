import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { runInProjectWithSummaries } from "../../src/services/run-lookup.js";
import type { MetricSeries } from "../../src/store/store.js";
import { createTestDatabase } from "../helpers/postgres.js";

type Query = typeof pg.Client.prototype.query;

/** Runs `action` with every pg client query going through `wrap` (given the real query), then puts it back. */
async function withQuery(wrap: (query: Query) => Query, action: () => Promise<unknown>): Promise<void> {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = wrap(query);
  try {
    await action();
  } finally {
    pg.Client.prototype.query = query;
  }
}

/** Statements sent to PostgreSQL while `action` runs (each one a round trip). */
async function statements(action: () => Promise<unknown>): Promise<number> {
  let count = 0;
  await withQuery(
    (query) =>
      function (this: pg.Client, ...args: unknown[]) {
        count++;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as Query,
    action,
  );
  return count;
}

/**
 * Round trips waited for one after the other while `action` runs: statements sent while none is
 * outstanding. Statements sent together (on several pooled connections) count once.
 */
async function sequentialRoundTrips(action: () => Promise<unknown>): Promise<number> {
  let waits = 0;
  let outstanding = 0;
  await withQuery(
    (query) =>
      function (this: pg.Client, ...args: unknown[]) {
        if (outstanding++ === 0) waits++;
        // The pool passes a callback; a transaction's client is awaited.
        const callback = args.at(-1);
        if (typeof callback === "function") {
          args[args.length - 1] = (...results: unknown[]) => {
            outstanding--;
            return callback(...results);
          };
          return (query as (...a: unknown[]) => unknown).apply(this, args);
        }
        return (query as (...a: unknown[]) => Promise<unknown>).apply(this, args).finally(() => outstanding--);
      } as Query,
    action,
  );
  return waits;
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

/**
 * Reads wait for as few round trips as their data allows (docs/benchmarks.md, "PostgreSQL —
 * `bench:ingest` and `bench:read` with `--database-url`"): a run and its summaries at once, and a
 * sampled series in three (its segments, its chunk rows, one round of chunk points).
 */
describe("PostgreSQL read round trips", () => {
  let store: PostgresStore;
  let drop: () => Promise<void>;
  let orgId = "";
  let runId = 0;
  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    store = await PostgresStore.open(database.url);
    orgId = (await store.createOrganization("o", 1)).id;
    ({
      run: { id: runId },
    } = await store.createRun(orgId, { projectName: "p", name: "r", tags: [], now: 1 }, { userId: null, apiKeyId: null }));
    for (let from = 0; from < 100_000; from += 10_000) {
      const steps = Array.from({ length: 10_000 }, (_, k) => from + k);
      await store.appendMetricPoints(
        orgId,
        runId,
        [{ logName: "loss", steps, values: steps.map((s) => Math.sin(s * 7.1)), times: steps }],
        1,
      );
    }
  });
  after(async () => {
    await store.close();
    await drop();
  });

  it("reads a run and its summaries in one round trip", async () => {
    // Warm: a connection the pool opened for a statement would make it wait for the others.
    await runInProjectWithSummaries(store, orgId, runId, "p", {});
    const waits = await sequentialRoundTrips(() => runInProjectWithSummaries(store, orgId, runId, "p", {}));
    assert.equal(waits, 1);
  });

  it("samples a window of a long series in three round trips, its chunk points fetched in one round", async () => {
    for (const [from, to] of [
      [0, Number.MAX_SAFE_INTEGER],
      [20_000, 69_999],
      [20_123, 69_877],
    ]) {
      let points = 0;
      await store.sampleMetricPoints(orgId, runId, "loss", from!, to!, 400); // warm, as above

      const waits = await sequentialRoundTrips(async () => {
        points = (await store.sampleMetricPoints(orgId, runId, "loss", from!, to!, 400)).length;
      });
      assert.ok(points > 300 && points <= 400, `window ${from}..${to}: ${points} points`);
      assert.equal(waits, 3, `window ${from}..${to}`);
    }
  });
});
