import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { ManualClock, makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Ingest is activity (docs/api.md, "Last update and last activity"): a live run's "Last update" and its project's "Last activity" move. */
describe("ingest moves the run's and the project's updatedAt", () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  let run: { runId: number; projectName: string };

  const updatedAt = async () => {
    const details = await org.client.get(`/api/runs/details/${run.runId}`);
    const projects = await org.client.get("/api/runs/projects");
    const project = projects.body.projects.find((p: { name: string }) => p.name === run.projectName);
    return { run: Date.parse(details.body.updatedAt) - clock.now(), project: Date.parse(project.updatedAt) - clock.now() };
  };

  before(async () => {
    test = await startTestServer({ clock });
    org = await makeOrg(test);
    run = await org.client.createRun({ projectName: "busy", runName: "live" });
  });
  after(async () => test.close());

  it("each metrics, logs or data batch sets the run's updatedAt; the project's moves at most once a second", async () => {
    clock.advance(60_000);
    assert.deepEqual(await updatedAt(), { run: -60_000, project: -60_000 });

    assert.equal((await ingest(org.client, "metrics", run, toNdjson([{ step: 0, data: { loss: 1 } }]))).status, 200);
    assert.deepEqual(await updatedAt(), { run: 0, project: 0 });

    clock.advance(400);
    const line = JSON.stringify({ time: clock.now(), lineNumber: 0, logType: "INFO", message: "hello" });
    assert.equal((await ingest(org.client, "logs", run, line)).status, 200);
    assert.deepEqual(await updatedAt(), { run: 0, project: -400 }, "the project's row is not rewritten within a second");

    clock.advance(600);
    const row = JSON.stringify({ time: clock.now(), step: 1, logName: "table", dataType: "table", data: "{}" });
    assert.equal((await ingest(org.client, "data", run, row)).status, 200);
    assert.deepEqual(await updatedAt(), { run: 0, project: 0 });
  });

  it("a rejected batch is no activity", async () => {
    clock.advance(5000);
    assert.equal((await ingest(org.client, "metrics", run, "{not json")).status, 400);
    assert.deepEqual(await updatedAt(), { run: -5000, project: -5000 });
  });
});
