import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** MLflow 3's logged models over HTTP (docs/api.md, "MLflow's REST API: logged models"); error shapes as MLflow's 3.x server answers. */

const API = "/api/2.0/mlflow";
const PROXY = "/api/2.0/mlflow-artifacts/artifacts";

describe("MLflow logged models", () => {
  let test: TestServer;
  let client: ApiClient;
  let experimentId: string;
  let runId: string;
  before(async () => {
    test = await startTestServer();
    client = test.client;
    experimentId = (await client.post(`${API}/experiments/create`, { name: "models" })).body.experiment_id;
    runId = (await client.post(`${API}/runs/create`, { experiment_id: experimentId })).body.run.info.run_id;
  });
  after(async () => test.close());

  const create = async (body: Record<string, unknown> = {}, as = client) => {
    const response = await as.post(`${API}/logged-models`, { experiment_id: experimentId, source_run_id: runId, ...body });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body.model;
  };
  const patch = (path: string, body: unknown, as = client) =>
    as.raw("PATCH", `${API}${path}`, JSON.stringify(body), { "content-type": "application/json" });
  const put = (path: string, body: string, as = client) =>
    as.raw("PUT", `${PROXY}/${path}`, body, { "content-type": "application/octet-stream" });

  it("creates a PENDING model of a run, finalizes it, logs params, sets and deletes tags, deletes it", async () => {
    const created = await create({
      name: "model",
      model_type: "sklearn",
      params: [{ key: "alpha", value: "0.5" }],
      tags: [{ key: "t", value: "x" }],
    });
    const id = created.info.model_id;
    assert.match(id, /^m-[0-9a-f]{32}$/);
    assert.deepEqual(created, {
      info: {
        model_id: id,
        experiment_id: experimentId,
        name: "model",
        creation_timestamp_ms: created.info.creation_timestamp_ms,
        last_updated_timestamp_ms: created.info.creation_timestamp_ms,
        artifact_uri: `mlflow-artifacts:/${experimentId}/models/${id}/artifacts`,
        status: "LOGGED_MODEL_PENDING",
        model_type: "sklearn",
        source_run_id: runId,
        tags: [{ key: "t", value: "x" }],
      },
      data: { params: [{ key: "alpha", value: "0.5" }] },
    });
    const finalized = await patch(`/logged-models/${id}`, { model_id: id, status: "LOGGED_MODEL_READY" });
    assert.equal(finalized.body.model.info.status, "LOGGED_MODEL_READY");
    assert.equal((await patch(`/logged-models/${id}`, { model_id: id, status: 3 })).body.model.info.status, "LOGGED_MODEL_UPLOAD_FAILED");
    const pending = await patch(`/logged-models/${id}`, { model_id: id, status: "LOGGED_MODEL_PENDING" });
    assert.deepEqual([pending.status, pending.body.error_code], [400, "INVALID_PARAMETER_VALUE"], "finalizing is READY or FAILED");
    await patch(`/logged-models/${id}`, { model_id: id, status: "LOGGED_MODEL_READY" });

    assert.deepEqual(
      (await client.post(`${API}/logged-models/${id}/params`, { model_id: id, params: [{ key: "q", value: "2" }] })).body,
      {},
    );
    const tagged = await patch(`/logged-models/${id}/tags`, {
      tags: [
        { key: "t", value: "y" },
        { key: "u", value: "z" },
      ],
    });
    assert.deepEqual(tagged.body.model.info.tags, [
      { key: "t", value: "y" },
      { key: "u", value: "z" },
    ]);
    assert.equal((await client.raw("DELETE", `${API}/logged-models/${id}/tags/u`, undefined)).status, 200);
    const missingTag = await client.raw("DELETE", `${API}/logged-models/${id}/tags/u`, undefined);
    assert.deepEqual(
      [missingTag.status, missingTag.body],
      [404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: `No tag with key 'u' found for model with ID '${id}'.` }],
    );
    const got = (await client.get(`${API}/logged-models/${id}`)).body.model;
    assert.deepEqual(
      [got.info.status, got.info.tags, got.data.params],
      [
        "LOGGED_MODEL_READY",
        [{ key: "t", value: "y" }],
        [
          { key: "alpha", value: "0.5" },
          { key: "q", value: "2" },
        ],
      ],
    );

    assert.deepEqual((await client.raw("DELETE", `${API}/logged-models/${id}`, undefined)).body, {});
    const gone = await client.get(`${API}/logged-models/${id}`);
    assert.deepEqual(
      [gone.status, gone.body],
      [404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: `Logged model with ID '${id}' not found.` }],
    );
    assert.equal((await client.get(`${API}/logged-models/${id}`, { allow_deleted: "true" })).body.model.info.model_id, id);
  });

  it("names a model when the client does not and refuses MLflow's forbidden characters", async () => {
    const named = await create({ name: undefined });
    assert.match(named.info.name, /^[a-z]+-[a-z]+-\d+$/);
    const bad = await client.post(`${API}/logged-models`, { experiment_id: experimentId, name: "a.b" });
    assert.deepEqual([bad.status, bad.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
    assert.match(bad.body.message, /^Invalid model name \('a\.b'\) provided/);
    const noExperiment = await client.post(`${API}/logged-models`, { experiment_id: "987654" });
    assert.deepEqual([noExperiment.status, noExperiment.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
    const noRun = await client.post(`${API}/logged-models`, { experiment_id: experimentId, source_run_id: "0".repeat(32) });
    assert.deepEqual([noRun.status, noRun.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
    const unknown = await client.get(`${API}/logged-models/not-a-model`);
    assert.deepEqual([unknown.status, unknown.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
  });

  it("bounds what one model keeps: a model type of 500 characters, params and tags of 1,000,000 characters of JSON", async () => {
    const long = await client.post(`${API}/logged-models`, { experiment_id: experimentId, model_type: "x".repeat(501) });
    assert.deepEqual([long.status, long.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
    const model = await create({ name: "bounded" });
    const id = model.info.model_id;
    // 250 tags of 8,000 characters: about 2 MB, in requests of 50 (each under the request limit).
    let refused: { status: number; body: { error_code?: string } } | undefined;
    for (let batch = 0; batch < 5 && !refused; batch++) {
      const tags = Array.from({ length: 50 }, (_, i) => ({ key: `t${batch}-${i}`, value: "v".repeat(8000) }));
      const response = await patch(`/logged-models/${id}/tags`, { tags });
      if (response.status !== 200) refused = response;
    }
    assert.deepEqual([refused?.status, refused?.body.error_code], [413, "INVALID_PARAMETER_VALUE"]);
    const kept = (await client.get(`${API}/logged-models/${id}`)).body.model.info.tags;
    assert.ok(kept.length < 250 && JSON.stringify(kept.map((t: { key: string; value: string }) => [t.key, t.value])).length <= 1_000_000);
  });

  it("searches by filter, orders by attributes (newest first by default) and pages", async () => {
    const experiment = (await client.post(`${API}/experiments/create`, { name: "search" })).body.experiment_id;
    const ids: string[] = [];
    for (const [i, name] of ["b", "a", "c"].entries()) {
      const model = await create({
        experiment_id: experiment,
        name,
        params: [{ key: "i", value: String(i) }],
        tags: [{ key: "even", value: String(i % 2 === 0) }],
      });
      ids.push(model.info.model_id);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const search = async (body: Record<string, unknown>) => {
      const response = await client.post(`${API}/logged-models/search`, { experiment_ids: [experiment], ...body });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body as { models?: { info: { model_id: string } }[]; next_page_token?: string };
    };
    const idsOf = (body: { models?: { info: { model_id: string } }[] }) => (body.models ?? []).map((m) => m.info.model_id);
    assert.deepEqual(idsOf(await search({})), [ids[2], ids[1], ids[0]], "newest first");
    assert.deepEqual(idsOf(await search({ order_by: [{ field_name: "name", ascending: true }] })), [ids[1], ids[0], ids[2]]);
    assert.deepEqual(idsOf(await search({ order_by: [{ field_name: "creation_timestamp", ascending: true }] })), ids);
    assert.deepEqual(idsOf(await search({ filter: "tags.even = 'true'" })), [ids[2], ids[0]]);
    assert.deepEqual(idsOf(await search({ filter: "params.i = '1' AND name = 'a'" })), [ids[1]]);
    assert.deepEqual(idsOf(await search({ filter: "name LIKE '%c%'" })), [ids[2]]);
    assert.deepEqual(idsOf(await search({ filter: `source_run_id = '${runId}'` })).length, 3);
    assert.deepEqual(idsOf(await search({ filter: "metrics.acc > 0.5" })), [], "no metrics are linked to models");
    const first = await search({ max_results: 2 });
    assert.deepEqual(idsOf(first), [ids[2], ids[1]]);
    const second = await search({ max_results: 2, page_token: first.next_page_token });
    assert.deepEqual([idsOf(second), second.next_page_token], [[ids[0]], undefined]);

    for (const [body, message] of [
      [{ order_by: [{ field_name: "bogus" }] }, "Invalid order by field name: bogus"],
      [{ order_by: [{ field_name: "params.x" }] }, "Invalid order by field name: params.x. Only metrics are supported."],
      [{ filter: "bogus = 'x'" }, undefined],
      [{ page_token: "nope" }, undefined],
      [{ datasets: [{ dataset_digest: "d" }] }, "`dataset_name` in the `datasets` clause must be specified."],
    ] as const) {
      const response = await client.post(`${API}/logged-models/search`, { experiment_ids: [experiment], ...body });
      assert.deepEqual([response.status, response.body.error_code], [400, "INVALID_PARAMETER_VALUE"], JSON.stringify(body));
      if (message) assert.equal(response.body.message, message);
    }
    const none = await client.post(`${API}/logged-models/search`, {});
    assert.deepEqual([none.status, none.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
  });

  it("stores a model's files with its run, apart from the run's artifacts: upload, list, download, delete", async () => {
    const model = await create({ name: "files" });
    const id = model.info.model_id;
    const root = `${experimentId}/models/${id}/artifacts`;
    assert.equal((await put(`${root}/MLmodel`, "flavors: {}\n")).status, 200);
    assert.equal((await put(`${root}/sub/model.pkl`, "bytes")).status, 200);
    assert.deepEqual((await client.get(PROXY, { path: root })).body.files, [
      { path: "MLmodel", is_dir: false, file_size: 12 },
      { path: "sub", is_dir: true },
    ]);
    const download = await client.get(`${PROXY}/${root}/sub/model.pkl`);
    assert.deepEqual([download.status, download.body], [200, "bytes"]);
    const listed = await client.get(`${API}/logged-models/${id}/artifacts/directories`, { artifact_directory_path: "sub" });
    assert.deepEqual(listed.body, {
      root_uri: `mlflow-artifacts:/${root}`,
      files: [{ path: "sub/model.pkl", is_dir: false, file_size: 5 }],
    });
    const file = await client.get(`/ajax-api/2.0/mlflow/logged-models/${id}/artifacts/files`, { artifact_file_path: "MLmodel" });
    assert.deepEqual([file.status, file.body], [200, "flavors: {}\n"]);
    const runArtifacts = await client.get(`${API}/artifacts/list`, { run_id: runId });
    assert.deepEqual(runArtifacts.body.files, [], "the run's own artifacts do not list the model's files");
    assert.equal((await client.raw("DELETE", `${PROXY}/${root}/sub`, undefined)).status, 200);
    assert.deepEqual((await client.get(PROXY, { path: root })).body.files, [{ path: "MLmodel", is_dir: false, file_size: 12 }]);

    const wrongExperiment = await client.get(PROXY, { path: `999/models/${id}/artifacts` });
    assert.equal(wrongExperiment.status, 404);
    const noRun = await create({ name: "external", source_run_id: undefined });
    const refused = await put(`${experimentId}/models/${noRun.info.model_id}/artifacts/MLmodel`, "x");
    assert.deepEqual([refused.status, refused.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
  });

  it("takes a run's model outputs (runs/outputs) of models it knows", async () => {
    const model = await create({ name: "output" });
    const ok = await client.post(`${API}/runs/outputs`, { run_id: runId, models: [{ model_id: model.info.model_id, step: 0 }] });
    assert.deepEqual([ok.status, ok.body], [200, {}]);
    const unknown = await client.post(`${API}/runs/outputs`, { run_id: runId, models: [{ model_id: `m-${"0".repeat(32)}`, step: 0 }] });
    assert.deepEqual([unknown.status, unknown.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
  });

  it("never shows one organization's logged models to another, on any route", async () => {
    const model = await create({ name: "private", tags: [{ key: "k", value: "v" }] });
    const id = model.info.model_id;
    const root = `${experimentId}/models/${id}/artifacts`;
    assert.equal((await put(`${root}/MLmodel`, "secret")).status, 200);
    const { client: other } = await makeOrg(test);
    const theirExperiment = (await other.post(`${API}/experiments/create`, { name: "theirs" })).body.experiment_id;
    const theirRun = (await other.post(`${API}/runs/create`, { experiment_id: theirExperiment })).body.run.info.run_id;

    const answers = [
      ["get", await other.get(`${API}/logged-models/${id}`)],
      ["get deleted", await other.get(`${API}/logged-models/${id}`, { allow_deleted: "true" })],
      ["finalize", await patch(`/logged-models/${id}`, { model_id: id, status: "LOGGED_MODEL_UPLOAD_FAILED" }, other)],
      ["params", await other.post(`${API}/logged-models/${id}/params`, { params: [{ key: "x", value: "1" }] })],
      ["set tags", await patch(`/logged-models/${id}/tags`, { tags: [{ key: "k", value: "theirs" }] }, other)],
      ["delete tag", await other.raw("DELETE", `${API}/logged-models/${id}/tags/k`, undefined)],
      ["delete", await other.raw("DELETE", `${API}/logged-models/${id}`, undefined)],
      ["search", await other.post(`${API}/logged-models/search`, { experiment_ids: [experimentId] })],
      ["list files", await other.get(`${API}/logged-models/${id}/artifacts/directories`)],
      ["download (UI)", await other.get(`${API}/logged-models/${id}/artifacts/files`, { artifact_file_path: "MLmodel" })],
      ["proxy list", await other.get(PROXY, { path: root })],
      ["proxy download", await other.get(`${PROXY}/${root}/MLmodel`)],
      ["proxy upload", await put(`${root}/evil`, "x", other)],
      ["proxy delete", await other.raw("DELETE", `${PROXY}/${root}/MLmodel`, undefined)],
      ["outputs", await other.post(`${API}/runs/outputs`, { run_id: theirRun, models: [{ model_id: id, step: 0 }] })],
      ["create in our experiment", await other.post(`${API}/logged-models`, { experiment_id: experimentId })],
      ["create with our run", await other.post(`${API}/logged-models`, { experiment_id: theirExperiment, source_run_id: runId })],
    ] as const;
    for (const [what, response] of answers)
      assert.deepEqual([response.status, response.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], what);
    const theirs = await other.post(`${API}/logged-models/search`, { experiment_ids: [theirExperiment] });
    assert.deepEqual(theirs.body, { models: [] });

    const ours = (await client.get(`${API}/logged-models/${id}`)).body.model;
    assert.deepEqual([ours.info.status, ours.info.tags, ours.data], ["LOGGED_MODEL_PENDING", [{ key: "k", value: "v" }], {}], "untouched");
    assert.deepEqual((await client.get(PROXY, { path: root })).body.files, [{ path: "MLmodel", is_dir: false, file_size: 6 }]);
  });
});
