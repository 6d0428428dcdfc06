import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, seededRandom, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

describe("GET /api/runs/metrics", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  async function seeded() {
    const org = await makeOrg(test);
    const run = await org.client.createRun({ projectName: "charts" });
    const lines = Array.from({ length: 5000 }, (_, step) => ({
      step,
      data: {
        "train/loss": step === 3210 ? -50 : step === 77 ? 900 : Math.cos(step / 100),
        "train/acc": step % 1000 === 5 ? NaN : step / 5000,
        lr: step < 10 ? 0.1 : null,
      },
    }));
    for (let i = 0; i < lines.length; i += 1000) await ingest(org.client, "metrics", run, toNdjson(lines.slice(i, i + 1000)));
    return { ...org, run, query: { runId: run.runId, projectName: "charts" } };
  }

  it("samples each metric to the limit, keeping first, last, min and max, ascending by step", async () => {
    const { client, query } = await seeded();
    const response = await client.get("/api/runs/metrics", { ...query, logName: "train/loss", limit: 100 });
    assert.equal(response.status, 200);
    const points = response.body.metrics;
    // 25 buckets of 200 steps; a bucket where the cosine only falls or rises keeps 2 points (first =
    // max, last = min), and the fill brings the sample to the limit.
    assert.equal(points.length, 100, "as many points as asked (the buckets' picks filled, docs/semantics.md)");
    const steps = points.map((p: any) => p.step);
    assert.deepEqual(
      steps,
      [...steps].sort((a: number, b: number) => a - b),
    );
    for (const step of [0, 4999, 3210, 77]) assert.ok(steps.includes(step), `step ${step} kept`);
    assert.equal(points.find((p: any) => p.step === 3210).value, -50);
    assert.deepEqual(Object.keys(points[0]).sort(), ["logGroup", "logName", "nonFiniteFlags", "step", "time", "value", "valueFlag"]);
    assert.equal(points[0].logGroup, "train");
    assert.equal(points[0].time, new Date(1_700_000_000_000).toISOString(), "time is the client's time");
    const again = await client.get("/api/runs/metrics", { ...query, logName: "train/loss", limit: 100 });
    assert.deepEqual(again.body, response.body, "deterministic");
  });

  it("keeps a local spike and every non-finite kind at any zoom, with valueFlag and nonFiniteFlags", async () => {
    const org = await makeOrg(test);
    const run = await org.client.createRun({ projectName: "spikes" });
    const special = new Map<number, number>([
      [5, 1e6], // the global maximum
      [12_345, 3], // a local spike, far below it
      [15_000, Infinity],
      [16_000, NaN],
      [17_000, -Infinity],
    ]);
    const lines = Array.from({ length: 20_000 }, (_, step) => ({ step, data: { loss: special.get(step) ?? Math.sin(step / 300) } }));
    for (let i = 0; i < lines.length; i += 2000) await ingest(org.client, "metrics", run, toNdjson(lines.slice(i, i + 2000)));
    for (const [stepMin, stepMax] of [
      [0, 19_999],
      [10_000, 18_000],
    ]) {
      const response = await org.client.get("/api/runs/metrics", {
        runId: run.runId,
        projectName: "spikes",
        logName: "loss",
        limit: 1000,
        stepMin,
        stepMax,
      });
      assert.equal(response.status, 200);
      const points = response.body.metrics;
      assert.ok(points.length <= 1000, `${points.length} points`);
      const at = (step: number) => points.find((p: any) => p.step === step);
      if (stepMin === 0) assert.equal(at(5).value, 1e6);
      assert.equal(at(12_345).value, 3);
      for (const [step, flags, valueFlag] of [
        [15_000, 2, "Inf"],
        [16_000, 1, "NaN"],
        [17_000, 4, "-Inf"],
      ] as const) {
        assert.deepEqual([at(step)?.value, at(step)?.nonFiniteFlags, at(step)?.valueFlag], [0, flags, valueFlag], `step ${step}`);
      }
    }
  });

  it("defaults to 2,000 points per metric and returns every metric of a group or of the run", async () => {
    const { client, query } = await seeded();
    const all = (await client.get("/api/runs/metrics", query)).body.metrics;
    const byName = (name: string) => all.filter((p: any) => p.logName === name).length;
    assert.ok(byName("train/loss") <= 2000 && byName("train/loss") >= 1000, `${byName("train/loss")} points`);
    assert.equal(byName("lr"), 10);
    const group = (await client.get("/api/runs/metrics", { ...query, logGroup: "train", limit: 10 })).body.metrics;
    assert.deepEqual([...new Set(group.map((p: any) => p.logName))].sort(), ["train/acc", "train/loss"]);
  });

  it("windows by step inclusively and reports non-finite values with flags", async () => {
    const { client, query } = await seeded();
    const window = (await client.get("/api/runs/metrics", { ...query, logName: "train/acc", stepMin: 1000, stepMax: 1010 })).body.metrics;
    assert.deepEqual(
      window.map((p: any) => p.step),
      Array.from({ length: 11 }, (_, i) => 1000 + i),
    );
    const nan = window.find((p: any) => p.step === 1005);
    assert.deepEqual([nan.value, nan.nonFiniteFlags, nan.valueFlag], [0, 1, "NaN"]);
    const finite = window.find((p: any) => p.step === 1006);
    assert.deepEqual([finite.nonFiniteFlags, finite.valueFlag], [0, ""]);
  });

  it("rejects bad parameters and keeps other organizations out", async () => {
    const { client, query } = await seeded();
    for (const bad of [{ limit: 0 }, { limit: 10001 }, { stepMin: -1 }, { stepMax: -5 }, { stepMin: 10, stepMax: 5 }]) {
      const response = await client.get("/api/runs/metrics", { ...query, ...bad });
      assert.equal(response.status, 400, JSON.stringify(bad));
      assert.equal(typeof response.body.error, "string");
    }
    assert.equal((await client.get("/api/runs/metrics", { ...query, projectName: "nope" })).status, 404);
    const other = await makeOrg(test);
    assert.equal((await other.client.get("/api/runs/metrics", query)).status, 404);
    assert.equal((await client.withKey(undefined).get("/api/runs/metrics", query)).status, 401);
  });

  it("includes a fork's inherited points up to the fork step, for a fork of a fork too", async () => {
    const { client } = await makeOrg(test);
    const project = "lineage";
    const parent = await client.createRun({ projectName: project });
    await ingest(client, "metrics", parent, toNdjson(Array.from({ length: 100 }, (_, step) => ({ step, data: { m: step } }))));
    const child = await client.createRun({ projectName: project, forkRunId: parent.runId, forkStep: 49 });
    await ingest(client, "metrics", child, toNdjson(Array.from({ length: 30 }, (_, i) => ({ step: 50 + i, data: { m: 1000 + i } }))));
    const grandchild = await client.createRun({ projectName: project, forkRunId: child.runId, forkStep: 60 });
    await ingest(client, "metrics", grandchild, toNdjson([{ step: 61, data: { m: -1 } }]));

    const read = async (runId: number) =>
      (await client.get("/api/runs/metrics", { runId, projectName: project, limit: 10000 })).body.metrics.map((p: any) => [
        p.step,
        p.value,
      ]);
    const expected = [
      ...Array.from({ length: 50 }, (_, s) => [s, s]),
      ...Array.from({ length: 11 }, (_, i) => [50 + i, 1000 + i]),
      [61, -1],
    ];
    assert.deepEqual(await read(grandchild.runId), expected);
    const raw = await client.get("/api/runs/metrics/raw", { runId: grandchild.runId, projectName: project, logName: "m" });
    assert.deepEqual(
      raw.body.rows.map((r: any) => r.step),
      expected.map(([s]) => s),
    );
    assert.equal((await read(parent.runId)).length, 100, "the parent is unchanged");
  });

  it("answers exactly the limit of a longer series, its extremes kept, over a fork's inherited range too", async () => {
    const { client } = await makeOrg(test);
    const project = "resolution";
    const random = seededRandom(2100);
    const values = Array.from({ length: 2100 }, () => random() - 0.5);
    const parent = await client.createRun({ projectName: project });
    await ingest(client, "metrics", parent, toNdjson(values.map((value, step) => ({ step, data: { noise: value } }))));
    const child = await client.createRun({ projectName: project, forkRunId: parent.runId, forkStep: 2099 });
    await ingest(client, "metrics", child, toNdjson([{ step: 2100, data: { noise: 0 } }]));
    const min = values.indexOf(Math.min(...values));
    const max = values.indexOf(Math.max(...values));
    for (const [label, runId] of [
      ["the run", parent.runId],
      ["the fork's inherited range", child.runId],
    ] as const) {
      for (const limit of [7, 50, 100, 1000, 10_000]) {
        const response = await client.get("/api/runs/metrics", { runId, projectName: project, logName: "noise", limit, stepMax: 2099 });
        assert.equal(response.status, 200);
        const steps: number[] = response.body.metrics.map((p: any) => p.step);
        assert.equal(steps.length, Math.min(limit, 2100), `${label}, limit ${limit}`);
        assert.equal(new Set(steps).size, steps.length, `${label}, limit ${limit}: each point once`);
        for (const step of [0, 2099, min, max]) assert.ok(steps.includes(step), `${label}, limit ${limit}: step ${step} kept`);
      }
    }
  });
});
