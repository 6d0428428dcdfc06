import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * Stepwise's routes that resolve MLflow's IDs (docs/api.md, "Links MLflow's client prints"): the web
 * UI opens `/#/experiments/<id>/runs/<run id>` through them. Over real HTTP, in the caller's
 * organization only.
 */

const API = "/api/2.0/mlflow";

describe("Stepwise's routes for MLflow's IDs (the links MLflow's client prints)", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("resolves an experiment ID to its project and a run ID to its run, in the caller's organization only", async () => {
    const { client } = await makeOrg(test);
    const { client: other } = await makeOrg(test);
    const missingDefault = await client.get("/api/runs/projects/by-mlflow-id/0");
    assert.deepEqual(
      [missingDefault.status, missingDefault.body.error],
      [404, "no project is MLflow's experiment '0'"],
      "a read makes no default",
    );

    const created = await client.post(`${API}/runs/create`, { run_name: "in default" });
    const run = created.body.run.info as { run_id: string };
    const project = await client.get("/api/runs/projects/by-mlflow-id/0");
    assert.equal(project.status, 200, JSON.stringify(project.body));
    assert.deepEqual([project.body.name, project.body.runCount], ["Default", 1]);
    const experimentId = (await client.post(`${API}/experiments/create`, { name: "vision" })).body.experiment_id as string;
    const vision = await client.get(`/api/runs/projects/by-mlflow-id/${experimentId}`);
    assert.deepEqual([vision.body.id, vision.body.name], [Number(experimentId), "vision"]);

    const details = await client.get(`/api/runs/details/by-mlflow-id/${run.run_id}`);
    assert.equal(details.status, 200, JSON.stringify(details.body));
    assert.deepEqual([details.body.name, details.body.projectName, details.body.status], ["in default", "Default", "RUNNING"]);
    assert.deepEqual(details.body, (await client.get(`/api/runs/details/${details.body.id}`)).body, "the same details as by run ID");

    // Another organization: the run and the experiment do not exist; its own "0" is its own.
    const foreignRun = await other.get(`/api/runs/details/by-mlflow-id/${run.run_id}`);
    assert.deepEqual([foreignRun.status, foreignRun.body.error], [404, `run '${run.run_id}' not found`]);
    assert.equal((await other.get(`/api/runs/projects/by-mlflow-id/${experimentId}`)).status, 404);
    assert.equal((await other.get("/api/runs/projects/by-mlflow-id/0")).status, 404, "its default does not exist yet");
    await other.get(`${API}/experiments/get`, { experiment_id: "0" });
    const theirs = await other.get("/api/runs/projects/by-mlflow-id/0");
    assert.notEqual(theirs.body.id, project.body.id);

    for (const bad of ["00", "x", "-1", "1.5", "12345678901234567"])
      assert.equal((await client.get(`/api/runs/projects/by-mlflow-id/${bad}`)).status, 400, bad);
    for (const bad of ["0".repeat(31), "A".repeat(32), "g".repeat(32)])
      assert.equal((await client.get(`/api/runs/details/by-mlflow-id/${bad}`)).status, 400, bad);
    assert.equal((await client.get(`/api/runs/details/by-mlflow-id/${"0".repeat(32)}`)).status, 404);
    assert.equal((await client.get("/api/runs/projects/by-mlflow-id/999999999")).status, 404);
    const openapi = (await client.get("/api/openapi.json")).body;
    assert.ok(openapi.paths["/api/runs/projects/by-mlflow-id/{experimentId}"], "in the OpenAPI document");
    assert.ok(openapi.paths["/api/runs/details/by-mlflow-id/{mlflowRunId}"], "in the OpenAPI document");
  });
});
