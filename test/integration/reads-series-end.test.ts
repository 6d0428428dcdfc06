import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * The end of a series (docs/api.md, "The end of a series"): statistics, comparison and leaderboard
 * say when a metric's last point is NaN or ±Inf, beside the last finite value they rank by.
 */
describe("the last point of a series, of any kind", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  const project = "diverging";
  const ids: Record<string, number> = {};

  const write = async (name: string, points: [number, number][]) => {
    const run = { runId: ids[name]!, projectName: project };
    const response = await ingest(org.client, "metrics", run, toNdjson(points.map(([step, value]) => ({ step, data: { loss: value } }))));
    assert.equal(response.status, 200);
  };

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    for (const name of ["nan-end", "inf-end", "healthy", "healed", "only-nan"]) {
      ids[name] = (await org.client.createRun({ projectName: project, runName: name })).runId;
    }
    const finite = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i): [number, number] => [from + i, 1 / (from + i + 1)]);
    await write("nan-end", [...finite(0, 1880), [1880, NaN]]);
    await write("inf-end", [...finite(0, 10), [10, NaN], [11, 0.04], [12, Infinity]]);
    await write("healthy", finite(0, 20));
    // Ends in -Inf, then a retry writes a finite value at the same step: healthy again.
    await write("healed", [...finite(0, 5), [5, -Infinity]]);
    await write("healed", [[5, 0.125]]);
    await write("only-nan", [
      [0, NaN],
      [1, NaN],
    ]);
    const fork = await org.client.createRun({
      projectName: project,
      runName: "fork-of-nan-end",
      forkRunId: ids["nan-end"]!,
      forkStep: 1880,
    });
    ids.fork = fork.runId;
  });
  after(async () => test.close());

  it("/statistics gives the last point beside the last finite value", async () => {
    const lastOf = async (name: string) => {
      const response = await org.client.get(`/api/runs/statistics?projectName=${project}&runId=${ids[name]}`);
      assert.equal(response.status, 200);
      const [metric] = response.body.metrics;
      return { last: metric.last, lastPoint: metric.lastPoint };
    };
    assert.deepEqual(await lastOf("nan-end"), {
      last: { step: 1879, value: 1 / 1880 },
      lastPoint: { step: 1880, value: 0, valueFlag: "NaN" },
    });
    assert.deepEqual(await lastOf("inf-end"), { last: { step: 11, value: 0.04 }, lastPoint: { step: 12, value: 0, valueFlag: "Inf" } });
    assert.deepEqual(await lastOf("healthy"), { last: { step: 19, value: 1 / 20 }, lastPoint: { step: 19, value: 1 / 20, valueFlag: "" } });
    assert.deepEqual(await lastOf("healed"), { last: { step: 5, value: 0.125 }, lastPoint: { step: 5, value: 0.125, valueFlag: "" } });
    assert.deepEqual(await lastOf("only-nan"), { last: null, lastPoint: { step: 1, value: 0, valueFlag: "NaN" } });
    // A fork inherits its parent's points up to the fork step, the NaN at 1880 included.
    assert.deepEqual(await lastOf("fork"), {
      last: { step: 1879, value: 1 / 1880 },
      lastPoint: { step: 1880, value: 0, valueFlag: "NaN" },
    });
  });

  it("/compare gives each run's last point; final stays the last finite value", async () => {
    const runIds = ["nan-end", "healthy", "inf-end"].map((name) => ids[name]).join(",");
    const response = await org.client.get(`/api/runs/compare?projectName=${project}&logName=loss&runIds=${runIds}`);
    assert.equal(response.status, 200);
    const stats = response.body.runs.map((run: { stats: { final: number; lastPoint: unknown } }) => [run.stats.final, run.stats.lastPoint]);
    assert.deepEqual(stats, [
      [1 / 1880, { step: 1880, value: 0, valueFlag: "NaN" }],
      [1 / 20, { step: 19, value: 1 / 20, valueFlag: "" }],
      [0.04, { step: 12, value: 0, valueFlag: "Inf" }],
    ]);
  });

  it("the leaderboard ranks by the last finite value and marks the runs that ended non-finite", async () => {
    const response = await org.client.get(`/api/runs/leaderboard?projectName=${project}&logName=loss&direction=ASC`);
    assert.equal(response.status, 200);
    const rows = response.body.runs.map((run: { runName: string; value: number; lastPoint: { valueFlag: string } }) => [
      run.runName,
      run.value,
      run.lastPoint.valueFlag,
    ]);
    assert.deepEqual(rows, [
      ["nan-end", 1 / 1880, "NaN"],
      ["fork-of-nan-end", 1 / 1880, "NaN"],
      ["inf-end", 0.04, "Inf"],
      ["healthy", 1 / 20, ""],
      ["healed", 0.125, ""],
    ]);
  });

  it("the run list marks, on request, each run's metrics whose series ended non-finite", async () => {
    // A second metric that ends healthy on the NaN run: only `loss` is listed for it.
    const run = { runId: ids["nan-end"]!, projectName: project };
    assert.equal((await ingest(org.client, "metrics", run, toNdjson([{ step: 0, data: { acc: 0.5 } }]))).status, 200);
    const listed = async (query: string) => {
      const response = await org.client.get(`/api/runs/list?projectName=${project}&limit=200${query}`);
      assert.equal(response.status, 200);
      return new Map(response.body.runs.map((entry: { name: string; divergedMetrics?: unknown }) => [entry.name, entry.divergedMetrics]));
    };
    for (const flag of ["true", "1"]) {
      const diverged = await listed(`&includeDiverged=${flag}`);
      assert.deepEqual(Object.fromEntries(diverged), {
        "nan-end": [{ logName: "loss", step: 1880, valueFlag: "NaN" }],
        "inf-end": [{ logName: "loss", step: 12, valueFlag: "Inf" }],
        healthy: [],
        healed: [],
        "only-nan": [{ logName: "loss", step: 1, valueFlag: "NaN" }],
        "fork-of-nan-end": [{ logName: "loss", step: 1880, valueFlag: "NaN" }],
      });
    }
    for (const query of ["", "&includeDiverged=false"])
      assert.ok(
        [...(await listed(query)).values()].every((value) => value === undefined),
        "without the parameter the field is left out",
      );
  });

  it("another organization sees none of it", async () => {
    const other = await makeOrg(test);
    assert.equal((await other.client.get(`/api/runs/statistics?projectName=${project}&runId=${ids["nan-end"]}`)).status, 404);
    const compared = await other.client.get(`/api/runs/compare?projectName=${project}&logName=loss&runIds=${ids["nan-end"]}`);
    assert.equal(compared.status, 404);
    assert.equal((await other.client.get(`/api/runs/list?projectName=${project}&includeDiverged=true`)).status, 404);
  });
});
