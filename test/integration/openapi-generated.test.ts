import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { writeCounter, type WriteCounter } from "../helpers/write-counter.js";
import { hashPassword } from "../../src/domain/passwords.js";

/**
 * Generated from the OpenAPI document the server publishes, so a new route, parameter or body
 * field is covered without touching this file: every query parameter, path parameter, header,
 * JSON body value and key (inside JSON-text fields and NDJSON lines too) of every operation gets
 * each name Object.prototype answers to. None may give a 5xx; a refused request (4xx) must commit
 * nothing; the process's Object.prototype must stay as it was; another organization's data must
 * read back the same. Values come from the schemas (their `examples` first), and parameters that
 * must name something real (runId, projectName, ...) are filled from a fixture run, so requests get
 * past look-ups into the code under them.
 */

/**
 * Operations whose valid request is refused by design on this test server, in their handler (so
 * the variants still reach it): single sign-on is off here (docs/api.md, "Single sign-on"), and
 * the test sends a key, which has no browser session to move to another organization.
 */
const BASELINE_REFUSED = new Map([
  ["GET /api/auth/oidc/start", 404],
  ["GET /api/auth/oidc/callback", 404],
  ["POST /api/auth/session/organization", 400],
]);

/** POST routes that take nothing but their path: they answer from the credentials alone. */
const BODYLESS_POSTS = new Set(["/api/slug", "/api/auth/sign-out"]);

const HOSTILE = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Schema {
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  examples?: Json[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  minItems?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  pattern?: string;
  anyOf?: Schema[];
  /** One of several branches (an alert rule's condition, chosen by its `type`). */
  oneOf?: Schema[];
}
interface Parameter {
  in: "query" | "path" | "header";
  name: string;
  required?: boolean;
  schema: Schema;
  /** @fastify/swagger moves a schema's single example here. */
  example?: Json;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  bodyExample?: Json;
  secured: boolean;
}

/** A value a schema accepts: its example, else the simplest one. */
function sample(schema: Schema, fixtures: ReadonlyMap<string, Json>, name = ""): Json {
  const fixture = fixtures.get(name);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (fixture !== undefined && (typeof fixture === "number") === (type === "integer" || type === "number")) return fixture;
  if (schema.examples?.length) return schema.examples[0]!;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0]!;
  if (schema.anyOf ?? schema.oneOf) return sample((schema.anyOf ?? schema.oneOf)![0]!, fixtures, name);
  switch (type) {
    case "object": {
      const object: Record<string, Json> = Object.create(null);
      for (const [key, property] of Object.entries(schema.properties ?? {})) object[key] = sample(property, fixtures, key);
      if (typeof schema.additionalProperties === "object") object.key = sample(schema.additionalProperties, fixtures);
      return { ...object };
    }
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sample(schema.items ?? {}, fixtures));
    case "integer":
    case "number":
      return Math.max(schema.minimum ?? 0, 1);
    case "boolean":
      return true;
    case "string":
      if (schema.format === "date-time") return new Date(0).toISOString();
      if (schema.pattern?.includes("\\d")) return "1";
      return "sample";
    default:
      return "sample";
  }
}

/** Every way to put one hostile word into a JSON value: as each value, as a new key of each object, in place of each key. */
function* mutations(value: Json, word: string): Generator<Json> {
  if (typeof value === "string") {
    yield word;
    const inner = parseJsonText(value);
    if (inner !== undefined) for (const changed of mutations(inner, word)) yield JSON.stringify(changed);
    return;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      for (const changed of mutations(item, word)) yield value.map((other, i) => (i === index ? changed : other));
    }
    if (value.length === 0) yield [word];
    return;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    yield Object.fromEntries([...entries, [word, 1]]);
    for (const [index, [key, child]] of entries.entries()) {
      yield Object.fromEntries(entries.map((entry, i) => (i === index ? [word, entry[1]] : entry)));
      for (const changed of mutations(child, word))
        yield Object.fromEntries(entries.map((entry, i) => (i === index ? [key, changed] : entry)));
    }
    return;
  }
  yield word;
}

