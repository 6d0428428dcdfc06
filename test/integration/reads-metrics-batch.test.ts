import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Value } from "typebox/value";
import { MetricsBatchResponse } from "../../src/http/schemas/metrics.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const BATCH = "/api/runs/metrics/batch";

/** A /metrics sample as the batch spells it: parallel arrays. */
function columns(points: any[]) {
  return {
    steps: points.map((p) => p.step),
    values: points.map((p) => p.value),
    nonFiniteFlags: points.map((p) => p.nonFiniteFlags),
    times: points.map((p) => Date.parse(p.time)),
  };
}

describe("POST /api/runs/metrics/batch", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  async function ingestLines(client: ApiClient, run: { runId: number; projectName: string }, lines: { step: number; data: any }[]) {
    for (let i = 0; i < lines.length; i += 2000) {
      const response = await ingest(client, "metrics", run, toNdjson(lines.slice(i, i + 2000)));
      assert.equal(response.status, 200, JSON.stringify(response.body));
    }
  }

  /** Three runs of 6,000 steps: a spike, every non-finite kind, and a metric only some runs have. */
  async function seeded(project = "batch") {
    const org = await makeOrg(test);
    const runs = [];
    for (let r = 0; r < 3; r++) {
      const run = await org.client.createRun({ projectName: project, runName: `r${r}` });
      const special = new Map<number, number>([
        [1234 + r, 1e6],
        [3000, Infinity],
        [3001 + r, NaN],
        [4500, -Infinity],
      ]);
      await ingestLines(
        org.client,
        run,
        Array.from({ length: 6000 }, (_, step) => ({
          step,
          data: {
            "train/loss": special.get(step) ?? Math.cos(step / 200) + r,
            "val/acc": step % 100 === 0 ? step / 6000 : null,
            ...(r === 1 ? { only1: step } : {}),
          },
        })),
      );
      runs.push(run);
    }
    return { ...org, project, runs, runIds: runs.map((run) => run.runId) };
  }

  it("answers one series per (run, logName) with points, in request order, each as /metrics samples it", async () => {
    const { client, project, runIds } = await seeded();
    const order = [runIds[2]!, runIds[0]!, runIds[1]!];
    const logNames = ["val/acc", "only1", "train/loss", "never-logged"];
    const response = await client.post(BATCH, { projectName: project, runIds: order, logNames, buckets: 50 });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(response.body.missingRunIds, []);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.ok(Value.Check(MetricsBatchResponse, response.body as unknown), "the body is what the OpenAPI document says");
    const series = response.body.series;
    assert.deepEqual(
      series.map((s: any) => [s.runId, s.logName]),
      [
        [order[0], "val/acc"],
        [order[0], "train/loss"],
        [order[1], "val/acc"],
        [order[1], "train/loss"],
        [order[2], "val/acc"],
        [order[2], "only1"],
        [order[2], "train/loss"],
      ],
    );
    assert.deepEqual(Object.keys(series[0]).sort(), ["logName", "nonFiniteFlags", "runId", "steps", "times", "values"]);
    for (const s of series) {
      const metrics = await client.get("/api/runs/metrics", { runId: s.runId, projectName: project, logName: s.logName, limit: 200 });
      assert.equal(metrics.status, 200);
      const { runId: _r, logName: _l, ...batch } = s;
      assert.deepEqual(batch, columns(metrics.body.metrics), `${s.runId} ${s.logName}: same sample as /metrics with limit 4 × buckets`);
    }
    const loss = series.find((s: any) => s.runId === order[1] && s.logName === "train/loss");
    assert.ok(loss.steps.length <= 200 && loss.steps.length > 100, `${loss.steps.length} points`);
    assert.deepEqual(
      loss.steps,
      [...loss.steps].sort((a: number, b: number) => a - b),
    );
    // val/acc has 60 points: within 4 × 50, so it comes whole.
    assert.equal(series[0].steps.length, 60);
  });

  it("keeps a spike and every non-finite kind, flagged with value 0, and the bucket extremes for a band", async () => {
    const { client, project, runIds } = await seeded();
    const response = await client.post(BATCH, { projectName: project, runIds, logNames: ["train/loss"], buckets: 10 });
    assert.equal(response.status, 200);
    for (const [r, s] of response.body.series.entries()) {
      const at = (step: number) => s.steps.indexOf(step);
      for (const [step, flags] of [
        [3000, 2],
        [3001 + r, 1],
        [4500, 4],
      ] as const) {
        assert.ok(at(step) >= 0, `run ${r}: step ${step} kept`);
        assert.deepEqual([s.values[at(step)], s.nonFiniteFlags[at(step)]], [0, flags]);
      }
      assert.equal(s.values[at(1234 + r)], 1e6, "the spike is kept");
      assert.equal(s.times[at(0)], 1_700_000_000_000, "times are the client's, in epoch ms");
      assert.ok(s.steps.includes(0) && s.steps.includes(5999), "first and last kept");
      assert.ok(s.steps.length <= 40);
      assert.equal(s.nonFiniteFlags.filter((f: number) => f !== 0).length, 3);
    }
  });

  it("windows by step inclusively, the same as /metrics, and leaves out series with no point in the window", async () => {
    const { client, project, runIds } = await seeded();
    const window = { stepMin: 2900, stepMax: 3100 };
    const response = await client.post(BATCH, { projectName: project, runIds, logNames: ["train/loss", "val/acc"], buckets: 5, ...window });
    assert.equal(response.status, 200);
    const series = response.body.series;
    assert.deepEqual(
      series.map((s: any) => s.logName),
      ["train/loss", "val/acc", "train/loss", "val/acc", "train/loss", "val/acc"],
    );
    for (const s of series) {
      assert.ok(s.steps.every((step: number) => step >= 2900 && step <= 3100));
      const metrics = await client.get("/api/runs/metrics", {
        runId: s.runId,
        projectName: project,
        logName: s.logName,
        limit: 20,
        ...window,
      });
      assert.deepEqual(s.steps, columns(metrics.body.metrics).steps);
    }
    assert.deepEqual(series[1].steps, [2900, 3000, 3100]);
    const empty = await client.post(BATCH, { projectName: project, runIds, logNames: ["val/acc"], stepMin: 10, stepMax: 20 });
    assert.deepEqual(empty.body, { series: [], missingRunIds: [] });
    const exact = await client.post(BATCH, { projectName: project, runIds: [runIds[0]], logNames: ["train/loss"], stepMin: 7, stepMax: 7 });
    assert.deepEqual(exact.body.series[0].steps, [7]);
  });

  it("reads a fork through its lineage, as /metrics does", async () => {
    const { client } = await makeOrg(test);
    const project = "lineage";
    const parent = await client.createRun({ projectName: project });
    await ingestLines(
      client,
      parent,
      Array.from({ length: 100 }, (_, step) => ({ step, data: { m: step } })),
    );
    const child = await client.createRun({ projectName: project, forkRunId: parent.runId, forkStep: 49 });
    await ingestLines(
      client,
      child,
      Array.from({ length: 30 }, (_, i) => ({ step: 50 + i, data: { m: 1000 + i } })),
    );
    const grandchild = await client.createRun({ projectName: project, forkRunId: child.runId, forkStep: 60 });
    await ingestLines(client, grandchild, [{ step: 61, data: { m: -1 } }]);
    const response = await client.post(BATCH, {
      projectName: project,
      runIds: [grandchild.runId, parent.runId],
      logNames: ["m"],
      buckets: 1000,
    });
    assert.equal(response.status, 200);
    const [fork, original] = response.body.series;
    assert.deepEqual(fork.steps, [...Array.from({ length: 61 }, (_, s) => s), 61]);
    assert.deepEqual(fork.values, [...Array.from({ length: 50 }, (_, s) => s), ...Array.from({ length: 11 }, (_, i) => 1000 + i), -1]);
    assert.equal(original.steps.length, 100, "the parent is unchanged");
    const sampled = await client.post(BATCH, { projectName: project, runIds: [grandchild.runId], logNames: ["m"], buckets: 3 });
    const metrics = await client.get("/api/runs/metrics", { runId: grandchild.runId, projectName: project, logName: "m", limit: 12 });
    const { runId: _r, logName: _l, ...batch } = sampled.body.series[0];
    assert.deepEqual(batch, columns(metrics.body.metrics));
  });

  it("lists runs of other organizations, other projects and unknown IDs as missing, without telling them apart", async () => {
    const { client, project, runIds } = await seeded();
    const elsewhere = await client.createRun({ projectName: "other-project" });
    await ingestLines(client, elsewhere, [{ step: 0, data: { "train/loss": 1 } }]);
    const stranger = await makeOrg(test);
    const foreign = await stranger.client.createRun({ projectName: project });
    await ingestLines(stranger.client, foreign, [{ step: 0, data: { "train/loss": 1 } }]);
    const unknown = 9_000_000_000;
    const response = await client.post(BATCH, {
      projectName: project,
      runIds: [foreign.runId, runIds[0], elsewhere.runId, unknown, runIds[0]],
      logNames: ["train/loss", "train/loss"],
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(response.body.missingRunIds, [foreign.runId, elsewhere.runId, unknown]);
    assert.deepEqual(
      response.body.series.map((s: any) => [s.runId, s.logName]),
      [[runIds[0], "train/loss"]],
      "a repeated run or name counts once",
    );
    // The other organization, naming the first one's runs, sees them missing; its own run reads.
    const theirs = await stranger.client.post(BATCH, {
      projectName: project,
      runIds: [...runIds, foreign.runId],
      logNames: ["train/loss"],
    });
    assert.equal(theirs.status, 200);
    assert.deepEqual(theirs.body.missingRunIds, runIds);
    assert.deepEqual(
      theirs.body.series.map((s: any) => [s.runId, s.values]),
      [[foreign.runId, [1]]],
    );
    assert.equal((await client.post(BATCH, { projectName: "no-such-project", runIds, logNames: ["x"] })).status, 404);
    assert.equal((await client.withKey(undefined).post(BATCH, { projectName: project, runIds, logNames: ["x"] })).status, 401);
  });

  it("refuses bad bodies and batches past the point cap with 400 {error}", async () => {
    const { client, project, runIds } = await seeded();
    const ok = { projectName: project, runIds, logNames: ["train/loss"] };
    const tooManyRuns = Array.from({ length: 201 }, (_, i) => i + 1);
    const tooManyNames = Array.from({ length: 101 }, (_, i) => `m${i}`);
    for (const bad of [
      { runIds: [] },
      { runIds: tooManyRuns },
      { runIds: [0] },
      { runIds: [-1] },
      { runIds: [1.5] },
      { runIds: ["x"] },
      { logNames: [] },
      { logNames: tooManyNames },
      { logNames: [""] },
      { logNames: ["x".repeat(256)] },
      { buckets: 0 },
      { buckets: 1001 },
      { stepMin: -1 },
      { stepMin: 10, stepMax: 5 },
      { projectName: "" },
      { projectName: undefined },
      { logNames: undefined },
    ]) {
      const response = await client.post(BATCH, { ...ok, ...bad });
      assert.equal(response.status, 400, JSON.stringify(bad));
      assert.equal(typeof response.body.error, "string", JSON.stringify(bad));
    }
    const huge = await client.raw("POST", BATCH, `{"projectName":"${project}","runIds":[${runIds[0]}],"logNames":["x"],"stepMax":1e400}`, {
      "content-type": "application/json",
    });
    assert.equal(huge.status, 400, "a step past JSON's integers");
    // 200 runs × 10 names × 1003 points = 2,006,000 > 2,000,000; 200 × 9 × 1003 fits.
    const manyRuns = Array.from({ length: 200 }, (_, i) => runIds[0]! + 1000 + i);
    const names = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);
    const refused = await client.post(BATCH, { ...ok, runIds: manyRuns, logNames: names(10), buckets: 250 });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /batch too large: 200 runs × 10 logNames × 1003 points per series .* more than 2000000/);
    const fits = await client.post(BATCH, { ...ok, runIds: manyRuns, logNames: names(9), buckets: 250 });
    assert.equal(fits.status, 200);
    assert.equal(fits.body.missingRunIds.length, 200);
    assert.equal((await client.post(BATCH, { ...ok, buckets: 1000, logNames: names(100), runIds: runIds.slice(0, 1) })).status, 200);
  });

  it("takes prototype names as plain metric names", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "proto" });
    await ingestLines(client, run, [{ step: 1, data: JSON.parse('{"__proto__": 5, "constructor": 6}') }]);
    const response = await client.post(BATCH, {
      projectName: "proto",
      runIds: [run.runId],
      logNames: ["__proto__", "constructor", "toString", "hasOwnProperty"],
    });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.series.map((s: any) => [s.logName, s.values]),
      [
        ["__proto__", [5]],
        ["constructor", [6]],
      ],
    );
  });
});
