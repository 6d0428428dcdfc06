import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Saved views over real HTTP (docs/api.md, "Saved views"), on the store the run selects. */

const STATE = {
  columns: [{ source: "config", key: "lr" }],
  layout: { custom: [{ id: "custom:1", logNames: ["train/loss", "val/loss"] }], order: ["val/acc"], cap: 50 },
  hiddenRuns: [3, 5],
  query: { search: "resnet", sort: "-createdAt" },
  grouping: null,
};

describe("saved views", () => {
  let test: TestServer;
  let client: ApiClient;
  let other: ApiClient;
  before(async () => {
    test = await startTestServer();
    client = (await makeOrg(test)).client;
    other = (await makeOrg(test)).client;
    await client.createRun({ projectName: "vision" });
    await client.createRun({ projectName: "nlp" });
    // Another organization has a project of the same name.
    await other.createRun({ projectName: "vision" });
  });
  after(async () => test.close());

  const create = (c: ApiClient, body: Record<string, unknown>) => c.post("/api/runs/views", { projectName: "vision", ...body });

  it("saves a view, lists it without its state, and reads it back with its state as sent", async () => {
    const created = await create(client, { name: "  my losses ", state: STATE });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { id, createdAt, updatedAt } = created.body;
    assert.deepEqual(created.body, { id, projectName: "vision", name: "my losses", createdAt, updatedAt, state: STATE });
    const read = await client.get(`/api/runs/views/${id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const listed = await client.get("/api/runs/views", { projectName: "vision" });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.views, [{ id, projectName: "vision", name: "my losses", createdAt, updatedAt }]);
    assert.deepEqual((await client.get("/api/runs/views", { projectName: "nlp" })).body.views, [], "another project's list is its own");
  });

  it("lists newest first, a page at a time", async () => {
    for (const name of ["first", "second", "third"])
      assert.equal((await client.post("/api/runs/views", { projectName: "nlp", name, state: {} })).status, 200);
    const names = async (query: Record<string, number>) =>
      ((await client.get("/api/runs/views", { projectName: "nlp", ...query })).body.views as { name: string }[]).map((view) => view.name);
    assert.deepEqual(await names({}), ["third", "second", "first"]);
    assert.deepEqual(await names({ limit: 1, offset: 1 }), ["second"]);
    assert.equal((await client.get("/api/runs/views", { projectName: "nlp", limit: 201 })).status, 400);
  });

  it("renames, replaces the state, deletes; an unknown view is 404", async () => {
    const { id } = (await create(client, { name: "to change", state: { v: 1 } })).body;
    const renamed = await client.raw("PATCH", `/api/runs/views/${id}`, JSON.stringify({ name: "changed" }), {
      "content-type": "application/json",
    });
    assert.equal(renamed.status, 200);
    assert.deepEqual([renamed.body.name, renamed.body.state], ["changed", { v: 1 }]);
    const replaced = await client.raw("PATCH", `/api/runs/views/${id}`, JSON.stringify({ state: { v: 2 } }), {
      "content-type": "application/json",
    });
    assert.deepEqual([replaced.body.name, replaced.body.state], ["changed", { v: 2 }]);
    const empty = await client.raw("PATCH", `/api/runs/views/${id}`, "{}", { "content-type": "application/json" });
    assert.equal(empty.status, 400, "an update that changes nothing is refused");
    assert.equal((await client.raw("DELETE", `/api/runs/views/${id}`, undefined)).status, 200);
    assert.equal((await client.get(`/api/runs/views/${id}`)).status, 404);
    assert.equal((await client.raw("DELETE", `/api/runs/views/${id}`, undefined)).status, 404);
    const gone = await client.raw("PATCH", `/api/runs/views/${id}`, JSON.stringify({ name: "x" }), { "content-type": "application/json" });
    assert.equal(gone.status, 404);
    assert.match(gone.body.error, /view \d+ not found/);
  });

  it("refuses a name the project has already (409), before and after a rename, writing nothing", async () => {
    assert.equal((await create(client, { name: "taken", state: { v: 1 } })).status, 200);
    const duplicate = await create(client, { name: "taken", state: { v: 2 } });
    assert.equal(duplicate.status, 409);
    assert.match(duplicate.body.error, /already has a view named 'taken'/);
    assert.equal((await create(client, { name: " taken ", state: {} })).status, 409, "the name is trimmed before it is compared");
    assert.equal(
      (await client.post("/api/runs/views", { projectName: "nlp", name: "taken", state: {} })).status,
      200,
      "another project may use it",
    );
    const { id } = (await create(client, { name: "free", state: {} })).body;
    const rename = await client.raw("PATCH", `/api/runs/views/${id}`, JSON.stringify({ name: "taken", state: { v: 3 } }), {
      "content-type": "application/json",
    });
    assert.equal(rename.status, 409);
    assert.deepEqual((await client.get(`/api/runs/views/${id}`)).body.state, {}, "the refused update replaced no state");
    const views = (await client.get("/api/runs/views", { projectName: "vision" })).body.views as { name: string }[];
    assert.equal(views.filter((view) => view.name === "taken").length, 1);
  });

  it("refuses bad input with 400 and an error: a state that is not an object, a blank or long name, malformed JSON, an unknown project", async () => {
    for (const state of [[1, 2], "text", 3, null]) {
      const response = await create(client, { name: "bad", state });
      assert.equal(response.status, 400, JSON.stringify(state));
      assert.equal(typeof response.body.error, "string");
    }
    assert.equal((await create(client, { name: "bad" })).status, 400, "a state is required");
    assert.equal((await create(client, { name: "   ", state: {} })).status, 400);
    assert.equal((await create(client, { name: "x".repeat(201), state: {} })).status, 400);
    assert.equal((await client.raw("POST", "/api/runs/views", "{not json", { "content-type": "application/json" })).status, 400);
    assert.equal((await client.get("/api/runs/views/abc")).status, 400);
    const unknown = await client.post("/api/runs/views", { projectName: "no-such-project", name: "v", state: {} });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /project 'no-such-project' not found/);
    assert.equal(
      (await client.get("/api/runs/views", { projectName: "vision" })).body.views.filter((v: { name: string }) => v.name === "bad").length,
      0,
    );
  });

  it("bounds a state at 256 KiB of JSON (413), and stores one at the bound", async () => {
    const fill = (bytes: number) => ({ s: "é".repeat(Math.floor((bytes - '{"s":""}'.length) / 2)) });
    const fits = await create(client, { name: "big", state: fill(256 * 1024) });
    assert.equal(fits.status, 200);
    const tooLarge = await create(client, { name: "too big", state: fill(256 * 1024 + 2) });
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.body.error, /more than the 262144/);
    const patch = await client.raw("PATCH", `/api/runs/views/${fits.body.id}`, JSON.stringify({ state: fill(256 * 1024 + 2) }), {
      "content-type": "application/json",
    });
    assert.equal(patch.status, 413);
    // Under the server's 1 MiB default but over this route's 512 KiB: refused before it is parsed.
    const huge = await create(client, { name: "huge", state: { s: "x".repeat(700 * 1024) } });
    assert.equal(huge.status, 413);
    assert.match(huge.body.error, /larger than the 0.5 MiB this route accepts/);
    const names = ((await client.get("/api/runs/views", { projectName: "vision" })).body.views as { name: string }[]).map((v) => v.name);
    assert.ok(!names.includes("too big") && !names.includes("huge"));
  });

  it("isolates organizations: another's views read, change and delete as absent (404), and its lists never show them", async () => {
    const mine = (await create(client, { name: "private", state: { secret: true } })).body;
    const theirs = (await create(other, { name: "private", state: { theirs: true } })).body;
    assert.ok(theirs.id, "the same name in another organization's project of the same name is free");
    assert.equal((await other.get(`/api/runs/views/${mine.id}`)).status, 404);
    const patch = await other.raw("PATCH", `/api/runs/views/${mine.id}`, JSON.stringify({ state: { stolen: true } }), {
      "content-type": "application/json",
    });
    assert.equal(patch.status, 404);
    assert.equal((await other.raw("DELETE", `/api/runs/views/${mine.id}`, undefined)).status, 404);
    assert.deepEqual((await client.get(`/api/runs/views/${mine.id}`)).body.state, { secret: true }, "unchanged by the other organization");
    const theirList = (await other.get("/api/runs/views", { projectName: "vision" })).body.views as { id: number }[];
    assert.deepEqual(
      theirList.map((view) => view.id),
      [theirs.id],
    );
    assert.equal(
      (await other.post("/api/runs/views", { projectName: "nlp", name: "v", state: {} })).status,
      404,
      "another's project is not found",
    );
  });

  it("asks for an API key", async () => {
    assert.equal((await client.withKey(undefined).get("/api/runs/views", { projectName: "vision" })).status, 401);
    assert.equal((await client.withKey("sw_wrong").post("/api/runs/views", { projectName: "vision", name: "k", state: {} })).status, 401);
  });

  it("is in the OpenAPI document", async () => {
    const paths = (await client.get("/api/openapi.json")).body.paths as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(paths["/api/runs/views"] ?? {}).sort(), ["get", "post"]);
    assert.deepEqual(Object.keys(paths["/api/runs/views/{viewId}"] ?? {}).sort(), ["delete", "get", "patch"]);
  });
});
