import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const line = (lineNumber: number, message: string, logType = "INFO", step?: number) =>
  JSON.stringify({ time: 1_700_000_000_000 + lineNumber, message, lineNumber, logType, ...(step === undefined ? {} : { step }) });

describe("POST /ingest/logs and GET /api/runs/logs", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("stores lines verbatim, never duplicates a re-sent batch, and pages by line number", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const body = [line(2, "epoch 1\r\tloss=0.5 ✓", "PRINT", 7), line(1, "starting"), line(3, "boom", "ERROR")].join("\n");
    assert.deepEqual((await ingest(client, "logs", run, body)).body, { accepted: 3 });
    assert.deepEqual((await ingest(client, "logs", run, body)).body, { accepted: 3 });

    const all = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" });
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 3);
    assert.deepEqual(all.body.logs.map((l: any) => [l.lineNumber, l.message, l.logType, l.step]), [
      [1, "starting", "INFO", null],
      [2, "epoch 1\r\tloss=0.5 ✓", "PRINT", 7],
      [3, "boom", "ERROR", null],
    ]);
    assert.equal(all.body.logs[0].time, new Date(1_700_000_000_001).toISOString());

    const errors = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", logType: "ERROR" });
    assert.deepEqual([errors.body.total, errors.body.logs.length], [1, 1]);
    const page = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", limit: 1, offset: 1 });
    assert.deepEqual([page.body.total, page.body.logs[0].lineNumber], [3, 2]);
    for (const bad of [{ limit: 0 }, { limit: 10001 }, { offset: -1 }, { logType: "LOUD" }]) {
      assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", ...bad })).status, 400, JSON.stringify(bad));
    }
  });

  it("stores nothing of a batch with a bad line", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const response = await ingest(client, "logs", run, [line(1, "ok"), '{"time":1,"message":"x","lineNumber":2,"logType":"SHOUT"}'].join("\n"));
    assert.equal(response.status, 400);
    assert.match(response.body.error, /^line 2: logType/);
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).body.total, 0);
  });

  it("keeps other organizations out", async () => {
    const { client } = await makeOrg(test);
    const other = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    await ingest(client, "logs", run, line(1, "secret"));
    assert.equal((await ingest(other.client, "logs", run, line(2, "intrusion"))).status, 404);
    assert.equal((await other.client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).status, 404);
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).body.total, 1);
  });
});

describe("POST /ingest/data and GET /api/runs/data", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("stores rows as given, one per (logName, step), and lists their names by data type", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "data" });
    const row = (step: number, logName: string, dataType: string, data: string) => JSON.stringify({ time: 5, step, logName, dataType, data });
    const body = [row(0, "weights/hist", "HISTOGRAM", '{"bins":[1,2]}'), row(0, "samples", "string-series", "hello"), row(1, "samples", "string-series", "world")].join("\n");
    assert.deepEqual((await ingest(client, "data", run, body)).body, { accepted: 3 });
    assert.deepEqual((await ingest(client, "data", run, row(1, "samples", "string-series", "WORLD"))).body, { accepted: 1 });

    const samples = await client.get("/api/runs/data", { runId: run.runId, projectName: "data", logName: "samples" });
    assert.deepEqual(samples.body.rows.map((r: any) => [r.step, r.data, r.dataType, r.logGroup]), [
      [0, "hello", "string-series", ""],
      [1, "WORLD", "string-series", ""],
    ]);
    const all = await client.get("/api/runs/data", { runId: run.runId, projectName: "data" });
    assert.equal(all.body.rows.length, 3);
    const details = await client.get(`/api/runs/details/${run.runId}`);
    assert.deepEqual(details.body.logNames, [
      { logName: "samples", logType: "TEXT", logGroup: null },
      { logName: "weights/hist", logType: "HISTOGRAM", logGroup: "weights" },
    ]);
  });
});
