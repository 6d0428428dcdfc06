import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Statistics computed here, independently of the server: finite values only, population variance. */
function stats(values: number[]) {
  const finite = values.filter(Number.isFinite);
  const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
  const variance = finite.reduce((a, b) => a + (b - mean) ** 2, 0) / finite.length;
  return {
    count: finite.length,
    min: Math.min(...finite),
    max: Math.max(...finite),
    mean,
    variance,
    stddev: Math.sqrt(variance),
    last: finite.at(-1)!,
  };
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe("statistics, comparison, leaderboard and metric names", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  const project = "ranked";
  const series: Record<number, number[]> = {};
  const runs: number[] = [];

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    const valueSets = [
      [5, 3, 8, NaN, 2],
      [1, 1, 1],
      [9, Infinity, 4, 6],
      [2, 7],
      [3, 3, 8, 1],
    ];
    for (const [i, values] of valueSets.entries()) {
      const run = await org.client.createRun({
        projectName: project,
        runName: `run-${i}`,
        tags: [`t${i}`],
        config: JSON.stringify({ lr: i }),
      });
      runs.push(run.runId);
      series[run.runId] = values;
      await ingest(
        org.client,
        "metrics",
        run,
        toNdjson(values.map((value, step) => ({ step, data: { "val/loss": value, [`only${i}`]: step } }))),
      );
    }
    const bare = await org.client.createRun({ projectName: project, runName: "no-metrics" });
    runs.push(bare.runId);
  });
  after(async () => test.close());

  it("GET /statistics reports count, min, max, mean, stddev and last from finite values", async () => {
    const runId = runs[0]!;
    const response = await org.client.get("/api/runs/statistics", { runId, projectName: project, logName: "val/loss" });
    assert.equal(response.status, 200);
    assert.equal(response.body.runName, "run-0");
    assert.match(response.body.url, new RegExp(`/projects/${project}/runs/${runId}$`));
    const [metric] = response.body.metrics;
    const expected = stats(series[runId]!);
    assert.deepEqual(
      [metric.logName, metric.logGroup, metric.count, metric.min, metric.max],
      ["val/loss", "val", expected.count, expected.min, expected.max],
    );
    assert.ok(close(metric.mean, expected.mean) && close(metric.stddev, expected.stddev));
    assert.deepEqual(metric.last, { step: 4, value: 2 });
    const all = await org.client.get("/api/runs/statistics", { runId, projectName: project });
    assert.deepEqual(
      all.body.metrics.map((m: any) => m.logName),
      ["only0", "val/loss"],
    );
    const group = await org.client.get("/api/runs/statistics", { runId, projectName: project, logGroup: "val" });
    assert.deepEqual(
      group.body.metrics.map((m: any) => m.logName),
      ["val/loss"],
    );
  });

  it("GET /compare keeps the requested order and gives null stats to runs without the metric", async () => {
    const order = [runs[3]!, runs[5]!, runs[0]!];
    const response = await org.client.get("/api/runs/compare", { runIds: order.join(","), projectName: project, logName: "val/loss" });
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.body.runs.map((r: any) => r.runId),
      order,
    );
    assert.equal(response.body.runs[1].stats, null);
    const expected = stats(series[runs[0]!]!);
    const { stats: got } = response.body.runs[2];
    assert.deepEqual([got.count, got.min, got.max, got.final], [expected.count, expected.min, expected.max, expected.last]);
    assert.ok(close(got.mean, expected.mean));
    assert.deepEqual(response.body.runs[2].config, { lr: 0 });
    assert.match(response.body.comparisonUrl, new RegExp(`/projects/${project}/compare\\?runIds=${order.join(",")}$`));
    assert.equal((await org.client.get("/api/runs/compare", { runIds: "x,,-1", projectName: project, logName: "val/loss" })).status, 400);
    const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
    assert.equal((await org.client.get("/api/runs/compare", { runIds: tooMany, projectName: project, logName: "val/loss" })).status, 400);
    assert.equal((await org.client.get("/api/runs/compare", { runIds: "1", projectName: "nope", logName: "val/loss" })).status, 404);
  });

  it("GET /leaderboard ranks by each aggregation, breaks ties by run ID, and leaves out runs without the metric", async () => {
    const value = (runId: number, aggregation: string) => {
      const s = stats(series[runId]!);
      return { MIN: s.min, MAX: s.max, AVG: s.mean, LAST: s.last, VARIANCE: s.variance }[aggregation]!;
    };
    for (const aggregation of ["MIN", "MAX", "AVG", "LAST", "VARIANCE"]) {
      for (const direction of ["ASC", "DESC"]) {
        const response = await org.client.get("/api/runs/leaderboard", {
          projectName: project,
          logName: "val/loss",
          aggregation,
          direction,
        });
        assert.equal(response.status, 200, `${aggregation} ${direction}`);
        const sign = direction === "ASC" ? 1 : -1;
        const expected = runs.slice(0, 5).sort((a, b) => sign * (value(a, aggregation) - value(b, aggregation)) || a - b);
        assert.deepEqual(
          response.body.runs.map((r: any) => r.runId),
          expected,
          `${aggregation} ${direction}`,
        );
        assert.equal(response.body.total, 5);
        response.body.runs.forEach((r: any, i: number) => {
          assert.equal(r.rank, i + 1);
          assert.ok(close(r.value, value(r.runId, aggregation)));
        });
      }
    }
    const defaults = await org.client.get("/api/runs/leaderboard", { projectName: project, logName: "val/loss" });
    assert.deepEqual([defaults.body.aggregation, defaults.body.direction], ["LAST", "ASC"]);
    const page = await org.client.get("/api/runs/leaderboard", { projectName: project, logName: "val/loss", limit: 2, offset: 2 });
    assert.deepEqual(
      page.body.runs.map((r: any) => r.rank),
      [3, 4],
    );
    assert.equal(page.body.total, 5);
    const first = page.body.runs[0];
    assert.deepEqual(Object.keys(first).sort(), [
      "config",
      "createdAt",
      "lastPoint",
      "rank",
      "runId",
      "runName",
      "status",
      "tags",
      "url",
      "value",
    ]);
    for (const bad of [{ limit: 0 }, { limit: 101 }, { offset: -1 }, { aggregation: "MEDIAN" }, { direction: "UP" }]) {
      assert.equal(
        (await org.client.get("/api/runs/leaderboard", { projectName: project, logName: "val/loss", ...bad })).status,
        400,
        JSON.stringify(bad),
      );
    }
  });

  it("GET /metric-names lists distinct names, with search, run scope and limit", async () => {
    const all = await org.client.get("/api/runs/metric-names", { projectName: project });
    assert.deepEqual(all.body, { projectName: project, metricNames: ["only0", "only1", "only2", "only3", "only4", "val/loss"] });
    assert.deepEqual((await org.client.get("/api/runs/metric-names", { projectName: project, search: "ONLY" })).body.metricNames.length, 5);
    assert.deepEqual(
      (await org.client.get("/api/runs/metric-names", { projectName: project, runIds: `${runs[1]},${runs[2]}` })).body.metricNames,
      ["only1", "only2", "val/loss"],
    );
    assert.deepEqual((await org.client.get("/api/runs/metric-names", { projectName: project, limit: 2 })).body.metricNames, [
      "only0",
      "only1",
    ]);
    assert.deepEqual((await org.client.get("/api/runs/metric-names", { projectName: project, search: "%" })).body.metricNames, []);
  });

  it("counts a fork's inherited points in statistics and the leaderboard", async () => {
    const parent = runs[0]!;
    const child = await org.client.createRun({ projectName: project, forkRunId: parent, forkStep: 2 });
    await ingest(org.client, "metrics", child, toNdjson([{ step: 3, data: { "val/loss": -4 } }]));
    const expected = stats([5, 3, 8, -4]);
    const [metric] = (await org.client.get("/api/runs/statistics", { runId: child.runId, projectName: project, logName: "val/loss" })).body
      .metrics;
    assert.deepEqual(
      [metric.count, metric.min, metric.max, metric.last],
      [expected.count, expected.min, expected.max, { step: 3, value: -4 }],
    );
    const board = await org.client.get("/api/runs/leaderboard", { projectName: project, logName: "val/loss", aggregation: "MIN" });
    assert.equal(board.body.runs[0].runId, child.runId);
    assert.equal(board.body.total, 6);
  });

  it("GET /metric-names of some runs: a fork's inherited names with plain runs' own, never another project's or organization's runs", async () => {
    const child = await org.client.createRun({ projectName: project, forkRunId: runs[2]!, forkStep: 1 });
    await ingest(org.client, "metrics", child, toNdjson([{ step: 2, data: { forked: 1 } }]));
    const elsewhere = await org.client.createRun({ projectName: "elsewhere" });
    await ingest(org.client, "metrics", elsewhere, toNdjson([{ step: 0, data: { "elsewhere/loss": 1 } }]));
    const other = await makeOrg(test);
    const foreign = await other.client.createRun({ projectName: project });
    await ingest(other.client, "metrics", foreign, toNdjson([{ step: 0, data: { foreign: 1 } }]));
    const namesOf = async (ids: number[]) =>
      (await org.client.get("/api/runs/metric-names", { projectName: project, runIds: ids.join(",") })).body.metricNames;
    assert.deepEqual(await namesOf([child.runId]), ["forked", "only2", "val/loss"]);
    assert.deepEqual(await namesOf([runs[1]!, child.runId, runs[5]!]), ["forked", "only1", "only2", "val/loss"]);
    assert.deepEqual(await namesOf([runs[3]!, elsewhere.runId, foreign.runId]), ["only3", "val/loss"]);
    assert.deepEqual(await namesOf([elsewhere.runId, foreign.runId]), []);
  });

  it("keeps other organizations out of every summary read", async () => {
    const other = await makeOrg(test);
    assert.equal((await other.client.get("/api/runs/statistics", { runId: runs[0]!, projectName: project })).status, 404);
    assert.equal((await other.client.get("/api/runs/leaderboard", { projectName: project, logName: "val/loss" })).status, 404);
    assert.equal((await other.client.get("/api/runs/metric-names", { projectName: project })).status, 404);
    assert.equal(
      (await other.client.get("/api/runs/compare", { runIds: String(runs[0]), projectName: project, logName: "val/loss" })).status,
      404,
    );
    const mine = await other.client.createRun({ projectName: project });
    const compare = await other.client.get("/api/runs/compare", {
      runIds: `${runs[0]},${mine.runId}`,
      projectName: project,
      logName: "val/loss",
    });
    assert.deepEqual(
      compare.body.runs.map((r: any) => r.runId),
      [mine.runId],
    );
  });
});
