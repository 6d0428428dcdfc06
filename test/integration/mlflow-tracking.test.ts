import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** MLflow's REST tracking API over real HTTP, written from MLflow's documented API and the requests its client sends. */

const API = "/api/2.0/mlflow";

async function createExperiment(client: ApiClient, name = `exp-${Math.random().toString(36).slice(2)}`): Promise<string> {
  const response = await client.post(`${API}/experiments/create`, { name });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.experiment_id;
}

async function createRun(client: ApiClient, experimentId: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await client.post(`${API}/runs/create`, {
    experiment_id: experimentId,
    user_id: "ann",
    start_time: 1_700_000_000_000,
    tags: [{ key: "mlflow.source.type", value: "LOCAL" }],
    ...body,
  });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.run.info.run_id;
}

const getRun = async (client: ApiClient, runId: string) => (await client.get(`${API}/runs/get`, { run_id: runId })).body.run;
const asMap = (list: { key: string; value: unknown }[]) => new Map(list.map((item) => [item.key, item.value]));

describe("MLflow's tracking API", () => {
  let test: TestServer;
  let client: ApiClient;
  before(async () => {
    test = await startTestServer();
    client = test.client;
  });
  after(async () => test.close());

  it("creates, gets, renames, tags, deletes and restores experiments; a taken name is RESOURCE_ALREADY_EXISTS", async () => {
    const id = await createExperiment(client, "exp-a");
    assert.match(id, /^\d+$/);
    const got = await client.get(`${API}/experiments/get`, { experiment_id: id });
    assert.equal(got.status, 200);
    assert.deepEqual(
      [got.body.experiment.name, got.body.experiment.lifecycle_stage, got.body.experiment.artifact_location],
      ["exp-a", "active", `mlflow-artifacts:/${id}`],
    );
    const taken = await client.post(`${API}/experiments/create`, { name: "exp-a" });
    assert.deepEqual([taken.status, taken.body.error_code], [400, "RESOURCE_ALREADY_EXISTS"]);
    assert.equal((await client.get(`${API}/experiments/get-by-name`, { experiment_name: "exp-a" })).body.experiment.experiment_id, id);
    const missing = await client.get(`${API}/experiments/get-by-name`, { experiment_name: "nope" });
    assert.deepEqual([missing.status, missing.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);

    assert.equal((await client.post(`${API}/experiments/update`, { experiment_id: id, new_name: "exp-b" })).status, 200);
    await createExperiment(client, "exp-c");
    const clash = await client.post(`${API}/experiments/update`, { experiment_id: id, new_name: "exp-c" });
    assert.deepEqual([clash.status, clash.body.error_code], [400, "RESOURCE_ALREADY_EXISTS"]);

    assert.equal((await client.post(`${API}/experiments/set-experiment-tag`, { experiment_id: id, key: "team", value: "x" })).status, 200);
    assert.equal((await client.post(`${API}/experiments/set-experiment-tag`, { experiment_id: id, key: "gone", value: "y" })).status, 200);
    assert.equal((await client.post(`${API}/experiments/delete-experiment-tag`, { experiment_id: id, key: "gone" })).status, 200);
    const noTag = await client.post(`${API}/experiments/delete-experiment-tag`, { experiment_id: id, key: "gone" });
    assert.equal(noTag.body.error_code, "RESOURCE_DOES_NOT_EXIST");
    const tagged = (await client.get(`${API}/experiments/get`, { experiment_id: id })).body.experiment;
    assert.deepEqual([tagged.name, tagged.tags], ["exp-b", [{ key: "team", value: "x" }]]);

    const inside = await createRun(client, id);
    const elsewhere = await createRun(client, await createExperiment(client));
    const stage = async (runId: string) => (await getRun(client, runId)).info.lifecycle_stage;
    assert.equal((await client.post(`${API}/experiments/delete`, { experiment_id: id })).status, 200);
    assert.equal((await client.get(`${API}/experiments/get`, { experiment_id: id })).body.experiment.lifecycle_stage, "deleted");
    assert.deepEqual([await stage(inside), await stage(elsewhere)], ["deleted", "active"], "as MLflow: its runs are deleted with it");
    const active = await client.post(`${API}/experiments/search`, { max_results: 100 });
    assert.ok(
      !active.body.experiments.some((e: { experiment_id: string }) => e.experiment_id === id),
      "deleted: not among the active ones",
    );
    const deleted = await client.get(`${API}/experiments/search`, { view_type: "DELETED_ONLY" });
    assert.deepEqual(
      deleted.body.experiments.map((e: { experiment_id: string }) => e.experiment_id),
      [id],
    );
    const refused = await client.post(`${API}/runs/create`, { experiment_id: id });
    assert.equal(refused.body.error_code, "INVALID_PARAMETER_VALUE", "no runs in a deleted experiment");
    // As MLflow's server: a deleted experiment is not renamed, nor deleted again; an active one is not restored.
    const errorOf = async (path: string, body: Record<string, unknown>) => {
      const response = await client.post(`${API}/experiments/${path}`, body);
      return [response.status, response.body.error_code, response.body.message];
    };
    assert.deepEqual(await errorOf("update", { experiment_id: id, new_name: "elsewhere" }), [
      500,
      "INVALID_STATE",
      "Cannot rename a non-active experiment.",
    ]);
    assert.deepEqual(await errorOf("delete", { experiment_id: id }), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
      `No Experiment with id=${id} exists`,
    ]);
    assert.equal((await client.post(`${API}/experiments/restore`, { experiment_id: id })).status, 200);
    assert.equal((await client.get(`${API}/experiments/get`, { experiment_id: id })).body.experiment.lifecycle_stage, "active");
    assert.equal(await stage(inside), "active", "and restored with it");
    assert.deepEqual(await errorOf("restore", { experiment_id: id }), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
      `No Experiment with id=${id} exists`,
    ]);
  });

  it("searches experiments by name and tag, ordered, with page tokens", async () => {
    const { client: own } = await makeOrg(test);
    const ids = [];
    for (const name of ["alpha", "beta", "gamma"]) ids.push(await createExperiment(own, name));
    await own.post(`${API}/experiments/set-experiment-tag`, { experiment_id: ids[1], key: "k", value: "v" });
    // Every organization has MLflow's default experiment, "Default", listed like the others.
    const byName = await own.post(`${API}/experiments/search`, { filter: "name LIKE '%a%'", order_by: ["name DESC"] });
    assert.deepEqual(
      byName.body.experiments.map((e: { name: string }) => e.name),
      ["gamma", "beta", "alpha", "Default"],
    );
    const byTag = await own.post(`${API}/experiments/search`, { filter: "tags.k = 'v'" });
    assert.deepEqual(
      byTag.body.experiments.map((e: { name: string }) => e.name),
      ["beta"],
    );
    const first = await own.post(`${API}/experiments/search`, { max_results: 2, order_by: ["name"] });
    const second = await own.post(`${API}/experiments/search`, {
      max_results: 2,
      order_by: ["name"],
      page_token: first.body.next_page_token,
    });
    assert.deepEqual(
      [...first.body.experiments, ...second.body.experiments].map((e: { name: string }) => e.name),
      ["Default", "alpha", "beta", "gamma"],
    );
    assert.equal(second.body.next_page_token, undefined);
    const bad = await own.post(`${API}/experiments/search`, { filter: "name = " });
    assert.deepEqual([bad.status, bad.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
  });

  it("creates runs with a stable 32-hex run ID, MLflow's info, the tags sent and the user, visible to Stepwise's API as runs", async () => {
    const experimentId = await createExperiment(client);
    const runId = await createRun(client, experimentId, { run_name: "first" });
    assert.match(runId, /^[0-9a-f]{32}$/);
    const run = await getRun(client, runId);
    assert.deepEqual(
      [
        run.info.run_uuid,
        run.info.experiment_id,
        run.info.run_name,
        run.info.user_id,
        run.info.status,
        run.info.start_time,
        run.info.lifecycle_stage,
      ],
      [runId, experimentId, "first", "ann", "RUNNING", 1_700_000_000_000, "active"],
    );
    assert.equal(run.info.artifact_uri, `mlflow-artifacts:/${experimentId}/${runId}/artifacts`);
    assert.deepEqual(
      asMap(run.data.tags),
      new Map([
        ["mlflow.source.type", "LOCAL"],
        ["mlflow.runName", "first"],
      ]),
      "as MLflow's server: the tags sent and the run's name, no mlflow.user for the user_id",
    );
    const project = (await client.get(`${API}/experiments/get`, { experiment_id: experimentId })).body.experiment.name;
    const listed = await client.get("/api/runs/list", { projectName: project });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.runs.map((r: { name: string }) => r.name),
      ["first"],
    );
    const unnamed = await getRun(client, await createRun(client, experimentId));
    assert.ok(unnamed.info.run_name.length > 0, "a run without a name gets one");
  });

  it("refuses runs/create whose run_name and mlflow.runName tag differ, as MLflow's server, creating nothing", async () => {
    const { client: own } = await makeOrg(test);
    const experimentId = await createExperiment(own);
    const refused = await own.post(`${API}/runs/create`, {
      experiment_id: experimentId,
      run_name: "a",
      tags: [{ key: "mlflow.runName", value: "b" }],
    });
    assert.deepEqual(
      [refused.status, refused.body.error_code, refused.body.message],
      [
        400,
        "INVALID_PARAMETER_VALUE",
        "Both 'run_name' argument and 'mlflow.runName' tag are specified, but with different values (run_name='a', mlflow.runName='b').",
      ],
    );
    const agreed = await own.post(`${API}/runs/create`, {
      experiment_id: experimentId,
      run_name: "a",
      tags: [{ key: "mlflow.runName", value: "a" }],
    });
    assert.equal(agreed.body.run.info.run_name, "a");
    const listed = await own.post(`${API}/runs/search`, { experiment_ids: [experimentId] });
    assert.equal(listed.body.runs.length, 1, "the refused create wrote nothing");
  });

  it("keeps the user_id of runs/create as the run's, apart from its tags; searches by it", async () => {
    const experimentId = await createExperiment(client);
    // What MLflow's client sends: mlflow.start_run() the user as user_id and as the mlflow.user tag,
    // MlflowClient().create_run() without tags "unknown" as user_id and no tag.
    const fluent = await createRun(client, experimentId, { user_id: "bob", tags: [{ key: "mlflow.user", value: "bob" }] });
    const plain = await createRun(client, experimentId, { user_id: "unknown", tags: [] });
    const none = await createRun(client, experimentId, { user_id: undefined, tags: [] });
    const created = await client.post(`${API}/runs/create`, { experiment_id: experimentId, user_id: "carl" });
    assert.deepEqual(
      [created.body.run.info.user_id, created.body.run.data.tags],
      ["carl", [{ key: "mlflow.runName", value: created.body.run.info.run_name }]],
      "the create's answer too",
    );
    const users = [];
    for (const runId of [fluent, plain, none]) {
      const run = await getRun(client, runId);
      users.push([run.info.user_id, asMap(run.data.tags).get("mlflow.user")]);
    }
    assert.deepEqual(users, [
      ["bob", "bob"],
      ["unknown", undefined],
      ["", undefined],
    ]);
    const found = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], filter: "attributes.user_id = 'unknown'" });
    assert.deepEqual(
      found.body.runs.map((r: { info: { run_id: string } }) => r.info.run_id),
      [plain],
    );
    await client.post(`${API}/runs/set-tag`, { run_id: plain, key: "mlflow.user", value: "dan" });
    assert.equal((await getRun(client, plain)).info.user_id, "unknown", "a tag set later is a tag, as on MLflow's server");
  });

  it("truncates a run's param and tag values past 6,000 and 8,000 characters (code points), as MLflow's server does", async () => {
    const runId = await createRun(client, await createExperiment(client), {
      tags: [{ key: "created", value: "c".repeat(8001) }],
    });
    const emoji = "😀"; // one character to Python, two UTF-16 units
    const responses = [
      await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "single", value: "p".repeat(6001) }),
      await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "emoji", value: emoji.repeat(6001) }),
      await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "set", value: `${"t".repeat(7999)}${emoji}${emoji}` }),
      await client.post(`${API}/runs/log-batch`, {
        run_id: runId,
        params: [{ key: "batch", value: "b".repeat(10_000) }],
        tags: [{ key: "batch", value: "g".repeat(10_000) }],
      }),
    ];
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200],
      JSON.stringify(responses.map((r) => r.body)),
    );
    const run = await getRun(client, runId);
    const params = asMap(run.data.params);
    const tags = asMap(run.data.tags);
    assert.deepEqual(
      [params.get("single"), params.get("emoji"), params.get("batch")],
      ["p".repeat(6000), emoji.repeat(6000), "b".repeat(6000)],
      "an emoji is one character: 6,000 of them kept whole, never half of one",
    );
    assert.deepEqual(
      [tags.get("created"), tags.get("set"), tags.get("batch")],
      ["c".repeat(8000), `${"t".repeat(7999)}${emoji}`, "g".repeat(8000)],
    );
    assert.equal(
      (await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "single", value: `${"p".repeat(6000)}other` })).status,
      200,
      "logged again: the same once truncated, so the same param",
    );
    const changed = await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "single", value: "p".repeat(5999) });
    assert.deepEqual([changed.status, changed.body.error_code], [400, "INVALID_PARAMETER_VALUE"], "a different value is refused still");
    const longKey = await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "k".repeat(251), value: "v" });
    assert.deepEqual([longKey.status, longKey.body.error_code], [400, "INVALID_PARAMETER_VALUE"], "a key past 250 is refused");
    const experimentId = run.info.experiment_id;
    const experimentTag = await client.post(`${API}/experiments/set-experiment-tag`, {
      experiment_id: experimentId,
      key: "long",
      value: "e".repeat(5001),
    });
    assert.deepEqual(
      [experimentTag.status, experimentTag.body.error_code],
      [400, "INVALID_PARAMETER_VALUE"],
      "an experiment's tag is refused",
    );
    const atLimit = await client.post(`${API}/experiments/set-experiment-tag`, {
      experiment_id: experimentId,
      key: "long",
      value: emoji.repeat(5000),
    });
    assert.equal(atLimit.status, 200, "5,000 characters, code points");
    const created = await client.post(`${API}/experiments/create`, { name: "long-tag", tags: [{ key: "k", value: "e".repeat(5001) }] });
    assert.deepEqual([created.status, created.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
  });

  it("updates status both ways (FINISHED↔COMPLETED, KILLED↔TERMINATED, FAILED) and renames; deletes and restores runs", async () => {
    const experimentId = await createExperiment(client);
    const runId = await createRun(client, experimentId);
    const updated = await client.post(`${API}/runs/update`, {
      run_id: runId,
      status: "FINISHED",
      end_time: 1_700_000_050_000,
      run_name: "renamed",
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual(
      [updated.body.run_info.status, updated.body.run_info.end_time, updated.body.run_info.run_name],
      ["FINISHED", 1_700_000_050_000, "renamed"],
    );
    const project = (await client.get(`${API}/experiments/get`, { experiment_id: experimentId })).body.experiment.name;
    const stepwise = (await client.get("/api/runs/list", { projectName: project })).body.runs[0];
    assert.deepEqual([stepwise.status, stepwise.name], ["COMPLETED", "renamed"]);
    assert.equal((await client.post(`${API}/runs/update`, { run_id: runId, status: "RUNNING" })).body.run_info.status, "RUNNING");
    assert.equal((await client.post(`${API}/runs/update`, { run_id: runId, status: "KILLED" })).body.run_info.status, "KILLED");
    const killed = (await client.get("/api/runs/list", { projectName: project })).body.runs[0];
    assert.equal(killed.status, "TERMINATED");
    const other = await createRun(client, experimentId);
    assert.equal((await client.post(`${API}/runs/update`, { run_id: other, status: "FAILED" })).body.run_info.status, "FAILED");
    const bad = await client.post(`${API}/runs/update`, { run_id: other, status: "DONE" });
    assert.deepEqual([bad.status, bad.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);

    assert.equal((await client.post(`${API}/runs/delete`, { run_id: runId })).status, 200);
    assert.equal((await getRun(client, runId)).info.lifecycle_stage, "deleted");
    const write = await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "a", value: "1" });
    assert.equal(write.body.error_code, "INVALID_PARAMETER_VALUE", "a deleted run is read-only");
    assert.equal((await client.post(`${API}/runs/restore`, { run_id: runId })).status, 200);
    assert.equal((await getRun(client, runId)).info.lifecycle_stage, "active");
  });

  it("keeps params write-once: the same value again is fine, a different one is INVALID_PARAMETER_VALUE and writes nothing", async () => {
    const runId = await createRun(client, await createExperiment(client));
    assert.equal(
      (await client.post(`${API}/runs/log-parameter`, { run_uuid: runId, run_id: runId, key: "lr", value: "0.01" })).status,
      200,
    );
    assert.equal((await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "lr", value: "0.01" })).status, 200);
    const changed = await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: "lr", value: "0.02" });
    assert.deepEqual([changed.status, changed.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
    const batch = await client.post(`${API}/runs/log-batch`, {
      run_id: runId,
      params: [
        { key: "new", value: "x" },
        { key: "lr", value: "0.5" },
      ],
      metrics: [{ key: "m", value: 1, timestamp: 1, step: 0 }],
    });
    assert.equal(batch.body.error_code, "INVALID_PARAMETER_VALUE");
    const run = await getRun(client, runId);
    assert.deepEqual(run.data.params, [{ key: "lr", value: "0.01" }], "the failed batch stored no param");
    assert.deepEqual(run.data.metrics, [], "and no metric");
    for (const hostile of ["__proto__", "constructor", "toString"]) {
      assert.equal((await client.post(`${API}/runs/log-parameter`, { run_id: runId, key: hostile, value: "v" })).status, 200);
      assert.equal((await client.post(`${API}/runs/set-tag`, { run_id: runId, key: hostile, value: "t" })).status, 200);
    }
    const after = await getRun(client, runId);
    assert.equal(asMap(after.data.params).get("__proto__"), "v");
    assert.equal(asMap(after.data.tags).get("constructor"), "t");
  });

  it("shows a run logged through Stepwise's own protocol with its config as params and its tag list", async () => {
    const { client: own } = await makeOrg(test);
    const created = await own.createRun({
      projectName: "native",
      config: JSON.stringify({ optim: { lr: 0.1 }, layers: 3 }),
      tags: ["best"],
    });
    const experimentId = String(
      (await own.get(`${API}/experiments/get-by-name`, { experiment_name: "native" })).body.experiment.experiment_id,
    );
    const found = await own.post(`${API}/runs/search`, { experiment_ids: [experimentId], filter: "params.`optim.lr` = '0.1'" });
    assert.equal(found.body.runs.length, 1, JSON.stringify(found.body));
    const params = asMap(found.body.runs[0].data.params);
    assert.deepEqual([params.get("optim.lr"), params.get("layers")], ["0.1", "3"]);
    assert.equal(asMap(found.body.runs[0].data.tags).get("stepwise.tags"), '["best"]');
    const readOnly = await own.post(`${API}/runs/set-tag`, { run_id: found.body.runs[0].info.run_id, key: "stepwise.tags", value: "x" });
    assert.equal(readOnly.body.error_code, "INVALID_PARAMETER_VALUE");
    assert.ok(created.runId > 0);
  });

  it("sets and deletes tags; mlflow.runName renames the run", async () => {
    const runId = await createRun(client, await createExperiment(client));
    await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "team", value: "a" });
    await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "team", value: "b" });
    await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "mlflow.runName", value: "by-tag" });
    let run = await getRun(client, runId);
    assert.deepEqual([asMap(run.data.tags).get("team"), run.info.run_name], ["b", "by-tag"]);
    assert.equal((await client.post(`${API}/runs/delete-tag`, { run_id: runId, key: "team" })).status, 200);
    run = await getRun(client, runId);
    assert.equal(asMap(run.data.tags).has("team"), false);
    const again = await client.post(`${API}/runs/delete-tag`, { run_id: runId, key: "team" });
    assert.deepEqual([again.status, again.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
    const longKey = await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "k".repeat(251), value: "v" });
    assert.equal(longKey.body.error_code, "INVALID_PARAMETER_VALUE");
    assert.equal((await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "k".repeat(250), value: "v" })).status, 200);
  });

  it("logs metrics as Stepwise metrics, NaN and ±Infinity kept, latest value per key, history with paging", async () => {
    const runId = await createRun(client, await createExperiment(client));
    for (let step = 0; step < 5; step++)
      assert.equal(
        (await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "loss", value: 1 / (step + 1), timestamp: 1000 + step, step }))
          .status,
        200,
      );
    const batch = await client.post(`${API}/runs/log-batch`, {
      run_id: runId,
      metrics: [
        { key: "odd", value: "NaN", timestamp: 5, step: 0 },
        { key: "odd", value: "Infinity", timestamp: 6, step: 1 },
        { key: "odd", value: "-Infinity", timestamp: 7, step: 2 },
        { key: "other", value: 2, timestamp: 8, step: 3 },
      ],
      params: [{ key: "p", value: "1" }],
      tags: [{ key: "t", value: "2" }],
    });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const run = await getRun(client, runId);
    const metrics = new Map(run.data.metrics.map((m: { key: string }) => [m.key, m]));
    assert.deepEqual(metrics.get("loss"), { key: "loss", value: 0.2, timestamp: 1004, step: 4 });
    assert.deepEqual(metrics.get("odd"), { key: "odd", value: "-Infinity", timestamp: 7, step: 2 }, "a non-finite latest value is kept");
    const history = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: "odd" });
    assert.deepEqual(
      history.body.metrics.map((m: { value: unknown }) => m.value),
      ["NaN", "Infinity", "-Infinity"],
    );
    const pages: number[] = [];
    let token: string | undefined;
    do {
      const page = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: "loss", max_results: 2, page_token: token });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      pages.push(...page.body.metrics.map((m: { step: number }) => m.step));
      token = page.body.next_page_token;
    } while (token);
    assert.deepEqual(pages, [0, 1, 2, 3, 4]);
    const badValue = await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "x", value: "abc", timestamp: 1, step: 0 });
    assert.equal(badValue.body.error_code, "INVALID_PARAMETER_VALUE");
    const project = (await client.get(`${API}/experiments/get`, { experiment_id: run.info.experiment_id })).body.experiment.name;
    const stepwiseRun = (await client.get("/api/runs/list", { projectName: project })).body.runs[0];
    const stepwise = await client.get("/api/runs/metrics", { runId: stepwiseRun.id, projectName: project, logName: "odd" });
    assert.deepEqual(
      stepwise.body.metrics.map((m: { valueFlag: string }) => m.valueFlag),
      ["NaN", "Inf", "-Inf"],
      "the same points through Stepwise's API",
    );
  });

  it("keeps every logged point as MLflow's server does: many per step, an identical one once, MLflow's latest value", async () => {
    const experimentId = await createExperiment(client);
    const runId = await createRun(client, experimentId);
    // mlflow.log_metric("loss", v) in a loop: no step (0), a new timestamp each time.
    for (let i = 0; i < 5; i++)
      await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "loss", value: 10 - i, timestamp: 1000 + i });
    // The same point again is kept once; a point at step 0 with an earlier time goes before the others.
    await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "loss", value: 9, timestamp: 1001 });
    await client.post(`${API}/runs/log-batch`, {
      run_id: runId,
      metrics: [
        { key: "loss", value: 11, timestamp: 999, step: 0 },
        { key: "loss", value: 11, timestamp: 999, step: 0 },
        // Two values at one step and time: both kept, the larger one latest.
        { key: "acc", value: 0.5, timestamp: 50, step: 3 },
        { key: "acc", value: 0.25, timestamp: 50, step: 3 },
        // A smaller step logged later does not replace the latest.
        { key: "acc", value: 0.1, timestamp: 99, step: 1 },
      ],
    });
    const history = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: "loss" });
    assert.deepEqual(
      history.body.metrics.map((m: { value: number; timestamp: number; step: number }) => [m.step, m.timestamp, m.value]),
      [
        [0, 999, 11],
        [0, 1000, 10],
        [0, 1001, 9],
        [0, 1002, 8],
        [0, 1003, 7],
        [0, 1004, 6],
      ],
    );
    const latest = new Map((await getRun(client, runId)).data.metrics.map((m: { key: string }) => [m.key, m]));
    assert.deepEqual(latest.get("loss"), { key: "loss", value: 6, timestamp: 1004, step: 0 });
    assert.deepEqual(latest.get("acc"), { key: "acc", value: 0.5, timestamp: 50, step: 3 });
    const found = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], filter: "metrics.acc = 0.5" });
    assert.equal(found.body.runs?.length, 1, "search_runs compares MLflow's latest value");
    // Pages of 2 end inside step 0 and go on from there, each point once.
    const paged: number[] = [];
    let token: string | undefined;
    do {
      const page = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: "loss", max_results: 2, page_token: token });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      paged.push(...page.body.metrics.map((m: { timestamp: number }) => m.timestamp));
      token = page.body.next_page_token;
    } while (token && paged.length < 20);
    assert.deepEqual(paged, [999, 1000, 1001, 1002, 1003, 1004]);
    const bulk = await client.get(`${API}/metrics/get-history-bulk-interval`, { run_ids: runId, metric_key: "loss", max_results: 10 });
    assert.equal(bulk.body.metrics.length, 6, "every point of step 0");
    // A NaN logged after 1,000 finite values at one step is the latest (read past a page of that step's points).
    const many = Array.from({ length: 1000 }, (_, i) => ({ key: "big", value: i, timestamp: 10_000 + i, step: 0 }));
    await client.post(`${API}/runs/log-batch`, { run_id: runId, metrics: many });
    await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "big", value: "NaN", timestamp: 20_000, step: 0 });
    const bigLatest = (await getRun(client, runId)).data.metrics.find((m: { key: string }) => m.key === "big");
    assert.deepEqual(bigLatest, { key: "big", value: "NaN", timestamp: 20_000, step: 0 });
    await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "big", value: 7, timestamp: 30_000, step: 0 });
    const bigLater = (await getRun(client, runId)).data.metrics.find((m: { key: string }) => m.key === "big");
    assert.deepEqual(bigLater, { key: "big", value: 7, timestamp: 30_000, step: 0 });
    // Stepwise's own reads show every kept point too.
    const project = (await client.get(`${API}/experiments/get`, { experiment_id: experimentId })).body.experiment.name;
    const stepwiseRun = (await client.get("/api/runs/list", { projectName: project })).body.runs[0];
    const raw = await client.get("/api/runs/metrics/raw", { runId: stepwiseRun.id, projectName: project, logName: "loss" });
    assert.deepEqual(
      raw.body.rows.map((row: { value: number }) => row.value),
      [11, 10, 9, 8, 7, 6],
    );
    const stats = await client.get("/api/runs/statistics", { runId: stepwiseRun.id, projectName: project, logName: "loss" });
    assert.equal(stats.body.metrics[0].count, 6);
    assert.deepEqual(stats.body.metrics[0].lastPoint, { step: 0, value: 6, valueFlag: "" });
  });

  it("stores concurrent log-batch requests exactly; a rejected one in the crowd writes nothing and fails no other", async () => {
    const experimentId = await createExperiment(client);
    const runs = await Promise.all(Array.from({ length: 8 }, () => createRun(client, experimentId)));
    const batch = (b: number) => {
      const metrics = [];
      for (let step = b * 100; step < (b + 1) * 100; step++)
        for (let k = 0; k < 9; k++) metrics.push({ key: `m${k}`, value: step + k, timestamp: 1_700_000_000_000 + step, step });
      return metrics;
    };
    const rejected = runs[5]!;
    const BATCHES = 4;
    for (let b = 0; b < BATCHES; b++) {
      // Every run's batch at once; in the third wave one run's batch is invalid in its very last item.
      const responses = await Promise.all(
        runs.map((runId) => {
          const metrics = batch(b);
          if (runId === rejected && b === 2) metrics[899] = { ...metrics[899]!, value: "abc" as never };
          return client.post(`${API}/runs/log-batch`, { run_id: runId, metrics, params: [{ key: `p${b}`, value: "1" }] });
        }),
      );
      responses.forEach((response, i) => {
        if (runs[i] === rejected && b === 2)
          assert.deepEqual([response.status, response.body.error_code], [400, "INVALID_PARAMETER_VALUE"], JSON.stringify(response.body));
        else assert.equal(response.status, 200, JSON.stringify(response.body));
      });
    }
    for (const runId of runs) {
      const run = await getRun(client, runId);
      const steps = runId === rejected ? [0, 1, 3].flatMap((b) => Array.from({ length: 100 }, (_, k) => b * 100 + k)) : undefined;
      const expected = steps ?? Array.from({ length: BATCHES * 100 }, (_, k) => k);
      assert.deepEqual(
        run.data.metrics.map((m: { key: string; value: number; step: number }) => [m.key, m.value, m.step]).sort(),
        Array.from({ length: 9 }, (_, k) => [`m${k}`, 399 + k, 399]).sort(),
      );
      assert.deepEqual(
        run.data.params.map((p: { key: string }) => p.key).sort(),
        runId === rejected ? ["p0", "p1", "p3"] : ["p0", "p1", "p2", "p3"],
        "the rejected request's params are not written either",
      );
      for (const key of ["m0", "m8"]) {
        const history = await client.get(`${API}/metrics/get-history`, { run_id: runId, metric_key: key });
        assert.deepEqual(
          history.body.metrics.map((m: { step: number }) => m.step),
          expected,
        );
      }
    }
  });

  it("samples metrics for many runs with get-history-bulk-interval", async () => {
    const experimentId = await createExperiment(client);
    const runs = [await createRun(client, experimentId), await createRun(client, experimentId)];
    for (const runId of runs)
      await client.post(`${API}/runs/log-batch`, {
        run_id: runId,
        metrics: Array.from({ length: 1000 }, (_, step) => ({ key: "acc", value: step, timestamp: step, step })),
      });
    const url = new URL(`${API}/metrics/get-history-bulk-interval`, test.url);
    for (const runId of runs) url.searchParams.append("run_ids", runId);
    url.searchParams.set("metric_key", "acc");
    url.searchParams.set("max_results", "50");
    const response = await fetch(url, { headers: { authorization: `Bearer ${client.key}` } });
    const body = (await response.json()) as { metrics: { run_id: string; step: number }[] };
    assert.equal(response.status, 200);
    for (const runId of runs) {
      const steps = body.metrics.filter((m) => m.run_id === runId).map((m) => m.step);
      assert.ok(steps.length <= 50 && steps.length >= 10, `sampled: ${steps.length}`);
      assert.equal(steps[0], 0);
      assert.equal(steps.at(-1), 999, "the sampler keeps the last point");
    }
  });

  it("enforces log-batch limits: 1,000 metrics, 100 params, 100 tags, 1,000 items", async () => {
    const runId = await createRun(client, await createExperiment(client));
    const metric = (i: number) => ({ key: "m", value: i, timestamp: 1, step: i });
    const kv = (i: number) => ({ key: `k${i}`, value: "v" });
    const cases: [string, Record<string, unknown>][] = [
      ["metrics", { metrics: Array.from({ length: 1001 }, (_, i) => metric(i)) }],
      ["params", { params: Array.from({ length: 101 }, (_, i) => kv(i)) }],
      ["tags", { tags: Array.from({ length: 101 }, (_, i) => kv(i)) }],
      ["items", { metrics: Array.from({ length: 950 }, (_, i) => metric(i)), params: Array.from({ length: 51 }, (_, i) => kv(i)) }],
    ];
    for (const [what, body] of cases) {
      const response = await client.post(`${API}/runs/log-batch`, { run_id: runId, ...body });
      assert.deepEqual([response.status, response.body.error_code], [400, "INVALID_PARAMETER_VALUE"], what);
    }
    const full = await client.post(`${API}/runs/log-batch`, { run_id: runId, metrics: Array.from({ length: 1000 }, (_, i) => metric(i)) });
    assert.equal(full.status, 200);
    assert.deepEqual((await getRun(client, runId)).data.params, [], "refused batches stored nothing");
  });

  it("stores log-inputs once per dataset name and digest, and log-model as sent", async () => {
    const runId = await createRun(client, await createExperiment(client));
    const dataset = { dataset: { name: "d", digest: "abc", source_type: "local", source: "{}" }, tags: [] };
    assert.equal((await client.post(`${API}/runs/log-inputs`, { run_id: runId, datasets: [dataset] })).status, 200);
    const again = { ...dataset, tags: [{ key: "mlflow.data.context", value: "eval" }] };
    assert.equal((await client.post(`${API}/runs/log-inputs`, { run_id: runId, datasets: [dataset, again] })).status, 200);
    const other = { dataset: { ...dataset.dataset, digest: "new" }, tags: [] };
    for (const bad of [{ dataset: { name: "n".repeat(501), digest: "x" } }, { dataset: { name: 5 } }, "d", null]) {
      const refused = await client.post(`${API}/runs/log-inputs`, { run_id: runId, datasets: [other, bad] });
      assert.deepEqual([refused.status, refused.body.error_code], [400, "INVALID_PARAMETER_VALUE"], JSON.stringify(bad));
    }
    assert.equal(
      (await client.post(`${API}/runs/log-model`, { run_id: runId, model_json: JSON.stringify({ artifact_path: "model" }) })).status,
      200,
    );
    const run = await getRun(client, runId);
    assert.deepEqual(
      run.inputs.dataset_inputs,
      [dataset],
      "logged again, with another context too: still one input, the first; a refused request added nothing",
    );
    assert.deepEqual(JSON.parse(asMap(run.data.tags).get("mlflow.log-model.history") as string), [{ artifact_path: "model" }]);
    const models = await client.post(`${API}/logged-models/search`, { experiment_ids: [run.info.experiment_id] });
    assert.deepEqual([models.status, models.body], [200, { models: [] }]);
  });

  it("answers errors in MLflow's body: unknown runs and experiments, malformed IDs, unknown endpoints", async () => {
    for (const [path, query] of [
      ["/runs/get", { run_id: "0".repeat(32) }],
      ["/runs/get", { run_id: "not-a-run" }],
      ["/experiments/get", { experiment_id: "999999" }],
      ["/experiments/get", { experiment_id: "abc" }],
    ] as const) {
      const response = await client.get(`${API}${path}`, query);
      assert.deepEqual([response.status, response.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], `${path} ${JSON.stringify(query)}`);
      assert.equal(typeof response.body.message, "string");
    }
    const missing = await client.get(`${API}/runs/get`);
    assert.deepEqual([missing.status, missing.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
    const unknown = await client.post(`${API}/traces/create`, {});
    assert.deepEqual([unknown.status, unknown.body.error_code], [404, "ENDPOINT_NOT_FOUND"]);
    const malformed = await client.raw("POST", `${API}/runs/create`, "{", { "content-type": "application/json" });
    assert.equal(malformed.status, 400);
    assert.equal(typeof malformed.body.error_code, "string");
  });

  it("authenticates bearer and basic auth (the key as password); no key is UNAUTHENTICATED", async () => {
    const basic = `Basic ${Buffer.from(`anyone:${client.key}`).toString("base64")}`;
    const viaBasic = await client.withKey(undefined).post(`${API}/experiments/create`, { name: "basic-auth" }, { authorization: basic });
    assert.equal(viaBasic.status, 200, JSON.stringify(viaBasic.body));
    const none = await client.withKey(undefined).post(`${API}/experiments/create`, { name: "x" });
    assert.deepEqual([none.status, none.body.error_code], [401, "UNAUTHENTICATED"]);
    const wrong = await client
      .withKey(undefined)
      .get(`${API}/experiments/search`, {}, { authorization: `Basic ${Buffer.from("a:sw_wrong").toString("base64")}` });
    assert.deepEqual([wrong.status, wrong.body.error_code], [401, "UNAUTHENTICATED"]);
  });

  it("serves the same API under /ajax-api", async () => {
    const response = await client.post("/ajax-api/2.0/mlflow/experiments/create", { name: "ajax" });
    assert.equal(response.status, 200);
    assert.equal(
      (await client.get("/ajax-api/2.0/mlflow/experiments/get", { experiment_id: response.body.experiment_id })).body.experiment.name,
      "ajax",
    );
  });

  it("isolates organizations on every route: another organization's experiments and runs do not exist", async () => {
    const experimentId = await createExperiment(client);
    const runId = await createRun(client, experimentId);
    await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "m", value: 1, timestamp: 1, step: 0 });
    await client.post(`${API}/runs/set-tag`, { run_id: runId, key: "t", value: "v" });
    const { client: other } = await makeOrg(test);
    const writes: [string, Record<string, unknown>][] = [
      ["/experiments/update", { experiment_id: experimentId, new_name: "stolen" }],
      ["/experiments/delete", { experiment_id: experimentId }],
      ["/experiments/restore", { experiment_id: experimentId }],
      ["/experiments/set-experiment-tag", { experiment_id: experimentId, key: "k", value: "v" }],
      ["/experiments/delete-experiment-tag", { experiment_id: experimentId, key: "k" }],
      ["/runs/create", { experiment_id: experimentId }],
      ["/runs/update", { run_id: runId, status: "FAILED" }],
      ["/runs/delete", { run_id: runId }],
      ["/runs/restore", { run_id: runId }],
      ["/runs/log-metric", { run_id: runId, key: "m", value: 2, timestamp: 1, step: 1 }],
      ["/runs/log-parameter", { run_id: runId, key: "p", value: "1" }],
      ["/runs/set-tag", { run_id: runId, key: "t", value: "x" }],
      ["/runs/delete-tag", { run_id: runId, key: "t" }],
      ["/runs/log-batch", { run_id: runId, params: [{ key: "p", value: "1" }] }],
      ["/runs/log-inputs", { run_id: runId, datasets: [] }],
      ["/runs/log-model", { run_id: runId, model_json: "{}" }],
      ["/runs/search", { experiment_ids: [experimentId] }],
      ["/logged-models/search", { experiment_ids: [experimentId] }],
    ];
    for (const [path, body] of writes) {
      const response = await other.post(`${API}${path}`, body);
      assert.deepEqual([response.status, response.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], path);
    }
    const reads: [string, Record<string, string>][] = [
      ["/experiments/get", { experiment_id: experimentId }],
      ["/runs/get", { run_id: runId }],
      ["/metrics/get-history", { run_id: runId, metric_key: "m" }],
      ["/metrics/get-history-bulk-interval", { run_ids: runId, metric_key: "m" }],
      ["/artifacts/list", { run_id: runId }],
    ];
    for (const [path, query] of reads) {
      const response = await other.get(`${API}${path}`, query);
      assert.deepEqual([response.status, response.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], path);
    }
    const name = (await client.get(`${API}/experiments/get`, { experiment_id: experimentId })).body.experiment.name;
    assert.equal((await other.get(`${API}/experiments/get-by-name`, { experiment_name: name })).status, 404);
    assert.deepEqual(
      ((await other.post(`${API}/experiments/search`, {})).body.experiments ?? []).map((e: { experiment_id: string; name: string }) => [
        e.experiment_id,
        e.name,
      ]),
      [["0", "Default"]],
      "only its own default experiment",
    );
    const run = await getRun(client, runId);
    assert.deepEqual(
      [run.info.status, run.info.lifecycle_stage, run.data.params, asMap(run.data.tags).get("t"), run.data.metrics.length],
      ["RUNNING", "active", [], "v", 1],
      "nothing changed",
    );
  });
});