function parseJsonText(text: string): Json | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

function operationsOf(document: { paths: Record<string, Record<string, any>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []) as Parameter[],
      body: operation.requestBody?.content?.["application/json"]?.schema as Schema | undefined,
      bodyExample: operation.requestBody?.content?.["application/json"]?.example as Json | undefined,
      secured: !Array.isArray(operation.security) || operation.security.length > 0,
    })),
  );
}

interface Request {
  query: Map<string, string>;
  path: Map<string, string>;
  headers: Map<string, string>;
  body: Json | undefined;
}

describe("generated from the OpenAPI document: Object.prototype names everywhere", () => {
  let test: TestServer;
  let client: ApiClient;
  let operations: Operation[];
  let writes: WriteCounter;
  const fixtures = new Map<string, Json>();
  /**
   * Bodies of operations that must not take the fixture run from the operations after them: a run
   * deleted (then restored) by them is one of their own.
   */
  const bodies = new Map<string, Json>();
  /** Query and path values of the signed routes, from real signed URLs. */
  const signed = new Map<string, Map<string, string>>();

  before(async () => {
    // No stale-run monitor: its lease renewal is a write of its own, and one landing between a
    // refused request and the write check below reads as "refused but wrote" (seen once under load).
    // No alert delivery either (--alerts-concurrency 0): its claims and outcomes are writes too.
    test = await startTestServer({ flags: { "--stale-after": "0", "--alerts-concurrency": "0" } });
    const org = await makeOrg(test);
    client = org.client;
    const run = await client.createRun({
      projectName: "proto",
      runName: "fixture",
      config: JSON.stringify({ lr: 0.1, model: { depth: 2 } }),
    });
    const ingest = await client.raw("POST", "/ingest/metrics", JSON.stringify({ time: 1, step: 0, data: { loss: 1 } }), {
      "x-run-id": String(run.runId),
      "x-project-name": run.projectName,
    });
    assert.equal(ingest.status, 200);
    const register = await client.raw(
      "POST",
      "/files",
      JSON.stringify({ files: [{ fileName: "f.png", fileType: "png", fileSize: 1, time: 1, step: 0, logName: "images" }] }),
      { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": run.projectName },
    );
    const uploadUrl = new URL(Object.values(register.body.images[0])[0] as string);
    assert.equal((await fetch(uploadUrl, { method: "PUT", body: "x" })).status, 200);
    const downloadUrl = new URL((await client.get("/api/runs/files", run)).body.files[0].url);
    for (const url of [uploadUrl, downloadUrl]) signed.set(url.pathname.split("/").slice(0, 3).join("/"), new Map(url.searchParams));
    const fileId = Number(uploadUrl.pathname.split("/")[3]);
    // The fixture run's MLflow IDs: its project's experiment ID, and its run ID.
    const experimentId = String((await client.get("/api/runs/projects")).body.projects[0].id);
    const mlflowRunId = (await client.post("/api/2.0/mlflow/runs/search", { experiment_ids: [experimentId] })).body.runs[0].info.run_id;
    // A registered model with a version of the fixture run, for the model reads (GET /api/runs/models/{name}).
    assert.equal((await client.post("/api/2.0/mlflow/registered-models/create", { name: "fixture-model" })).status, 200);
    const version = await client.post("/api/2.0/mlflow/model-versions/create", {
      name: "fixture-model",
      source: `mlflow-artifacts:/${experimentId}/${mlflowRunId}/artifacts/model`,
      run_id: mlflowRunId,
    });
    assert.equal(version.status, 200);

    // An alert destination (ID 1, which the alert routes' samples name) and a failed delivery to it, for the retry route.
    const hook = await client.post("/api/alerts/destinations", {
      name: "fixture-hook",
      kind: "webhook",
      url: "https://hooks.example.com/x",
    });
    assert.equal(hook.status, 201);
    const { deliveryId } = (await client.post(`/api/alerts/destinations/${hook.body.destination.id}/test`)).body;
    const store = test.server.store;
    for (const claimed of await store.claimAlertDeliveries(Date.now(), 10, 60_000, "fixture"))
      await store.finishAlertDelivery(claimed.id, "fixture", { status: "failed", error: "fixture" }, Date.now());

    // People (docs/api.md, "Members"): one to sign in with a password, one to change and remove, and an invitation link to use.
    const signer = await store.createUser(
      { orgId: org.organization.id, email: "fixture-signer@example.com", name: "s", kind: "person" },
      Date.now(),
    );
    await store.setMembership(org.organization.id, signer.id, "member", Date.now());
    await store.setPasswordHash(signer.id, await hashPassword("fixture password"));
    bodies.set("POST /api/auth/sign-in", { email: "fixture-signer@example.com", password: "fixture password" });
    const invited = await client.post("/api/members", { email: "fixture-invitee@example.com", role: "member" });
    assert.equal(invited.status, 200);
    bodies.set("POST /api/members", { email: "fixture-invitee@example.com", role: "member" });
    bodies.set("POST /api/auth/invitations/{token}/accept", { password: "fixture password" });
    bodies.set("POST /api/members/{userId}/role", { role: "viewer" });

    for (const [name, value] of Object.entries({
      destinationId: hook.body.destination.id,
      deliveryId,
      runId: run.runId,
      forkRunId: run.runId,
      runIds: String(run.runId),
      projectName: run.projectName,
      displayId: run.displayId,
      "x-run-id": String(run.runId),
      "x-project-name": run.projectName,
      fileId,
      fileName: "f.png",
      forkStep: 0,
      logName: "loss",
      experimentId,
      mlflowRunId,
      name: "fixture-model",
      token: invited.body.invitationUrl.split("/invite/")[1],
      userId: invited.body.member.user.id,
    })) {
      fixtures.set(name, value);
    }
    const disposable = await client.createRun({ projectName: "proto", runName: "disposable" });
    for (const path of ["/api/runs/delete", "/api/runs/restore"]) bodies.set(`POST ${path}`, { runIds: [disposable.runId] });
    operations = operationsOf((await client.get<Parameters<typeof operationsOf>[0]>("/api/openapi.json")).body);
    writes = await writeCounter(test);
  });
  after(async () => {
    await writes?.close();
    await test.close();
  });

  /** The request that reaches each operation's handler with valid input. */
  function baseline(operation: Operation): Request {
    const request: Request = { query: new Map(), path: new Map(), headers: new Map(), body: undefined };
    const signedQuery = signed.get(operation.path.split("/").slice(0, 3).join("/"));
    for (const parameter of operation.parameters) {
      const target = parameter.in === "query" ? request.query : parameter.in === "path" ? request.path : request.headers;
      const value = signedQuery?.get(parameter.name) ?? parameter.example ?? sample(parameter.schema, fixtures, parameter.name);
      if (parameter.required || parameter.in !== "query" || fixtures.has(parameter.name) || signedQuery?.has(parameter.name)) {
        target.set(parameter.name, String(value));
      }
    }
    // Headers some routes read without declaring them (file registration names its run like ingest does).
    for (const name of ["x-run-id", "x-project-name"])
      if (!request.headers.has(name)) request.headers.set(name, String(fixtures.get(name)));
    if (operation.body)
      request.body = operation.bodyExample ?? bodies.get(`${operation.method} ${operation.path}`) ?? sample(operation.body, fixtures);
    return request;
  }

  async function send(operation: Operation, request: Request, key: string | undefined) {
    let path = operation.path;
    for (const [name, value] of request.path) path = path.replace(`{${name}}`, encodeURIComponent(value));
    const url = new URL(path, test.url);
    for (const [name, value] of request.query) url.searchParams.set(name, value);
    const headers: Record<string, string> = Object.fromEntries(request.headers);
    if (key) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers["content-type"] = "application/json";
      body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
    }
    const response = await fetch(url, { method: operation.method, headers, body });
    return { status: response.status, text: await response.text() };
  }

  /** Every variant of the baseline with one slot holding `word`. */
  function* variants(operation: Operation, word: string): Generator<[string, Request]> {
    const base = baseline(operation);
    for (const slot of ["query", "path", "headers"] as const) {
      const names = new Set([...base[slot].keys(), ...operation.parameters.filter((p) => `${p.in}s`.startsWith(slot)).map((p) => p.name)]);
      for (const name of names) yield [`${slot} ${name}`, { ...base, [slot]: new Map([...base[slot], [name, word]]) }];
    }
    yield ["header x-request-id", { ...base, headers: new Map([...base.headers, ["x-request-id", word]]) }];
    yield ["header authorization", { ...base, headers: new Map([...base.headers, ["authorization", `Bearer ${word}`]]) }];
    if (base.body !== undefined) {
      let index = 0;
      for (const body of mutations(base.body, word))
        yield [`body variant ${index++}: ${JSON.stringify(body).slice(0, 200)}`, { ...base, body }];
    }
  }

  /** What organization `default` (not the one under attack) holds, read through the API. */
  async function otherOrganization(): Promise<string> {
    const projects = await test.client.get("/api/runs/projects");
    const runs = await Promise.all(
      (projects.body.projects as { name: string }[]).map((project) =>
        test.client.get("/api/runs/list", { projectName: project.name, includeFieldValues: true }),
      ),
    );
    return JSON.stringify([projects.body, runs.map((list) => list.body)]);
  }

  it("the document lists the routes this test must reach", () => {
    assert.ok(operations.length >= 30, `only ${operations.length} operations`);
    for (const operation of operations.filter((op) => op.path !== "/api/openapi.json")) {
      assert.ok(
        operation.parameters.length > 0 || operation.body || operation.method === "GET" || BODYLESS_POSTS.has(operation.path),
        operation.path,
      );
    }
  });

  it("every baseline request succeeds, so the variants reach the handlers", async () => {
    const failed: string[] = [];
    for (const operation of operations) {
      const answer = await send(operation, baseline(operation), operation.secured ? client.key : undefined);
      const expected = BASELINE_REFUSED.get(`${operation.method} ${operation.path}`);
      if (expected !== undefined ? answer.status !== expected : answer.status >= 300)
        failed.push(`${operation.method} ${operation.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    assert.deepEqual(failed, []);
  });

  it("every integer a client sends is bounded above and below in its schema", () => {
    const unbounded: string[] = [];
    const visit = (schema: Schema | undefined, where: string): void => {
      if (!schema || typeof schema !== "object") return;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes("integer") && (schema.maximum === undefined || schema.minimum === undefined)) unbounded.push(where);
      for (const [name, property] of Object.entries(schema.properties ?? {})) visit(property, `${where}.${name}`);
      if (typeof schema.additionalProperties === "object") visit(schema.additionalProperties, `${where}.*`);
      visit(schema.items, `${where}[]`);
      for (const [index, branch] of (schema.anyOf ?? schema.oneOf ?? []).entries()) visit(branch, `${where}|${index}`);
    };
    for (const operation of operations) {
      for (const parameter of operation.parameters)
        visit(parameter.schema, `${operation.method} ${operation.path} ${parameter.in} ${parameter.name}`);
      visit(operation.body, `${operation.method} ${operation.path} body`);
    }
    assert.deepEqual(unbounded, []);
  });

  it("integers past any bound in parameters are a 400, not a 500", async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      for (const parameter of operation.parameters.filter((p) => [p.schema.type].flat().includes("integer"))) {
        // Past the schema's own bounds too: a time (EpochMs) one past the latest date a JavaScript date holds.
        const { minimum, maximum } = parameter.schema;
        const ownBounds = [maximum === undefined ? [] : [maximum + 1], minimum === undefined ? [] : [minimum - 1]].flat();
        for (const value of [
          "9223372036854775808",
          "-9223372036854775809",
          "1e400",
          "9007199254740993",
          ...ownBounds.filter(Number.isSafeInteger).map(String),
        ]) {
          const request = baseline(operation);
          const slot = parameter.in === "query" ? request.query : parameter.in === "path" ? request.path : request.headers;
          slot.set(parameter.name, value);
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          if (answer.status !== 400)
            failures.push(
              `${operation.method} ${operation.path} ${parameter.name}=${value}: ${answer.status} ${answer.text.slice(0, 200)}`,
            );
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  /** A wrong password's 401 is a write on purpose: the failure is counted in the store (docs/semantics.md, "Sign-in limits"). */
  const recordsRefusal = (operation: Operation, status: number) =>
    operation.method === "POST" && operation.path === "/api/auth/sign-in" && status === 401;

  /** `/ingest/data` keeps `data` as opaque text, stored as sent: an escape inside it is six characters, not a NUL. */
  const insideOpaqueText = (operation: Operation, request: Request, word: string) =>
    operation.path === "/ingest/data" &&
    typeof request.body === "string" &&
    String(JSON.parse(request.body).data).includes(JSON.stringify(word).slice(1, -1));

  it("ill-formed text (NUL, an unpaired surrogate) in any query, path or body slot is a 4xx that writes nothing; a long one never a 5xx", async () => {
    const failures: string[] = [];
    let refused = 0;
    for (const operation of operations) {
      for (const word of ["a\u0000b", "\ud800", "x\udfffy", "x".repeat(70_000)]) {
        for (const [slot, request] of variants(operation, word)) {
          // HTTP cannot carry these in a header (fetch refuses to send them), nor a URL an unpaired surrogate.
          if (slot.startsWith("header") || (!slot.startsWith("body") && /[\ud800-\udfff]/.test(word))) continue;
          const version = await writes.read();
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          const where = `${operation.method} ${operation.path} ${slot} = ${JSON.stringify(word.slice(0, 8))}`;
          if (answer.status >= 500) failures.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (word.length < 10 && answer.status < 400 && !insideOpaqueText(operation, request, word))
            failures.push(`${where}: accepted with ${answer.status}`);
          else if (answer.status >= 400 && (await writes.read()) !== version)
            failures.push(`${where}: refused with ${answer.status} but wrote`);
          if (answer.status === 400 && /U\+0000 \(NUL\) or an unpaired surrogate/.test(answer.text)) refused++;
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(refused > 100, `only ${refused} refusals name the text rule`);
  });

  it("no 5xx, no write on refusal, no prototype change, no change to another organization", async () => {
    await test.client.createRun({ projectName: "bystander", config: JSON.stringify({ a: { b: 1 } }) });
    const otherBefore = await otherOrganization();
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).join();
    const failures: string[] = [];
    let requests = 0;
    for (const operation of operations) {
      for (const word of HOSTILE) {
        for (const [slot, request] of variants(operation, word)) {
          const version = await writes.read();
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          requests++;
          const where = `${operation.method} ${operation.path} ${slot} = ${word}`;
          if (answer.status >= 500) failures.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (answer.status >= 400 && !recordsRefusal(operation, answer.status) && (await writes.read()) !== version)
            failures.push(`${where}: refused with ${answer.status} but wrote`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(Object.getOwnPropertyNames(Object.prototype).join(), prototypeBefore);
    assert.equal(await otherOrganization(), otherBefore);
    assert.ok(requests > 1000, `only ${requests} requests`);
  });
});
