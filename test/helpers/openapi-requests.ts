import { hashPassword } from "../../src/domain/passwords.js";
import assert from "node:assert/strict";
import type { ApiClient } from "./client.js";
import type { TestServer } from "./start-server.js";

/**
 * Requests generated from the OpenAPI document the server publishes (test/integration/openapi-generated.test.ts
 * and roles.test.ts): the operations it lists, a valid request for each (values from the schemas, their
 * `examples` first, and names of real things from a fixture run), and sending one.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface Schema {
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
export interface Parameter {
  in: "query" | "path" | "header";
  name: string;
  required?: boolean;
  schema: Schema;
  /** @fastify/swagger moves a schema's single example here. */
  example?: Json;
}
export interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
  bodyExample?: Json;
  secured: boolean;
}

/** A value a schema accepts: its example, else the simplest one. */
export function sample(schema: Schema, fixtures: ReadonlyMap<string, Json>, name = ""): Json {
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

export function operationsOf(document: { paths: Record<string, Record<string, any>> }): Operation[] {
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

export interface Request {
  query: Map<string, string>;
  path: Map<string, string>;
  headers: Map<string, string>;
  body: Json | undefined;
}

/** What the generated requests name: a fixture run of the client's organization, with a metric, a file, a model version and an alert destination. */
export interface Fixture {
  /** Values of parameters and body fields by name (runId, projectName, ...). */
  fixtures: Map<string, Json>;
  /**
   * Bodies of operations that must not take the fixture run from the operations after them: a run
   * deleted (then restored) by them is one of their own.
   */
  bodies: Map<string, Json>;
  /** Query and path values of the signed routes, from real signed URLs. */
  signed: Map<string, Map<string, string>>;
}

/** `org`: the organization under test (makeOrg), whose client makes the fixture. */
export async function makeFixture(test: TestServer, org: { client: ApiClient; organization: { id: string } }): Promise<Fixture> {
  const client = org.client;
  const fixtures = new Map<string, Json>();
  const bodies = new Map<string, Json>();
  const signed = new Map<string, Map<string, string>>();
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

  // A key of the client's own to revoke (POST /api/keys/{keyId}/revoke), not the one the requests carry.
  const spare = await client.post("/api/keys", { name: "fixture-spare" });
  assert.equal(spare.status, 201);

  // People (docs/api.md, "Members"): one to sign in with a password, one to change and remove, and an invitation link to use.
  const signer = await store.createUser(
    { orgId: org.organization.id, email: `signer-${org.organization.id}@example.com`, name: "s", kind: "person" },
    Date.now(),
  );
  await store.setMembership(org.organization.id, signer.id, "member", Date.now());
  await store.setPasswordHash(signer.id, await hashPassword("fixture password"));
  bodies.set("POST /api/auth/sign-in", { email: `signer-${org.organization.id}@example.com`, password: "fixture password" });
  const inviteeEmail = `invitee-${org.organization.id}@example.com`;
  const invited = await client.post("/api/members", { email: inviteeEmail, role: "member" });
  assert.equal(invited.status, 200);
  bodies.set("POST /api/members", { email: inviteeEmail, role: "member" });
  bodies.set("POST /api/auth/invitations/{token}/accept", { password: "fixture password" });
  bodies.set("POST /api/members/{userId}/role", { role: "viewer" });

  for (const [name, value] of Object.entries({
    token: invited.body.invitationUrl.split("/invite/")[1],
    userId: invited.body.member.user.id,
    keyId: spare.body.apiKey.id,
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
  })) {
    fixtures.set(name, value);
  }
  const disposable = await client.createRun({ projectName: "proto", runName: "disposable" });
  for (const path of ["/api/runs/delete", "/api/runs/restore"]) bodies.set(`POST ${path}`, { runIds: [disposable.runId] });
  return { fixtures, bodies, signed };
}

/** The request that reaches each operation's handler with valid input. */
export function baseline(operation: Operation, { fixtures, bodies, signed }: Fixture): Request {
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
  for (const name of ["x-run-id", "x-project-name"]) if (!request.headers.has(name)) request.headers.set(name, String(fixtures.get(name)));
  if (operation.body)
    request.body = operation.bodyExample ?? bodies.get(`${operation.method} ${operation.path}`) ?? sample(operation.body, fixtures);
  return request;
}

/** Sends a generated request; `auth` adds headers (a bearer key, or a session's cookie and CSRF token) unless the request sets them. */
export async function send(baseUrl: string, operation: Operation, request: Request, auth: Record<string, string> = {}) {
  let path = operation.path;
  for (const [name, value] of request.path) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const url = new URL(path, baseUrl);
  for (const [name, value] of request.query) url.searchParams.set(name, value);
  const headers: Record<string, string> = { ...auth, ...Object.fromEntries(request.headers) };
  let body: string | undefined;
  if (request.body !== undefined) {
    headers["content-type"] = "application/json";
    body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
  }
  const response = await fetch(url, { method: operation.method, headers, body });
  return { status: response.status, text: await response.text() };
}

/** The bearer header of a key, for `send`. */
export const bearer = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
