import assert from "node:assert/strict";
import { type IncomingMessage, request } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { LocalBlobStore } from "../../src/blobs/local.js";
import { MAX_EPOCH_MS } from "../../src/domain/time.js";
import { UploadRecorder } from "../../src/services/file-uploads.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

/**
 * The second hardening round (issue 20): requests that could crash, freeze or poison the service
 * through MLflow's routes, PostgreSQL or `copy`. Each test names the defect it holds; all run on
 * both stores.
 */

const API = "/api/2.0/mlflow";

describe("hardening, second round", () => {
  let test: TestServer;
  let client: ApiClient;
  let orgId: string;
  before(async () => {
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    orgId = org.organization.id;
  });
  after(async () => test.close());

  const mlflow = async (path: string, body: Record<string, unknown>) => client.post(`${API}${path}`, body);
  const experiment = async (name: string) => (await mlflow("/experiments/create", { name })).body.experiment_id as string;
  const run = async (experimentId: string, runName: string) =>
    (await mlflow("/runs/create", { experiment_id: experimentId, run_name: runName, start_time: 1 })).body.run.info.run_id as string;
  const invalidParameter = (response: { status: number; body: { error_code?: string; message?: string } }, message: RegExp) => {
    assert.equal(response.status, 400, JSON.stringify(response.body));
    assert.equal(response.body.error_code, "INVALID_PARAMETER_VALUE");
    assert.match(response.body.message ?? "", message);
  };

  it("H1: runs/search lists each run once however often an experiment is named, and caps experiments and order_by terms", async () => {
    const first = await experiment("h1-a");
    const second = await experiment("h1-b");
    const runs = [await run(first, "a1"), await run(first, "a2"), await run(second, "b1")];
    const repeated = await mlflow("/runs/search", { experiment_ids: [...Array(5000).fill(first), second, first, second] });
    assert.equal(repeated.status, 200, JSON.stringify(repeated.body));
    assert.deepEqual(repeated.body.runs.map((r: { info: { run_id: string } }) => r.info.run_id).sort(), [...runs].sort());

    const many = Array.from({ length: 1001 }, (_, i) => String(i + 1));
    invalidParameter(await mlflow("/runs/search", { experiment_ids: many }), /at most 1000 distinct experiments/);
    const terms = Array(11).fill("attributes.start_time DESC");
    invalidParameter(await mlflow("/runs/search", { experiment_ids: [first], order_by: terms }), /at most 10 terms/);
    invalidParameter(await mlflow("/experiments/search", { order_by: Array(11).fill("name") }), /at most 10 terms/);
    const clauses = Array.from({ length: 101 }, (_, i) => `metrics.m${i} > 0`).join(" AND ");
    invalidParameter(await mlflow("/runs/search", { experiment_ids: [first], filter: clauses }), /more than 100 clauses/);
  });

  it("H2: LIKE and ILIKE match in linear time, in run and experiment search", async () => {
    const id = await experiment(`h2-${"a".repeat(60)}`);
    await run(id, "a".repeat(60));
    const pattern = `${"%a".repeat(30)}%b`;
    const runs = await mlflow("/runs/search", { experiment_ids: [id], filter: `attributes.run_name LIKE '${pattern}'` });
    assert.deepEqual([runs.status, runs.body.runs ?? []], [200, []]);
    const experiments = await mlflow("/experiments/search", { filter: `name ILIKE '${pattern}'` });
    assert.equal(experiments.status, 200);
    assert.deepEqual(experiments.body.experiments ?? [], []);
    const found = await mlflow("/experiments/search", { filter: `name LIKE 'h2-%a_'` });
    assert.deepEqual(
      found.body.experiments.map((e: { experiment_id: string }) => e.experiment_id),
      [id],
    );
    assert.equal((await client.get("/api/health")).status, 200);
  });

  it("H3: refuses MLflow times a date cannot hold, and a stored one never turns a read into a 500", async () => {
    const id = await experiment("h3");
    const runId = await run(id, "r");
    const beyond = String(MAX_EPOCH_MS + 1);
    invalidParameter(await mlflow("/runs/create", { experiment_id: id, start_time: beyond }), /start_time.*at most/);
    invalidParameter(await mlflow("/runs/update", { run_id: runId, status: "FINISHED", end_time: beyond }), /end_time/);
    invalidParameter(
      await mlflow("/runs/log-metric", { run_id: runId, key: "m", value: 1, timestamp: Number.MAX_SAFE_INTEGER, step: 0 }),
      /timestamp/,
    );
    invalidParameter(
      await mlflow("/runs/log-batch", { run_id: runId, metrics: [{ key: "m", value: 1, timestamp: beyond, step: 0 }] }),
      /timestamp/,
    );
    assert.equal((await mlflow("/runs/create", { experiment_id: id, start_time: String(MAX_EPOCH_MS) })).status, 200);

    // A row written before the edge refused such times (an older version, or another tool on the database).
    const store = test.server.store;
    const { run: stored } = await store.createRun(
      orgId,
      { projectName: "h3", name: "old", tags: [], createdAt: Number.MAX_SAFE_INTEGER, now: Date.now() },
      { userId: null, apiKeyId: null },
    );
    await store.appendMetricPoints(
      orgId,
      stored.id,
      [{ logName: "m", steps: [0], values: [1], times: [Number.MAX_SAFE_INTEGER] }],
      Date.now(),
    );
    const list = await client.get("/api/runs/list", { projectName: "h3" });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const shown = list.body.runs.find((r: { id: number }) => r.id === stored.id);
    assert.equal(shown.createdAt, new Date(MAX_EPOCH_MS).toISOString(), "shown as the latest time a date holds");
    const board = await client.get("/api/runs/leaderboard", { projectName: "h3", logName: "m" });
    assert.equal(board.status, 200, JSON.stringify(board.body));
    const metrics = await client.get("/api/runs/metrics", { projectName: "h3", runId: String(stored.id), logName: "m" });
    assert.equal(metrics.status, 200, JSON.stringify(metrics.body));
    const details = await client.get(`/api/runs/details/${stored.id}`);
    assert.equal(details.status, 200, JSON.stringify(details.body));
  });

  it("M1, L4: NUL and unpaired surrogates are a 400 naming the field, the same on both stores", async () => {
    const nul = await client.post("/api/runs/create", { projectName: "m1", runName: "a\u0000b" });
    assert.equal(nul.status, 400, JSON.stringify(nul.body));
    assert.match(nul.body.error, /^body.runName: text must not contain U\+0000 \(NUL\) or an unpaired surrogate/);
    const surrogate = await client.post("/api/runs/create", { projectName: "m1", runName: "a\ud800" });
    assert.equal(surrogate.status, 400, "refused, not replaced by U+FFFD");
    const config = await client.post("/api/runs/create", { projectName: "m1", runName: "r", config: JSON.stringify({ k: "\u0000" }) });
    assert.match(config.body.error, /^config\.k: text must not contain/);
    const search = await client.get("/api/runs/list", { projectName: "m1", search: "a\u0000" });
    assert.equal(search.status, 400);
    assert.match(search.body.error, /^search \(querystring\): text must not contain/);
    const mlflowName = await mlflow("/experiments/create", { name: "e\u0000" });
    invalidParameter(mlflowName, /text must not contain U\+0000/);
    assert.equal((await client.get("/api/runs/projects")).status, 200);
  });

  it("M1: JSON that MLflow's routes parse themselves (a double-encoded body, model_json) keeps the depth and text limits", async () => {
    const runId = await run(await experiment("nested"), "r");
    const deep = `${"[".repeat(100)}${"]".repeat(100)}`;
    const doubled = await client.raw(
      "POST",
      `${API}/runs/log-model`,
      JSON.stringify(`{"run_id":"${runId}","model_json":"{}","x":${deep}}`),
      {
        "content-type": "application/json",
      },
    );
    invalidParameter(doubled, /body: nested deeper than 64 levels/);
    invalidParameter(
      await mlflow("/runs/log-model", { run_id: runId, model_json: `{"a":${deep}}` }),
      /model_json: nested deeper than 64 levels/,
    );
    const nul = await client.raw(
      "POST",
      `${API}/runs/set-tag`,
      JSON.stringify(JSON.stringify({ run_id: runId, key: "k", value: "a\u0000" })),
      {
        "content-type": "application/json",
      },
    );
    invalidParameter(nul, /text must not contain U\+0000/);
  });

  it("M2: a run whose stored tags hold a NUL (written before the edge refused it) never fails a tag-filtered list", async () => {
    const store = test.server.store;
    const actor = { userId: null, apiKeyId: null };
    await store.createRun(orgId, { projectName: "m2", name: "bad", tags: ["ok", "bad\u0000", "\ud800"], now: Date.now() }, actor);
    const { run: good } = await store.createRun(orgId, { projectName: "m2", name: "good", tags: ["ok"], now: Date.now() }, actor);
    const list = await client.get("/api/runs/list", { projectName: "m2", tags: "ok" });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.ok(list.body.runs.some((r: { id: number }) => r.id === good.id));
    const all = await client.get("/api/runs/list", { projectName: "m2" });
    assert.equal(all.body.runs.length, 2, "both runs list without a tag filter");
  });

  it("M3: what a run accumulates (config, MLflow's params, tags, dataset inputs, model history) is bounded: past 1,000,000 characters a 413 that changes nothing", async () => {
    const created = await client.post("/api/runs/create", { projectName: "m3", runName: "r" });
    const runId = created.body.runId as number;
    const big = (key: string) => JSON.stringify({ [key]: "x".repeat(600_000) });
    assert.equal((await client.post("/api/runs/config/update", { runId, config: big("a") })).status, 200);
    const over = await client.post("/api/runs/config/update", { runId, config: big("b") });
    assert.equal(over.status, 413, JSON.stringify(over.body).slice(0, 300));
    assert.match(over.body.error, /config: a run's config may hold at most 1000000 characters/);
    const details = await client.get(`/api/runs/details/${runId}`);
    assert.deepEqual(Object.keys(details.body.config), ["a"], "the refused update changed nothing");

    const mlflowRun = await run(await experiment("m3-mlflow"), "r");
    const params = (batch: number) => Array.from({ length: 100 }, (_, i) => ({ key: `p${batch}-${i}`, value: "v".repeat(6000) }));
    assert.equal((await mlflow("/runs/log-batch", { run_id: mlflowRun, params: params(0) })).status, 200);
    const tooManyParams = await mlflow("/runs/log-batch", { run_id: mlflowRun, params: params(1) });
    assert.equal(tooManyParams.status, 413, JSON.stringify(tooManyParams.body).slice(0, 300));
    assert.match(tooManyParams.body.message, /params: a run's params may hold at most/);
    const model = JSON.stringify({ flavors: { blob: "m".repeat(400_000) } });
    const models = [];
    for (let i = 0; i < 3; i++) models.push((await mlflow("/runs/log-model", { run_id: mlflowRun, model_json: model })).status);
    assert.deepEqual(models, [200, 200, 413], "the model history tag is bounded with the tags");
    // Three datasets (a dataset logged again is one input, as on MLflow's server).
    const dataset = (i: number) => ({
      dataset: { name: "d", digest: `x${i}`, source_type: "local", source: "s", schema: "s".repeat(400_000) },
    });
    const inputs = [];
    for (let i = 0; i < 3; i++) inputs.push((await mlflow("/runs/log-inputs", { run_id: mlflowRun, datasets: [dataset(i)] })).status);
    assert.deepEqual(inputs, [200, 200, 413]);
    const got = await client.get(`${API}/runs/get`, { run_id: mlflowRun });
    assert.equal(got.body.run.data.params.length, 100, "the refused batch stored none of its params");
    assert.equal(got.body.run.inputs.dataset_inputs.length, 2);
  });

  it("M4: a run has at most 20,000 metrics, and an MLflow search page ends early rather than carry more than 100,000", async () => {
    const id = await experiment("m4");
    const runIds: string[] = [];
    for (let r = 0; r < 6; r++) runIds.push(await run(id, `r${r}`));
    const projectName = "m4";
    const lines = (first: number) =>
      [0, 1]
        .map((half) =>
          JSON.stringify({
            time: 1,
            step: 0,
            data: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`m${first + half * 10_000 + i}`, i])),
          }),
        )
        .join("\n");
    const numericIds = (await client.get("/api/runs/list", { projectName, limit: "10" })).body.runs.map((r: { id: number }) => r.id);
    assert.equal(numericIds.length, 6);
    for (const runId of numericIds) assert.equal((await ingest(client, "metrics", { runId, projectName }, lines(0))).status, 200);
    const over = await ingest(client, "metrics", { runId: numericIds[0], projectName }, '{"time":1,"step":1,"data":{"m0":1,"one-more":1}}');
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.match(over.body.error, /a run may have at most 20000 metrics: this one has 20000, and this batch names 1 new ones/);

    const first = await mlflow("/runs/search", { experiment_ids: [id], max_results: 100 });
    assert.equal(first.status, 200);
    assert.equal(first.body.runs.length, 5, "5 runs × 20,000 metrics fill the page's budget");
    assert.equal(first.body.runs[0].data.metrics.length, 20_000);
    const second = await mlflow("/runs/search", { experiment_ids: [id], max_results: 100, page_token: first.body.next_page_token });
    assert.equal(second.body.runs.length, 1);
    assert.equal(second.body.next_page_token, undefined);
    const seen = [...first.body.runs, ...second.body.runs].map((r: { info: { run_id: string } }) => r.info.run_id).sort();
    assert.deepEqual(seen, [...runIds].sort());
  });

  it("M5: a large body is written in slices, whole; past the large-body budget one is answered 503 with Retry-After before it is read", async () => {
    const created = await client.post("/api/runs/create", { projectName: "m5", runName: "r" });
    const target = { runId: created.body.runId as number, projectName: "m5" };
    // 130,000 points over 26 metrics: three slices, each metric's steps split across them.
    const lines = Array.from({ length: 5000 }, (_, step) =>
      JSON.stringify({
        time: 1_700_000_000_000 + step,
        step,
        data: Object.fromEntries(Array.from({ length: 26 }, (_, m) => [`m${m}`, step + m])),
      }),
    );
    const stored = await ingest(client, "metrics", target, lines.join("\n"));
    assert.deepEqual([stored.status, stored.body.accepted], [200, 130_000]);
    const stats = await client.get("/api/runs/statistics", { runId: String(target.runId), projectName: "m5" });
    const m7 = stats.body.metrics.find((m: { logName: string }) => m.logName === "m7");
    assert.deepEqual([stats.body.metrics.length, m7.count, m7.min, m7.max, m7.last.value], [26, 5000, 7, 5006, 5006]);

    // Two bodies at the 64 MiB limit, still arriving, hold the budget: a third large body is refused unread.
    const arrived: IncomingMessage[] = [];
    const onRequest = (incoming: IncomingMessage) => {
      if (incoming.headers["content-length"] === String(64 * 1024 * 1024)) arrived.push(incoming);
    };
    test.server.app.server.on("request", onRequest);
    const holders = [0, 1].map(() => {
      const held = request(`${test.url}/ingest/metrics`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${client.key}`,
          "x-run-id": String(target.runId),
          "x-project-name": "m5",
          "content-length": String(64 * 1024 * 1024),
        },
      });
      held.on("error", () => {});
      held.write(`${lines[0]}\n`);
      return held;
    });
    // The server runs in this process: a body it admitted is being read (its parser listens for
    // data; a refused one is drained without a listener). A probe would compete for the budget.
    await waitFor(() => arrived.length === 2 && arrived.every((incoming) => incoming.listenerCount("data") > 0), {
      what: "the two bodies to be admitted against the budget",
    });
    test.server.app.server.off("request", onRequest);
    const large = `${lines.slice(0, 400).join("\n")}\n${" ".repeat(2 * 1024 * 1024)}`;
    const refused = await ingest(client, "metrics", target, large);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.match(refused.body.error, /server busy: 128 MiB of large ingest bodies/);
    assert.equal((await ingest(client, "metrics", target, lines[1]!)).status, 200, "a small body is always read");
    for (const held of holders) held.destroy();
    // Refused (503, nothing written) until the server has seen both connections close.
    await waitFor(async () => (await ingest(client, "metrics", target, large)).status === 200, {
      what: "a large body read again: the budget is given back when a body's connection closes",
    });
  });

  it("M7: MLflow names keep Stepwise's limits, so every name written through MLflow lists and opens through Stepwise", async () => {
    invalidParameter(await mlflow("/experiments/create", { name: "e".repeat(256) }), /'name' exceeds the maximum length of 255/);
    const longest = "e".repeat(255);
    const id = await experiment(longest);
    invalidParameter(await mlflow("/experiments/update", { experiment_id: id, new_name: "u".repeat(20_000) }), /'new_name' exceeds/);
    invalidParameter(
      await mlflow("/runs/create", { experiment_id: id, run_name: "r".repeat(1001) }),
      /'run_name' exceeds the maximum length of 1000/,
    );
    invalidParameter(
      await mlflow("/runs/create", { experiment_id: id, user_id: "u".repeat(256) }),
      /'user_id' exceeds the maximum length of 255/,
    );
    const runId = await run(id, "r".repeat(1000));
    invalidParameter(await mlflow("/runs/update", { run_id: runId, run_name: "r".repeat(1001) }), /'run_name' exceeds/);
    invalidParameter(
      await mlflow("/runs/set-tag", { run_id: runId, key: "mlflow.runName", value: "r".repeat(1001) }),
      /mlflow.runName' exceeds/,
    );
    const list = await client.get("/api/runs/list", { projectName: longest });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.runs.map((r: { name: string }) => r.name.length),
      [1000],
    );
  });

  it("L1: a project whose name starts with a tab, NBSP or ideographic space gets display IDs that look up", async () => {
    for (const projectName of ["\tindented", "\u00a0nbsp project", "\u3000画像分類"]) {
      const created = await client.post("/api/runs/create", { projectName, runName: "r" });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const displayId = created.body.displayId as string;
      assert.doesNotMatch(displayId, /\s/u);
      const found = await client.get(`/api/runs/details/by-display-id/${encodeURIComponent(displayId)}`, { projectName });
      assert.equal(found.status, 200, `${displayId}: ${JSON.stringify(found.body)}`);
      assert.equal(found.body.id, created.body.runId);
    }
  });

  it("L2: a deleted experiment takes no new run through either protocol, even racing its delete", async () => {
    const id = await experiment("l2");
    await run(id, "before");
    assert.equal((await mlflow("/experiments/delete", { experiment_id: id })).status, 200);
    const stepwise = await client.post("/api/runs/create", { projectName: "l2", runName: "after" });
    assert.equal(stepwise.status, 409, JSON.stringify(stepwise.body));
    assert.match(stepwise.body.error, /project 'l2' is deleted/);
    invalidParameter(await mlflow("/runs/create", { experiment_id: id }), /must be in the 'active' state/);
    assert.equal((await mlflow("/experiments/restore", { experiment_id: id })).status, 200);
    assert.equal((await client.post("/api/runs/create", { projectName: "l2", runName: "restored" })).status, 200);

    // Creates racing deletes: afterwards no deleted experiment holds an active run.
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => experiment(`l2-race-${i}`)));
    await Promise.all(
      ids.flatMap((experimentId, i) => [
        ...Array.from({ length: 4 }, () => mlflow("/runs/create", { experiment_id: experimentId })),
        mlflow("/experiments/delete", { experiment_id: experimentId }),
        client.post("/api/runs/create", { projectName: `l2-race-${i}`, runName: "stepwise" }),
      ]),
    );
    const all = await mlflow("/runs/search", { experiment_ids: ids, run_view_type: "ALL", max_results: 1000 });
    const active = all.body.runs.filter((r: { info: { lifecycle_stage: string } }) => r.info.lifecycle_stage === "active");
    assert.deepEqual(active, [], "every run of a deleted experiment is deleted");
  });

  it("L3: two uploads to one file, their records in the order that lost, list the size of the bytes that stayed", async () => {
    const created = await client.post("/api/runs/create", { projectName: "l3", runName: "r" });
    const run = { runId: created.body.runId as number, projectName: "l3" };
    const registered = await client.raw(
      "POST",
      "/files",
      JSON.stringify({ files: [{ fileName: "f.bin", fileType: "bin", fileSize: 1, time: 1, step: 0, logName: "files" }] }),
      { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": "l3" },
    );
    const fileId = Number(new URL(Object.values(registered.body.files[0])[0] as string).pathname.split("/").at(-1));
    const file = (await test.server.store.getFile(fileId))!;
    // The server's own blob store and store, driven in the order two concurrent uploads can take:
    // A's bytes land, then B's bytes land and B records, then A records.
    const blobs = new LocalBlobStore(join(test.dataDir, "files"));
    const ref = { orgId: file.orgId, projectId: file.projectId, runId: file.runId, fileId };
    const uploads = new UploadRecorder(test.server.store, blobs);
    await blobs.write(ref, Readable.from([Buffer.alloc(1000, 1)]), 1e6);
    await blobs.write(ref, Readable.from([Buffer.alloc(10, 2)]), 1e6);
    await uploads.record(fileId, ref, Date.now());
    await uploads.record(fileId, ref, Date.now());
    const [listed] = (await client.get("/api/runs/files", { runId: String(run.runId), projectName: "l3" })).body.files;
    const bytes = Buffer.from(await (await fetch(listed.url)).arrayBuffer());
    assert.deepEqual([listed.fileSize, bytes.length], [10, 10], "the listed size is the stored bytes'");
  });

  it("L6: a JSON number that overflows to infinity is refused on Stepwise's ingest and MLflow's metric routes", async () => {
    const created = await client.post("/api/runs/create", { projectName: "l6", runName: "r" });
    const target = { runId: created.body.runId as number, projectName: "l6" };
    const overflow = await ingest(client, "metrics", target, '{"time":1,"step":0,"data":{"loss":1e400}}');
    assert.equal(overflow.status, 400, JSON.stringify(overflow.body));
    assert.match(overflow.body.error, /double range/);
    assert.equal((await ingest(client, "metrics", target, '{"time":1,"step":0,"data":{"loss":Infinity}}')).status, 200);

    const runId = await run(await experiment("l6-mlflow"), "r");
    for (const body of [
      `{"run_id":"${runId}","key":"m","value":1e400,"timestamp":1,"step":0}`,
      `{"run_id":"${runId}","key":"m","value":-1e400,"timestamp":1,"step":0}`,
    ]) {
      const response = await client.raw("POST", `${API}/runs/log-metric`, body, { "content-type": "application/json" });
      invalidParameter(response, /expected a number/);
    }
    const batch = await client.raw(
      "POST",
      `${API}/runs/log-batch`,
      `{"run_id":"${runId}","metrics":[{"key":"m","value":1e400,"timestamp":1,"step":0}]}`,
      { "content-type": "application/json" },
    );
    invalidParameter(batch, /expected a number/);
    const history = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: "m" });
    assert.deepEqual(history.body.metrics ?? [], [], "nothing stored");
  });
});
