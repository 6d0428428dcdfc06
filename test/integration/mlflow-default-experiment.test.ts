import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * MLflow's default experiment "0" over real HTTP (docs/api.md, "MLflow's REST API"): every
 * organization has it, as MLflow's server does, so `mlflow.start_run()` with no experiment set
 * works; in Stepwise it is a project named "Default". And the Stepwise routes that resolve MLflow's
 * IDs for the web UI.
 */

const API = "/api/2.0/mlflow";
const PROXY = "/api/2.0/mlflow-artifacts/artifacts";

type Experiment = { experiment_id: string; name: string; lifecycle_stage: string; artifact_location: string };

const experiment = async (client: ApiClient, id: string) => client.get(`${API}/experiments/get`, { experiment_id: id });
const createRun = async (client: ApiClient, body: Record<string, unknown>) => {
  const response = await client.post(`${API}/runs/create`, { start_time: 1_700_000_000_000, ...body });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.run.info as { run_id: string; experiment_id: string; artifact_uri: string; lifecycle_stage: string };
};
const projects = async (client: ApiClient) =>
  ((await client.get("/api/runs/projects")).body.projects as { id: number; name: string; runCount: number }[]).map((p) => [
    p.name,
    p.runCount,
  ]);

describe("MLflow's default experiment", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("exists in every organization: get, get-by-name, runs created in it with or without its ID, run search", async () => {
    const { client } = await makeOrg(test);
    const got = await experiment(client, "0");
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const expected = { experiment_id: "0", name: "Default", lifecycle_stage: "active", artifact_location: "mlflow-artifacts:/0", tags: [] };
    const { creation_time, last_update_time, ...rest } = got.body.experiment;
    assert.deepEqual(rest, expected);
    assert.equal(creation_time, last_update_time);
    assert.deepEqual(
      (await client.get(`${API}/experiments/get-by-name`, { experiment_name: "Default" })).body.experiment,
      got.body.experiment,
    );

    const named = await createRun(client, { experiment_id: "0", run_name: "explicit" });
    const unnamed = await createRun(client, { run_name: "no experiment set" });
    for (const info of [named, unnamed]) {
      assert.equal(info.experiment_id, "0");
      assert.equal(info.artifact_uri, `mlflow-artifacts:/0/${info.run_id}/artifacts`);
      assert.equal((await client.get(`${API}/runs/get`, { run_id: info.run_id })).body.run.info.experiment_id, "0");
    }
    const search = await client.post(`${API}/runs/search`, {
      experiment_ids: ["0"],
      filter: "attributes.artifact_uri LIKE 'mlflow-artifacts:/0/%'",
    });
    assert.deepEqual(
      search.body.runs.map((r: { info: { run_id: string; experiment_id: string } }) => [r.info.run_id, r.info.experiment_id]).sort(),
      [
        [named.run_id, "0"],
        [unnamed.run_id, "0"],
      ].sort(),
    );
    assert.deepEqual(await projects(client), [["Default", 2]], "a Stepwise project like any other, made once");
  });

  it("is listed by experiments/search as MLflow's server lists it: the oldest, so last by default", async () => {
    const { client } = await makeOrg(test);
    const ids = [];
    // Creation times a millisecond apart at least, so the order does not fall to the tie-break.
    for (const name of ["first", "second"]) {
      await sleep(3);
      ids.push((await client.post(`${API}/experiments/create`, { name })).body.experiment_id);
    }
    const listed = (await client.post(`${API}/experiments/search`, {})).body.experiments as Experiment[];
    assert.deepEqual(
      listed.map((e) => [e.experiment_id, e.name]),
      [
        [ids[1], "second"],
        [ids[0], "first"],
        ["0", "Default"],
      ],
    );
    const byId = (await client.post(`${API}/experiments/search`, { order_by: ["experiment_id"] })).body.experiments as Experiment[];
    assert.equal(byId[0]!.experiment_id, "0");
    const filtered = await client.post(`${API}/experiments/search`, { filter: "name = 'Default'" });
    assert.deepEqual(
      filtered.body.experiments.map((e: Experiment) => e.experiment_id),
      ["0"],
    );
    // MLflow's server has "Default" from the start: creating it again is taken.
    const taken = await client.post(`${API}/experiments/create`, { name: "Default" });
    assert.deepEqual([taken.status, taken.body.error_code], [400, "RESOURCE_ALREADY_EXISTS"]);
    const fresh = (await makeOrg(test)).client;
    const takenFirst = await fresh.post(`${API}/experiments/create`, { name: "Default" });
    assert.deepEqual([takenFirst.status, takenFirst.body.error_code], [400, "RESOURCE_ALREADY_EXISTS"], "even before anything needed it");
  });

  it("is renamed, deleted and restored as MLflow's database-backed server does, staying experiment 0", async () => {
    const { client } = await makeOrg(test);
    const run = await createRun(client, { experiment_id: "0" });
    assert.equal((await client.post(`${API}/experiments/update`, { experiment_id: "0", new_name: "Sandbox" })).status, 200);
    assert.equal((await experiment(client, "0")).body.experiment.name, "Sandbox");
    const gone = await client.get(`${API}/experiments/get-by-name`, { experiment_name: "Default" });
    assert.deepEqual([gone.status, gone.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], "no second default once renamed");
    const another = await client.post(`${API}/experiments/create`, { name: "Default" });
    assert.equal(another.status, 200, "the name is free again");
    assert.notEqual(another.body.experiment_id, "0");
    assert.equal((await createRun(client, {})).experiment_id, "0", "runs without an experiment still go to experiment 0");

    assert.equal((await client.post(`${API}/experiments/delete`, { experiment_id: "0" })).status, 200);
    assert.equal((await experiment(client, "0")).body.experiment.lifecycle_stage, "deleted");
    assert.equal((await client.get(`${API}/runs/get`, { run_id: run.run_id })).body.run.info.lifecycle_stage, "deleted");
    const refused = await client.post(`${API}/runs/create`, { experiment_id: "0" });
    assert.deepEqual([refused.status, refused.body.error_code], [400, "INVALID_PARAMETER_VALUE"]);
    assert.match(refused.body.message, /experiment 0 must be in the 'active' state/);
    const active = (await client.post(`${API}/experiments/search`, {})).body.experiments as Experiment[];
    assert.ok(!active.some((e) => e.experiment_id === "0"), "deleted: not among the active ones, and not made again");
    assert.equal((await client.post(`${API}/experiments/restore`, { experiment_id: "0" })).status, 200);
    assert.equal((await client.get(`${API}/runs/get`, { run_id: run.run_id })).body.run.info.lifecycle_stage, "active");
    assert.deepEqual(await projects(client), [
      ["Default", 0],
      ["Sandbox", 2],
    ]);
  });

  it("adopts a project named Default that Stepwise's runs made, which keeps answering to its own ID", async () => {
    const { client } = await makeOrg(test);
    const logged = await client.createRun({ projectName: "Default", runName: "from the Stepwise SDK" });
    const got = await experiment(client, "0");
    assert.equal(got.body.experiment.experiment_id, "0");
    const projectId = (await client.get("/api/runs/projects")).body.projects[0].id as number;
    assert.equal((await experiment(client, String(projectId))).body.experiment.experiment_id, "0", "its project ID names it too");
    const search = await client.post(`${API}/runs/search`, { experiment_ids: ["0", String(projectId)] });
    assert.equal(search.body.runs.length, 1, "one experiment, searched once");
    assert.equal(search.body.runs[0].info.run_name, "from the Stepwise SDK");
    const details = await client.get(`/api/runs/details/${logged.runId}`);
    assert.equal(details.body.projectName, "Default");
    assert.deepEqual(await projects(client), [["Default", 1]]);
  });

  it("stores artifacts under experiment 0, and under the project's own ID", async () => {
    const { client } = await makeOrg(test);
    const run = await createRun(client, {});
    const root = `0/${run.run_id}/artifacts`;
    const put = (path: string, body: string) => client.raw("PUT", `${PROXY}/${path}`, body, { "content-type": "application/octet-stream" });
    assert.equal((await put(`${root}/a.txt`, "a")).status, 200);
    const projectId = (await client.get("/api/runs/projects")).body.projects[0].id as number;
    assert.equal((await put(`${projectId}/${run.run_id}/artifacts/b.txt`, "b")).status, 200);
    const listed = await client.get(`${API}/artifacts/list`, { run_id: run.run_id });
    assert.deepEqual(listed.body, {
      root_uri: `mlflow-artifacts:/${root}`,
      files: [
        { path: "a.txt", is_dir: false, file_size: 1 },
        { path: "b.txt", is_dir: false, file_size: 1 },
      ],
    });
    const other = await client.post(`${API}/experiments/create`, { name: "elsewhere" });
    const wrong = await put(`${other.body.experiment_id}/${run.run_id}/artifacts/c.txt`, "c");
    assert.deepEqual([wrong.status, wrong.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"], "another experiment's path names no run");
  });

  it("is made once when an organization's first requests all need it at the same moment", async () => {
    for (let round = 0; round < 3; round++) {
      const { client } = await makeOrg(test);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          i % 3 === 0
            ? client.post(`${API}/runs/create`, { experiment_id: "0" })
            : i % 3 === 1
              ? experiment(client, "0")
              : client.post(`${API}/experiments/search`, {}),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(await projects(client), [["Default", 8]]);
    }
  });

  it("keeps each organization's default its own", async () => {
    const a = (await makeOrg(test)).client;
    const b = (await makeOrg(test)).client;
    const runA = await createRun(a, { experiment_id: "0", run_name: "a's" });
    await createRun(b, { experiment_id: "0", run_name: "b's" });
    const seenByB = await b.post(`${API}/runs/search`, { experiment_ids: ["0"] });
    assert.deepEqual(
      seenByB.body.runs.map((r: { info: { run_name: string } }) => r.info.run_name),
      ["b's"],
    );
    const foreign = await b.get(`${API}/runs/get`, { run_id: runA.run_id });
    assert.deepEqual([foreign.status, foreign.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
    assert.equal((await a.post(`${API}/experiments/update`, { experiment_id: "0", new_name: "A only" })).status, 200);
    assert.equal((await experiment(b, "0")).body.experiment.name, "Default");
  });
});
