import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** The UI's model reads over real HTTP (docs/api.md, "Models"), models made through MLflow's routes, on the store the run selects. */

const MLFLOW = "/api/2.0/mlflow";

async function mlflow(client: ApiClient, path: string, body: Record<string, unknown>) {
  const response = await client.post(`${MLFLOW}${path}`, body);
  assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

/** An experiment and a run in it, made by MLflow's client's calls: the run's MLflow ID and Stepwise ID. */
async function mlflowRun(client: ApiClient, experiment: string) {
  const experimentId = (await mlflow(client, "/experiments/create", { name: experiment })).experiment_id as string;
  const mlflowRunId = (await mlflow(client, "/runs/create", { experiment_id: experimentId, run_name: "trainer" })).run.info
    .run_id as string;
  const run = (await client.get(`/api/runs/details/by-mlflow-id/${mlflowRunId}`)).body;
  return { experimentId, mlflowRunId, runId: run.id as number, displayId: run.displayId as string };
}

describe("model reads for the web UI", () => {
  let test: TestServer;
  let client: ApiClient;
  let other: ApiClient;
  let source: Awaited<ReturnType<typeof mlflowRun>>;
  let loggedModelId: string;
  before(async () => {
    test = await startTestServer();
    client = (await makeOrg(test)).client;
    other = (await makeOrg(test)).client;
    source = await mlflowRun(client, "vision");
    const artifacts = `mlflow-artifacts:/${source.experimentId}/${source.mlflowRunId}/artifacts/model`;
    await mlflow(client, "/registered-models/create", {
      name: "resnet/<b>",
      description: "an image model",
      tags: [{ key: "team", value: "vision" }],
    });
    await mlflow(client, "/model-versions/create", {
      name: "resnet/<b>",
      source: artifacts,
      run_id: source.mlflowRunId,
      description: "first",
    });
    await mlflow(client, "/model-versions/create", {
      name: "resnet/<b>",
      source: artifacts,
      run_id: "0123456789abcdef0123456789abcdef",
      tags: [{ key: "k", value: "v" }],
    });
    await mlflow(client, "/registered-models/alias", { name: "resnet/<b>", alias: "champion", version: "1" });
    await mlflow(client, "/model-versions/transition-stage", {
      name: "resnet/<b>",
      version: "1",
      stage: "Production",
      archive_existing_versions: false,
    });
    await mlflow(client, "/registered-models/create", { name: "bert" });
    await mlflow(client, "/registered-models/create", {
      name: "a-prompt",
      tags: [{ key: "mlflow.prompt.is_prompt", value: "true" }],
    });
    loggedModelId = (
      await mlflow(client, "/logged-models", {
        experiment_id: source.experimentId,
        source_run_id: source.mlflowRunId,
        name: "net",
        model_type: "pytorch",
      })
    ).model.info.model_id;
    // Another organization's models share names and must never show.
    const theirs = await mlflowRun(other, "vision");
    await mlflow(other, "/registered-models/create", { name: "theirs" });
    await mlflow(other, "/registered-models/create", { name: "bert", description: "not yours" });
    await mlflow(other, "/model-versions/create", { name: "bert", source: "s3://b/m", run_id: theirs.mlflowRunId });
  });
  after(async () => test.close());

  it("lists the organization's registered models by name, with aliases, tags and version counts; no prompts", async () => {
    const list = await client.get("/api/runs/models");
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 2);
    assert.deepEqual(
      list.body.models.map((m: { name: string }) => m.name),
      ["bert", "resnet/<b>"],
    );
    const resnet = list.body.models[1];
    assert.deepEqual(
      [resnet.description, resnet.tags, resnet.aliases, resnet.latestVersion, resnet.versionCount],
      ["an image model", [{ key: "team", value: "vision" }], [{ alias: "champion", version: 1 }], 2, 2],
    );
    assert.deepEqual([list.body.models[0].latestVersion, list.body.models[0].versionCount, list.body.models[0].description], [null, 0, ""]);
  });

  it("searches names case-insensitively and pages with limit and offset", async () => {
    assert.deepEqual(
      (await client.get("/api/runs/models", { search: "RESNET" })).body.models.map((m: { name: string }) => m.name),
      ["resnet/<b>"],
    );
    const page = await client.get("/api/runs/models", { limit: 1, offset: 1 });
    assert.deepEqual([page.body.total, page.body.models.map((m: { name: string }) => m.name)], [2, ["resnet/<b>"]]);
    assert.equal((await client.get("/api/runs/models", { limit: 201 })).status, 400);
    assert.equal((await client.get("/api/runs/models", { limit: 0 })).status, 400);
  });

  it("answers one model with its versions newest first: aliases, stage, tags, description, source run", async () => {
    const got = await client.get(`/api/runs/models/${encodeURIComponent("resnet/<b>")}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.model.name, "resnet/<b>");
    const [v2, v1] = got.body.versions;
    assert.deepEqual(
      [v1.version, v1.aliases, v1.stage, v1.status, v1.description, v1.mlflowRunId, v1.run],
      [
        1,
        ["champion"],
        "Production",
        "READY",
        "first",
        source.mlflowRunId,
        { runId: source.runId, projectName: "vision", displayId: source.displayId, name: "trainer" },
      ],
    );
    // A version whose run is not in the organization has no source run.
    assert.deepEqual([v2.version, v2.aliases, v2.stage, v2.tags, v2.run], [2, [], "None", [{ key: "k", value: "v" }], null]);
    const paged = await client.get(`/api/runs/models/${encodeURIComponent("resnet/<b>")}`, { limit: 1, offset: 1 });
    assert.deepEqual(
      paged.body.versions.map((v: { version: number }) => v.version),
      [1],
    );
    assert.equal((await client.get("/api/runs/models/nope")).status, 404);
    assert.equal((await client.get("/api/runs/models/a-prompt")).status, 404);
  });

  it("answers what a run made: its logged models and the versions registered from it", async () => {
    const made = await client.get(`/api/runs/models/of-run/${source.runId}`);
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual(
      made.body.loggedModels.map((m: { modelId: string; name: string; modelType: string; status: string }) => [
        m.modelId,
        m.name,
        m.modelType,
        m.status,
      ]),
      [[loggedModelId, "net", "pytorch", "PENDING"]],
    );
    assert.deepEqual(
      made.body.versions.map((v: { modelName: string; version: number; aliases: string[] }) => [v.modelName, v.version, v.aliases]),
      [["resnet/<b>", 1, ["champion"]]],
    );
    assert.equal(made.body.versions[0].run.runId, source.runId);
    const runOnly = await client.createRun({ projectName: "plain", runName: "no models" });
    assert.deepEqual((await client.get(`/api/runs/models/of-run/${runOnly.runId}`)).body, {
      runId: runOnly.runId,
      loggedModels: [],
      versions: [],
    });
    assert.equal((await client.get("/api/runs/models/of-run/999999")).status, 404);
  });

  it("another organization's key reads none of it: an empty list, 404 for the model and the run", async () => {
    const theirs = await other.get("/api/runs/models");
    assert.deepEqual(
      [theirs.body.total, theirs.body.models.map((m: { name: string; description: string }) => [m.name, m.description])],
      [
        2,
        [
          ["bert", "not yours"],
          ["theirs", ""],
        ],
      ],
    );
    assert.deepEqual((await other.get("/api/runs/models", { search: "resnet" })).body, { models: [], total: 0 });
    assert.equal((await other.get(`/api/runs/models/${encodeURIComponent("resnet/<b>")}`)).status, 404);
    assert.equal((await other.get(`/api/runs/models/of-run/${source.runId}`)).status, 404);
    // Their own "bert" has their own version; ours has none.
    assert.equal((await other.get("/api/runs/models/bert")).body.versions.length, 1);
    assert.equal((await client.get("/api/runs/models/bert")).body.versions.length, 0);
  });

  it("needs a key", async () => {
    for (const path of ["/api/runs/models", "/api/runs/models/bert", `/api/runs/models/of-run/${source.runId}`]) {
      assert.equal((await fetch(new URL(path, test.url))).status, 401, path);
    }
  });
});
