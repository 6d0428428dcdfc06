import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Store } from "../../src/store/store.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * Counts the store calls of one organization while `action` runs, by method name. The server's
 * store object is wrapped method by method for that time only; the routes call it as usual.
 */
async function storeCalls(store: Store, orgId: string, action: () => Promise<unknown>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const methods = store as unknown as Record<string, (...args: unknown[]) => unknown>;
  const originals = new Map(Object.entries(methods).filter(([, method]) => typeof method === "function"));
  for (const [name, original] of originals) {
    methods[name] = function (this: unknown, ...args: unknown[]) {
      if (args[0] === orgId) counts[name] = (counts[name] ?? 0) + 1;
      return original.apply(this, args);
    };
  }
  try {
    await action();
  } finally {
    for (const [name, original] of originals) methods[name] = original;
  }
  return counts;
}

/**
 * Read routes that answer many runs fetch them in one store call, whatever their number: free on
 * SQLite, one round trip per run on a database server (docs/architecture.md).
 */
describe("read routes over many runs make as many store calls for 30 runs as for 2", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  const project = "many";
  const runIds: number[] = [];

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    for (let i = 0; i < 30; i++) {
      const run = await org.client.createRun({ projectName: project, runName: `run-${i}`, config: JSON.stringify({ lr: i }) });
      runIds.push(run.runId);
      await ingest(org.client, "metrics", run, toNdjson([{ step: 0, data: { loss: i } }]));
    }
  });
  after(async () => test.close());

  async function callsFor(path: string, query: (count: number) => Record<string, string | number>) {
    const counts = [];
    for (const count of [2, 30]) {
      counts.push(
        await storeCalls(test.server.store, org.organization.id, async () => {
          const response = await org.client.get(path, { projectName: project, ...query(count) });
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.equal(response.body.runs.length, count, "the route answers every run asked");
        }),
      );
    }
    const [few, many] = counts;
    assert.deepEqual(many, few, `${path}: store calls per method, 30 runs vs 2`);
    return many!;
  }

  it("/api/runs/compare", async () => {
    const calls = await callsFor("/api/runs/compare", (count) => ({ logName: "loss", runIds: runIds.slice(0, count).join(",") }));
    assert.equal(calls.getRuns, 1);
  });

  it("/api/runs/leaderboard", async () => {
    const calls = await callsFor("/api/runs/leaderboard", (count) => ({ logName: "loss", limit: count }));
    assert.equal(calls.getRuns, 1);
  });

  it("/api/runs/metrics/batch: one getRuns, no getRun, one sample per series", async () => {
    for (const count of [2, 30]) {
      const calls = await storeCalls(test.server.store, org.organization.id, async () => {
        const response = await org.client.post("/api/runs/metrics/batch", {
          projectName: project,
          runIds: runIds.slice(0, count),
          logNames: ["loss", "absent"],
        });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.series.length, count, "a series per run that has the metric");
      });
      assert.equal(calls.getRuns, 1);
      assert.equal(calls.getRun, undefined);
      assert.equal(calls.sampleMetricPoints, 2 * count);
    }
  });

  it("/api/runs/list with field values, in store order and sorted in-process", async () => {
    await callsFor("/api/runs/list", (limit) => ({ limit, includeFieldValues: "true" }));
    const calls = await callsFor("/api/runs/list", (limit) => ({ limit, includeFieldValues: "true", sort: "config.lr" }));
    assert.equal(calls.getRuns, 1);
  });
});
