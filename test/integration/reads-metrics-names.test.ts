import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * /metrics with `logNames`: the series of several chosen metrics of a run in one request (a live
 * chart page asks for all of its visible charts at once), paged and sampled like any /metrics read.
 */
describe("GET /api/runs/metrics?logNames=…", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  let runId: number;
  const project = "chosen";
  const names = ["train/loss", "train/lr", "val/loss", "val/acc,top1", "sys/gpu"];

  const read = (params: [string, string][], client = org.client) => {
    const query = new URLSearchParams([["runId", String(runId)], ["projectName", project], ...params]);
    return client.get(`/api/runs/metrics?${query}`);
  };
  const namesOf = (metrics: { logName: string }[]) => [...new Set(metrics.map((point) => point.logName))];

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    runId = (await org.client.createRun({ projectName: project })).runId;
    const lines = Array.from({ length: 50 }, (_, step) => ({
      step,
      data: Object.fromEntries(names.map((name, i) => [name, step === 25 && i === 0 ? Infinity : step * (i + 1)])),
    }));
    assert.equal((await ingest(org.client, "metrics", { runId, projectName: project }, toNdjson(lines))).status, 200);
  });
  after(async () => test.close());

  it("answers exactly the named metrics, in name order, each with its own window and sample", async () => {
    const response = await read([
      ["logNames", "val/loss"],
      ["logNames", "train/loss"],
      ["logNames", "val/acc,top1"],
      ["logNames", "no/such"],
      ["stepMin", "20"],
      ["limit", "10"],
    ]);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(namesOf(response.body.metrics), ["train/loss", "val/acc,top1", "val/loss"]);
    assert.equal(response.body.nextOffset, null);
    const loss = response.body.metrics.filter((point: { logName: string }) => point.logName === "train/loss");
    assert.ok(loss.length <= 10 && loss.every((point: { step: number }) => point.step >= 20));
    assert.ok(
      loss.some((point: { step: number; valueFlag: string }) => point.step === 25 && point.valueFlag === "Inf"),
      "the sample keeps the +Inf",
    );
  });

  it("one name works as a list of one; with logGroup only the metrics matching both", async () => {
    assert.deepEqual(namesOf((await read([["logNames", "sys/gpu"]])).body.metrics), ["sys/gpu"]);
    const both = await read([
      ["logNames", "train/lr"],
      ["logNames", "val/loss"],
      ["logGroup", "train"],
    ]);
    assert.deepEqual(namesOf(both.body.metrics), ["train/lr"]);
  });

  it("rejects an empty name and more than 500 names, and another organization's run is not found", async () => {
    assert.equal((await read([["logNames", ""]])).status, 400);
    const many = Array.from({ length: 501 }, (_, i): [string, string] => ["logNames", `m${i}`]);
    const tooMany = await read(many);
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.error, /logNames/);
    const other = await makeOrg(test);
    assert.equal((await read([["logNames", "train/loss"]], other.client)).status, 404);
  });
});
