import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const LARGEST = Number.MAX_VALUE;

/** Every number field of a response, by path, so none can hide a null or a missing number. */
function assertNumbers(object: Record<string, unknown>, fields: string[], label: string): void {
  for (const field of fields) assert.equal(typeof object[field], "number", `${label}: ${field} is ${JSON.stringify(object[field])}`);
}

/**
 * Values near the top of the float range: a sum of squares overflowed (inf − inf = NaN), which
 * made statistics and leaderboards a 500 and averages null. Every figure must be a finite number.
 */
describe("reads of values near the float range", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  const projectName = "huge";
  const runs: Record<string, number> = {};

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    const seeds: Record<string, number[]> = {
      one: [1e155],
      spread: [1e155, 0],
      top: [1.7e308, 1.7e308],
      wide: [-LARGEST, LARGEST],
      small: [1, 2, 3],
    };
    for (const [name, values] of Object.entries(seeds)) {
      const run = await org.client.createRun({ projectName, runName: name });
      runs[name] = run.runId;
      const response = await ingest(org.client, "metrics", run, toNdjson(values.map((value, step) => ({ step, data: { loss: value } }))));
      assert.equal(response.status, 200);
    }
  });
  after(async () => test.close());

  it("GET /statistics answers one value of 1e155 and a spread beyond the float range", async () => {
    for (const [name, expected] of [
      ["one", { mean: 1e155, stddev: 0, min: 1e155, max: 1e155 }],
      ["spread", { mean: 5e154, stddev: 5e154, min: 0, max: 1e155 }],
      ["top", { mean: 1.7e308, stddev: 0, min: 1.7e308, max: 1.7e308 }],
      ["wide", { mean: 0, stddev: LARGEST, min: -LARGEST, max: LARGEST }],
    ] as const) {
      const response = await org.client.get("/api/runs/statistics", { runId: runs[name]!, projectName });
      assert.equal(response.status, 200, `${name}: ${JSON.stringify(response.body)}`);
      const [metric] = response.body.metrics;
      assertNumbers(metric, ["count", "min", "max", "mean", "stddev"], name);
      assert.deepEqual({ mean: metric.mean, stddev: metric.stddev, min: metric.min, max: metric.max }, expected, name);
    }
  });

  it("GET /compare answers two points of 1.7e308 with numbers", async () => {
    const response = await org.client.get("/api/runs/compare", {
      runIds: Object.values(runs).join(","),
      projectName,
      logName: "loss",
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    for (const run of response.body.runs) assertNumbers(run.stats, ["count", "min", "max", "mean", "final"], `run ${run.runName}`);
    const top = response.body.runs.find((run: { runName: string }) => run.runName === "top");
    assert.deepEqual(top.stats, {
      count: 2,
      min: 1.7e308,
      max: 1.7e308,
      mean: 1.7e308,
      final: 1.7e308,
      lastPoint: { step: 1, value: 1.7e308, valueFlag: "" },
    });
  });

  it("GET /leaderboard ranks every aggregation with numbers; a variance beyond the float range is the largest double, ordered by spread", async () => {
    for (const aggregation of ["MIN", "MAX", "AVG", "LAST", "VARIANCE"]) {
      const response = await org.client.get("/api/runs/leaderboard", { projectName, logName: "loss", aggregation, direction: "DESC" });
      assert.equal(response.status, 200, `${aggregation}: ${JSON.stringify(response.body)}`);
      assert.equal(response.body.total, 5, aggregation);
      for (const run of response.body.runs) assertNumbers(run, ["value"], `${aggregation} ${run.runName}`);
    }
    const avg = await org.client.get("/api/runs/leaderboard", { projectName, logName: "loss", aggregation: "AVG", direction: "DESC" });
    assert.deepEqual(avg.body.runs[0], { ...avg.body.runs[0], runName: "top", value: 1.7e308 });
    const variance = await org.client.get("/api/runs/leaderboard", {
      projectName,
      logName: "loss",
      aggregation: "VARIANCE",
      direction: "DESC",
    });
    assert.deepEqual(
      variance.body.runs.map((run: { runName: string; value: number }) => [run.runName, run.value]),
      [
        ["wide", LARGEST],
        ["spread", LARGEST],
        ["small", 2 / 3],
        ["one", 0],
        ["top", 0],
      ],
    );
  });

  it("recomputes a summary exactly when a spike is replaced", async () => {
    const run = await org.client.createRun({ projectName: "replaced" });
    await ingest(org.client, "metrics", run, toNdjson([0, 1, 2].map((step) => ({ step, data: { loss: step === 1 ? 1e150 : 1 } }))));
    // A retry that corrects step 1: subtracting 1e150 back out of a running sum would leave 0 of the other two ones.
    await ingest(org.client, "metrics", run, toNdjson([{ step: 1, data: { loss: 1 } }]));
    const [metric] = (await org.client.get("/api/runs/statistics", { runId: run.runId, projectName: "replaced" })).body.metrics;
    assert.deepEqual([metric.count, metric.mean, metric.stddev, metric.max], [3, 1, 0, 1]);
  });

  it("GET /metrics samples and /metrics/raw read extreme and non-finite values exactly out of stored chunks", async () => {
    const special = new Map<number, number>([
      [400, 1.7e308],
      [900, -LARGEST],
      [1300, Number.MIN_VALUE],
      [1700, NaN],
      [2100, Infinity],
      [2500, -Infinity],
      [2900, 2.2250738585072014e-308],
    ]);
    const run = await org.client.createRun({ projectName: "chunked" });
    // 3,000 points in one batch: chunks of 512, so a sample of 10 buckets reads points out of them.
    const lines = Array.from({ length: 3000 }, (_, step) => ({ step, data: { loss: special.get(step) ?? 1 + Math.sin(step / 50) / 2 } }));
    assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines))).status, 200);
    const expected = (step: number, value: number) => ({
      step,
      value: Number.isFinite(value) ? value : 0,
      valueFlag: Number.isNaN(value) ? "NaN" : value === Infinity ? "Inf" : value === -Infinity ? "-Inf" : "",
      time: new Date(1_700_000_000_000 + step).toISOString(),
    });
    for (const [stepMin, stepMax] of [
      [0, 2999],
      [350, 2950],
    ]) {
      const response = await org.client.get("/api/runs/metrics", {
        runId: run.runId,
        projectName: "chunked",
        logName: "loss",
        limit: 40,
        stepMin,
        stepMax,
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const points = response.body.metrics;
      assert.ok(points.length <= 40, `${points.length} points`);
      for (const [step, value] of special) {
        const point = points.find((p: { step: number }) => p.step === step);
        assert.deepEqual(
          point && { step: point.step, value: point.value, valueFlag: point.valueFlag, time: point.time },
          expected(step, value),
          `window ${stepMin}..${stepMax}, step ${step}`,
        );
      }
    }
    for (const [step, value] of special) {
      const raw = await org.client.get("/api/runs/metrics/raw", {
        runId: run.runId,
        projectName: "chunked",
        logName: "loss",
        stepMin: step - 1,
        stepMax: step + 1,
      });
      assert.equal(raw.status, 200, JSON.stringify(raw.body));
      assert.deepEqual(
        raw.body.rows.map((row: { step: number; value: number }) => [row.step, row.value]),
        [
          [step - 1, lines[step - 1]!.data.loss],
          [step, Number.isFinite(value) ? value : 0],
          [step + 1, lines[step + 1]!.data.loss],
        ],
      );
    }
  });

  it("GET /metrics returns such values as they are", async () => {
    const response = await org.client.get("/api/runs/metrics", { runId: runs.wide!, projectName });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.metrics.map((point: { value: number }) => point.value),
      [-LARGEST, LARGEST],
    );
  });
});
