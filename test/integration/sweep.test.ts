import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** GET /api/runs/sweep over real HTTP (docs/api.md, "Sweep"), on the store the run selects. */

const PROJECT = "sweep";

describe("the sweep read", () => {
  let test: TestServer;
  let client: ApiClient;
  let other: ApiClient;
  const ids: number[] = [];
  const sweep = (query: Record<string, string | number>) => client.get("/api/runs/sweep", { projectName: PROJECT, ...query });

  before(async () => {
    test = await startTestServer();
    client = (await makeOrg(test)).client;
    other = (await makeOrg(test)).client;
    const configs: Record<string, unknown>[] = [
      { lr: 0.1, optimizer: { name: "adam" }, seed: 1, epochs: 10, constructor: "x", amp: true },
      { lr: 0.01, optimizer: { name: "sgd" }, seed: 1, epochs: 10, constructor: "x", amp: false },
      { lr: "auto", optimizer: { name: "adam" }, epochs: 10, constructor: "x" }, // a string among numbers, seed and amp missing
    ];
    for (const [r, config] of configs.entries()) {
      const run = await client.createRun({ projectName: PROJECT, runName: `run-${r}`, config: JSON.stringify(config) });
      ids.push(run.runId);
      const values = [3, 1, 2].map((v) => v + r);
      const lines = values.map((value, step) => ({ step, data: { loss: value, ...(r < 2 ? { acc: step / 10 } : {}) } }));
      assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
    }
  });
  after(async () => {
    await test?.close();
  });

  it("returns every run with the config keys that differ and the summaries asked for", async () => {
    const response = await sweep({ metrics: JSON.stringify(["loss", "acc", "missing"]) });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const body = response.body as {
      total: number;
      keys: string[];
      constantKeys: string[];
      moreKeys: number;
      runs: { id: number; name: string; config: Record<string, unknown>; metrics: Record<string, unknown> }[];
    };
    assert.equal(body.total, 3);
    assert.deepEqual(body.keys, ["amp", "lr", "optimizer.name", "seed"]);
    assert.deepEqual(body.constantKeys, ["constructor", "epochs"]);
    assert.equal(body.moreKeys, 0);
    const byId = new Map(body.runs.map((run) => [run.id, run]));
    assert.deepEqual(byId.get(ids[0]!)!.config, { amp: true, lr: 0.1, "optimizer.name": "adam", seed: 1 });
    assert.deepEqual(byId.get(ids[2]!)!.config, { lr: "auto", "optimizer.name": "adam" }, "missing keys are absent, types kept");
    assert.deepEqual(byId.get(ids[1]!)!.metrics, {
      loss: { last: 3, min: 2, max: 4 },
      acc: { last: 0.2, min: 0, max: 0.2 },
      missing: null,
    });
    assert.equal(byId.get(ids[2]!)!.metrics.acc, null, "a run without the metric has null");
  });

  it("reads the selection the run list reads: search, filter, sort and limit", async () => {
    const filtered = await sweep({ filter: JSON.stringify({ "config.lr": { $lte: 0.05 } }) });
    assert.deepEqual(
      (filtered.body.runs as { id: number }[]).map((run) => run.id),
      [ids[1]],
    );
    const sorted = await sweep({ sort: "summary_metrics.loss", limit: 2 });
    assert.equal(sorted.body.total, 3);
    assert.deepEqual(
      (sorted.body.runs as { id: number }[]).map((run) => run.id),
      [ids[0], ids[1]],
    );
    const searched = await sweep({ search: "run-2" });
    assert.deepEqual(searched.body.keys, [], "one run: nothing differs");
    assert.equal((searched.body.constantKeys as string[]).length, 4);
  });

  it("refuses bad input with a 400 naming it", async () => {
    for (const [query, pattern] of [
      [{ metrics: "loss" }, /metrics/],
      [{ metrics: JSON.stringify([1]) }, /metrics/],
      [{ metrics: JSON.stringify(Array.from({ length: 51 }, (_, i) => `m${i}`)) }, /at most 50/],
      [{ limit: 5001 }, /limit/],
      [{ limit: 0 }, /limit/],
      [{ filter: "{" }, /filter/],
      [{ sort: "nonsense" }, /sort/],
    ] as const) {
      const response = await sweep(query as Record<string, string | number>);
      assert.equal(response.status, 400, JSON.stringify(query));
      assert.match(String(response.body.error), pattern);
    }
  });

  it("keeps each organization's project to itself", async () => {
    const foreign = await other.get("/api/runs/sweep", { projectName: PROJECT });
    assert.equal(foreign.status, 404);
    assert.match(String(foreign.body.error), /project/i);
    await other.createRun({ projectName: PROJECT, runName: "theirs", config: JSON.stringify({ lr: 9 }) });
    const mine = await sweep({});
    assert.equal(mine.body.total, 3, "the other organization's run of the same project name is not read");
  });
});
