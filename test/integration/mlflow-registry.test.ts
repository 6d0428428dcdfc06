import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** MLflow's model registry over real HTTP (docs/api.md, "MLflow's REST API: the model registry"), on the store the run selects. */

const API = "/api/2.0/mlflow";
const SOURCE = "mlflow-artifacts:/1/0123456789abcdef0123456789abcdef/artifacts/model";

const send = (client: ApiClient, method: "PATCH" | "DELETE", path: string, body: unknown) =>
  client.raw(method, `${API}${path}`, JSON.stringify(body), { "content-type": "application/json" });

async function createModel(client: ApiClient, name: string, body: Record<string, unknown> = {}) {
  const response = await client.post(`${API}/registered-models/create`, { name, ...body });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.registered_model;
}

async function createVersion(client: ApiClient, name: string, body: Record<string, unknown> = {}) {
  const response = await client.post(`${API}/model-versions/create`, {
    name,
    source: SOURCE,
    run_id: "0123456789abcdef0123456789abcdef",
    ...body,
  });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.model_version;
}

const errorOf = (response: { status: number; body: { error_code?: string } }) => [response.status, response.body.error_code];

describe("MLflow's model registry", () => {
  let test: TestServer;
  let client: ApiClient;
  before(async () => {
    test = await startTestServer();
    client = test.client;
  });
  after(async () => test.close());

  it("creates, gets, updates, renames (versions follow) and deletes registered models, in MLflow's shapes and errors", async () => {
    const created = await createModel(client, "m1", { description: "d", tags: [{ key: "team", value: "ml" }] });
    assert.deepEqual(
      [created.name, created.description, created.tags, created.aliases, created.latest_versions],
      ["m1", "d", [{ key: "team", value: "ml" }], undefined, undefined],
    );
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/create`, { name: "m1" })), [400, "RESOURCE_ALREADY_EXISTS"]);
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/create`, { name: "" })), [400, "INVALID_PARAMETER_VALUE"]);
    assert.deepEqual(errorOf(await client.get(`${API}/registered-models/get`, { name: "nope" })), [404, "RESOURCE_DOES_NOT_EXIST"]);

    const v1 = await createVersion(client, "m1", { tags: [{ key: "t", value: "1" }], description: "first" });
    assert.deepEqual(
      [v1.name, v1.version, v1.current_stage, v1.status, v1.source, v1.run_id, v1.tags, v1.aliases, v1.description],
      ["m1", "1", "None", "READY", SOURCE, "0123456789abcdef0123456789abcdef", [{ key: "t", value: "1" }], undefined, "first"],
    );
    assert.equal((await createVersion(client, "m1")).version, "2");
    assert.deepEqual(errorOf(await client.post(`${API}/model-versions/create`, { name: "nope", source: SOURCE })), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
    ]);

    const updated = await send(client, "PATCH", "/registered-models/update", { name: "m1", description: "new" });
    assert.equal(updated.body.registered_model.description, "new");
    await createModel(client, "taken");
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/rename`, { name: "m1", new_name: "taken" })), [
      400,
      "RESOURCE_ALREADY_EXISTS",
    ]);
    const renamed = await client.post(`${API}/registered-models/rename`, { name: "m1", new_name: "m2" });
    assert.equal(renamed.body.registered_model.name, "m2");
    assert.equal((await client.get(`${API}/model-versions/get`, { name: "m2", version: "2" })).body.model_version.name, "m2");
    assert.deepEqual(errorOf(await client.get(`${API}/model-versions/get`, { name: "m1", version: "1" })), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
    ]);
    assert.deepEqual(errorOf(await client.get(`${API}/model-versions/get`, { name: "m2", version: "x" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);

    assert.equal((await send(client, "DELETE", "/registered-models/delete", { name: "m2" })).status, 200);
    assert.deepEqual(errorOf(await client.get(`${API}/model-versions/get`, { name: "m2", version: "1" })), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
    ]);
    assert.deepEqual(errorOf(await send(client, "DELETE", "/registered-models/delete", { name: "m2" })), [404, "RESOURCE_DOES_NOT_EXIST"]);
  });

  it("tags, aliases, stages with archive_existing_versions, latest versions, version delete and the download URI", async () => {
    await createModel(client, "s");
    for (let i = 0; i < 3; i++) await createVersion(client, "s");
    await client.post(`${API}/registered-models/set-tag`, { name: "s", key: "k", value: "v" });
    await client.post(`${API}/model-versions/set-tag`, { name: "s", version: "1", key: "vk", value: "vv" });
    await send(client, "DELETE", "/registered-models/delete-tag", { name: "s", key: "missing" });
    assert.deepEqual((await client.get(`${API}/registered-models/get`, { name: "s" })).body.registered_model.tags, [
      { key: "k", value: "v" },
    ]);
    await send(client, "DELETE", "/model-versions/delete-tag", { name: "s", version: "1", key: "vk" });
    assert.deepEqual((await client.get(`${API}/model-versions/get`, { name: "s", version: "1" })).body.model_version.tags, undefined);

    assert.equal((await client.post(`${API}/registered-models/alias`, { name: "s", alias: "champion", version: "2" })).status, 200);
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/alias`, { name: "s", alias: "latest", version: "2" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/alias`, { name: "s", alias: "v3", version: "2" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual(errorOf(await client.post(`${API}/registered-models/alias`, { name: "s", alias: "a", version: "9" })), [
      404,
      "RESOURCE_DOES_NOT_EXIST",
    ]);
    const byAlias = await client.get(`${API}/registered-models/alias`, { name: "s", alias: "champion" });
    assert.deepEqual([byAlias.body.model_version.version, byAlias.body.model_version.aliases], ["2", ["champion"]]);
    assert.deepEqual(errorOf(await client.get(`${API}/registered-models/alias`, { name: "s", alias: "other" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual((await client.get(`${API}/registered-models/get`, { name: "s" })).body.registered_model.aliases, [
      { alias: "champion", version: "2" },
    ]);

    const stage = (version: string, stageName: string, archive = false) =>
      client.post(`${API}/model-versions/transition-stage`, { name: "s", version, stage: stageName, archive_existing_versions: archive });
    assert.equal((await stage("1", "production")).body.model_version.current_stage, "Production");
    await stage("2", "Production");
    assert.deepEqual(errorOf(await stage("3", "Gone")), [400, "INVALID_PARAMETER_VALUE"]);
    assert.deepEqual(errorOf(await stage("3", "Archived", true)), [400, "INVALID_PARAMETER_VALUE"]);
    await stage("3", "Production", true);
    const stages = async () =>
      (
        (await client.get(`${API}/model-versions/search`, { filter: "name = 's'" })).body.model_versions as {
          version: string;
          current_stage: string;
        }[]
      )
        .map((v) => [v.version, v.current_stage])
        .sort();
    assert.deepEqual(await stages(), [
      ["1", "Archived"],
      ["2", "Archived"],
      ["3", "Production"],
    ]);
    const latest = await client.post(`${API}/registered-models/get-latest-versions`, { name: "s", stages: ["Production", "Archived"] });
    assert.deepEqual(
      latest.body.model_versions.map((v: { version: string }) => v.version),
      ["2", "3"],
    );

    const uri = await client.get(`${API}/model-versions/get-download-uri`, { name: "s", version: "3" });
    assert.equal(uri.body.artifact_uri, SOURCE);
    // A models:/ source takes the named version's location.
    assert.equal((await createVersion(client, "s", { source: "models:/s/3" })).source, "models:/s/3");
    assert.equal((await client.get(`${API}/model-versions/get-download-uri`, { name: "s", version: "4" })).body.artifact_uri, SOURCE);
    for (const source of ["/tmp/model", "file:///tmp/model", "mlflow-artifacts:/1/x/artifacts/../../../etc", "s3://b/%2E%2E/x"])
      assert.deepEqual(
        errorOf(await client.post(`${API}/model-versions/create`, { name: "s", source })),
        [400, "INVALID_PARAMETER_VALUE"],
        source,
      );

    assert.equal((await send(client, "DELETE", "/model-versions/delete", { name: "s", version: "2" })).status, 200);
    assert.deepEqual(
      (await client.get(`${API}/registered-models/get`, { name: "s" })).body.registered_model.aliases,
      undefined,
      "the deleted version's alias goes",
    );
    assert.equal((await createVersion(client, "s")).version, "5", "a deleted version's number is not reused");
    await send(client, "DELETE", "/registered-models/alias", { name: "s", alias: "champion" });
  });

  it("searches registered models and versions with MLflow's filter grammar, order_by and page tokens", async () => {
    const { client: own } = await makeOrg(test);
    for (const name of ["alpha", "beta", "gamma", "Alpine"])
      await createModel(own, name, { tags: [{ key: "kind", value: name.length > 4 ? "long" : "short" }] });
    const search = async (query: Record<string, string | number>) => (await own.get(`${API}/registered-models/search`, query)).body;
    assert.deepEqual(
      (await search({})).registered_models.map((m: { name: string }) => m.name),
      ["Alpine", "alpha", "beta", "gamma"],
    );
    assert.deepEqual(
      (await search({ filter: "name LIKE 'al%'" })).registered_models.map((m: { name: string }) => m.name),
      ["alpha"],
    );
    assert.deepEqual(
      (await search({ filter: "name ILIKE 'al%'" })).registered_models.map((m: { name: string }) => m.name),
      ["Alpine", "alpha"],
    );
    assert.deepEqual(
      (await search({ filter: "tags.kind = 'short'" })).registered_models.map((m: { name: string }) => m.name),
      ["beta"],
    );
    // MLflow 3's client appends this clause to every search: models without the tag are not prompts.
    assert.equal((await search({ filter: "name = 'beta' AND tag.`mlflow.prompt.is_prompt` != 'true'" })).registered_models.length, 1);
    const first = await search({ max_results: 3, order_by: "name DESC" });
    assert.deepEqual(
      first.registered_models.map((m: { name: string }) => m.name),
      ["gamma", "beta", "alpha"],
    );
    const second = await search({ max_results: 3, order_by: "name DESC", page_token: first.next_page_token });
    assert.deepEqual([second.registered_models.map((m: { name: string }) => m.name), second.next_page_token], [["Alpine"], undefined]);
    assert.deepEqual(errorOf(await own.get(`${API}/registered-models/search`, { filter: "metrics.x > 1" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual(errorOf(await own.get(`${API}/registered-models/search`, { max_results: 1001 })), [400, "INVALID_PARAMETER_VALUE"]);
    assert.deepEqual(errorOf(await own.get(`${API}/registered-models/search`, { order_by: "tags.kind" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual(errorOf(await own.get(`${API}/model-versions/search`, { order_by: "run_id" })), [400, "INVALID_PARAMETER_VALUE"]);

    for (let i = 0; i < 3; i++) await createVersion(own, "alpha", { run_id: i === 0 ? "r0" : "r1" });
    await createVersion(own, "beta", { run_id: "r1" });
    const versions = async (query: Record<string, string | number>) =>
      ((await own.get(`${API}/model-versions/search`, query)).body.model_versions ?? []).map(
        (v: { name: string; version: string }) => `${v.name}/${v.version}`,
      );
    assert.deepEqual(await versions({ filter: "run_id = 'r1'", order_by: "name ASC" }), ["alpha/3", "alpha/2", "beta/1"]);
    assert.deepEqual(await versions({ filter: "name = 'alpha' AND version_number > 1", order_by: "version_number ASC" }), [
      "alpha/2",
      "alpha/3",
    ]);
    assert.deepEqual(await versions({ filter: "run_id IN ('r0')" }), ["alpha/1"]);
    const page = (await own.get(`${API}/model-versions/search`, { max_results: 2, order_by: "version_number ASC" })).body;
    assert.equal(page.model_versions.length, 2);
    const rest = (
      await own.get(`${API}/model-versions/search`, { max_results: 2, order_by: "version_number ASC", page_token: page.next_page_token })
    ).body;
    assert.deepEqual(
      [...page.model_versions, ...rest.model_versions].map((v: { name: string; version: string }) => `${v.name}/${v.version}`).sort(),
      ["alpha/1", "alpha/2", "alpha/3", "beta/1"],
    );
  });

  it("isolates organizations on every route: another organization's models and versions do not exist", async () => {
    const { client: owner } = await makeOrg(test);
    const { client: other } = await makeOrg(test);
    await createModel(owner, "secret", { tags: [{ key: "k", value: "v" }] });
    await createVersion(owner, "secret");
    await owner.post(`${API}/registered-models/alias`, { name: "secret", alias: "prod", version: "1" });
    const missing = [404, "RESOURCE_DOES_NOT_EXIST"];
    const n = { name: "secret" };
    const nv = { name: "secret", version: "1" };
    assert.deepEqual(errorOf(await other.get(`${API}/registered-models/get`, n)), missing);
    assert.deepEqual(errorOf(await send(other, "PATCH", "/registered-models/update", { ...n, description: "x" })), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/registered-models/rename`, { ...n, new_name: "mine" })), missing);
    assert.deepEqual(errorOf(await send(other, "DELETE", "/registered-models/delete", n)), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/registered-models/get-latest-versions`, n)), missing);
    assert.deepEqual(errorOf(await other.get(`${API}/registered-models/get-latest-versions`, n)), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/registered-models/set-tag`, { ...n, key: "k", value: "x" })), missing);
    assert.deepEqual(errorOf(await send(other, "DELETE", "/registered-models/delete-tag", { ...n, key: "k" })), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/registered-models/alias`, { ...n, alias: "prod", version: "1" })), missing);
    assert.deepEqual(errorOf(await send(other, "DELETE", "/registered-models/alias", { ...n, alias: "prod" })), missing);
    assert.deepEqual(errorOf(await other.get(`${API}/registered-models/alias`, { ...n, alias: "prod" })), [400, "INVALID_PARAMETER_VALUE"]);
    assert.deepEqual(errorOf(await other.post(`${API}/model-versions/create`, { ...n, source: SOURCE })), missing);
    assert.deepEqual(errorOf(await other.get(`${API}/model-versions/get`, nv)), missing);
    assert.deepEqual(errorOf(await send(other, "PATCH", "/model-versions/update", { ...nv, description: "x" })), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/model-versions/transition-stage`, { ...nv, stage: "Production" })), missing);
    assert.deepEqual(errorOf(await send(other, "DELETE", "/model-versions/delete", nv)), missing);
    assert.deepEqual(errorOf(await other.get(`${API}/model-versions/get-download-uri`, nv)), missing);
    assert.deepEqual(errorOf(await other.post(`${API}/model-versions/set-tag`, { ...nv, key: "k", value: "x" })), missing);
    assert.deepEqual(errorOf(await send(other, "DELETE", "/model-versions/delete-tag", { ...nv, key: "k" })), missing);
    // A models:/ source names a model of the caller's organization only.
    await createModel(other, "mine");
    assert.deepEqual(errorOf(await other.post(`${API}/model-versions/create`, { name: "mine", source: "models:/secret/1" })), [
      400,
      "INVALID_PARAMETER_VALUE",
    ]);
    assert.deepEqual((await other.get(`${API}/registered-models/search`)).body.registered_models, [
      { ...(await other.get(`${API}/registered-models/get`, { name: "mine" })).body.registered_model },
    ]);
    assert.equal((await other.get(`${API}/model-versions/search`, { filter: "name = 'secret'" })).body.model_versions, undefined);
    // The same name in two organizations: two models.
    await createModel(other, "secret");
    assert.equal((await createVersion(other, "secret")).version, "1");
    const mine = (await owner.get(`${API}/registered-models/get`, n)).body.registered_model;
    assert.deepEqual(
      [mine.tags, mine.aliases, mine.latest_versions.length],
      [[{ key: "k", value: "v" }], [{ alias: "prod", version: "1" }], 1],
    );
  });
});
