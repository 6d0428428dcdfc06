import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Fastify from "fastify";
import { type Role, roleAtLeast } from "../../src/domain/roles.js";
import type { RouteDeps } from "../../src/http/deps.js";
import { MLFLOW_ARTIFACT_PREFIXES, MLFLOW_PREFIXES, mlflowRoutes } from "../../src/http/routes/mlflow/index.js";
import { issueKey } from "../../src/services/accounts.js";
import {
  baseline,
  bearer,
  type Fixture,
  makeFixture,
  type Operation,
  operationsOf,
  type Request,
  send,
} from "../helpers/openapi-requests.js";
import { ManualClock, makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { writeCounter, type WriteCounter } from "../helpers/write-counter.js";

/**
 * Roles on every route, both protocols (docs/semantics.md, "Roles"), generated from the OpenAPI
 * document and from the MLflow routes the server registers: with a key and with a browser session
 * of a viewer, a member and an admin, every route the role may not use is a 403 naming the role it
 * needs, and writes nothing; every read it may use answers as a read does (never 401 or 403); every
 * write a member or an admin may use is not refused either.
 *
 * Which role each route needs is written down HERE, by hand (not read back from the server's
 * `config.role`), so a route annotated wrongly fails this test. A route of the document or of
 * MLflow's list that is not in the tables below fails it too: classify a new route here.
 */

/** "public": a route outside authentication (health, sign-out, signed file URLs). */
type Need = Role | "public";

/** Every operation of the OpenAPI document: the role it needs. */
const STEPWISE = new Map<string, Need>([
  ["GET /api/health", "public"],
  ["GET /api/health/ready", "public"],
  ["POST /api/auth/sign-out", "public"],
  ["GET /api/auth/config", "public"],
  ["GET /api/auth/oidc/start", "public"],
  ["GET /api/auth/oidc/callback", "public"],
  ["GET /api/audit", "admin"],
  ["POST /api/auth/sign-in", "public"],
  ["GET /api/auth/invitations/{token}", "public"],
  ["POST /api/auth/invitations/{token}/accept", "public"],
  ["GET /api/members", "viewer"],
  ["POST /api/members", "admin"],
  ["POST /api/members/{userId}/role", "admin"],
  ["POST /api/members/{userId}/remove", "admin"],
  ["PUT /files/upload/{fileId}", "public"],
  ["GET /files/download/{fileId}/{fileName}", "public"],
  ["GET /api/auth/session", "viewer"],
  ["POST /api/auth/session/organization", "viewer"],
  ["GET /api/runs/projects", "viewer"],
  ["GET /api/runs/projects/by-mlflow-id/{experimentId}", "viewer"],
  ["GET /api/runs/auth/validate", "viewer"],
  ["POST /api/slug", "viewer"],
  ["POST /api/runs/create", "member"],
  ["POST /api/runs/resume", "member"],
  ["POST /api/runs/status/update", "member"],
  ["POST /api/runs/tags/update", "member"],
  ["POST /api/runs/notes/update", "member"],
  ["POST /api/runs/config/update", "member"],
  ["POST /api/runs/logName/add", "member"],
  ["POST /api/runs/modelGraph/create", "member"],
  ["POST /api/runs/trigger", "member"],
  ["POST /api/runs/alert", "member"],
  ["GET /api/runs/details/{runId}", "viewer"],
  ["GET /api/runs/details/by-display-id/{displayId}", "viewer"],
  ["GET /api/runs/details/by-mlflow-id/{mlflowRunId}", "viewer"],
  ["GET /api/runs/status/history", "viewer"],
  ["GET /api/runs/modelGraph", "viewer"],
  ["GET /api/runs/alerts", "viewer"],
  ["GET /api/runs/{runId}", "viewer"],
  ["GET /api/runs/list", "viewer"],
  ["GET /api/runs/sweep", "viewer"],
  ["POST /ingest/metrics", "member"],
  ["POST /ingest/logs", "member"],
  ["POST /ingest/data", "member"],
  ["GET /api/runs/metrics", "viewer"],
  ["POST /api/runs/metrics/batch", "viewer"],
  ["GET /api/runs/metrics/raw", "viewer"],
  ["GET /api/runs/statistics", "viewer"],
  ["GET /api/runs/compare", "viewer"],
  ["GET /api/runs/leaderboard", "viewer"],
  ["GET /api/runs/metric-names", "viewer"],
  ["GET /api/runs/logs", "viewer"],
  ["GET /api/runs/data", "viewer"],
  ["POST /files", "member"],
  ["GET /api/runs/files", "viewer"],
  ["GET /api/runs/models", "viewer"],
  ["GET /api/runs/models/of-run/{runId}", "viewer"],
  ["GET /api/runs/models/{name}", "viewer"],
  ["GET /api/runs/views", "viewer"],
  ["POST /api/runs/views", "member"],
  ["GET /api/runs/views/{viewId}", "viewer"],
  ["PATCH /api/runs/views/{viewId}", "member"],
  ["DELETE /api/runs/views/{viewId}", "member"],
  ["GET /api/alerts/destinations", "viewer"],
  ["POST /api/alerts/destinations", "admin"],
  ["POST /api/alerts/destinations/{destinationId}/test", "admin"],
  ["DELETE /api/alerts/destinations/{destinationId}", "admin"],
  ["GET /api/alerts/rules", "viewer"],
  ["POST /api/alerts/rules", "member"],
  ["PATCH /api/alerts/rules/{ruleId}", "member"],
  ["DELETE /api/alerts/rules/{ruleId}", "member"],
  ["GET /api/alerts/events", "viewer"],
  ["GET /api/alerts/deliveries", "viewer"],
  ["POST /api/alerts/deliveries/{deliveryId}/retry", "member"],
  ["POST /api/runs/delete", "admin"],
  ["POST /api/runs/restore", "admin"],
  ["POST /api/runs/projects/delete", "admin"],
  ["POST /api/runs/projects/restore", "admin"],
  ["GET /api/runs/trash", "viewer"],
  ["GET /api/runs/retention", "viewer"],
  ["PUT /api/runs/retention", "admin"],
  ["POST /api/runs/retention/dry-run", "viewer"],
  ["GET /api/keys", "viewer"],
  ["POST /api/keys", "viewer"],
  ["POST /api/keys/{keyId}/revoke", "viewer"],
]);

/** What the MLflow requests name: the fixture's experiment, run and registered model, and a logged model. */
interface MlflowNames {
  experimentId: string;
  runId: string;
  modelId: string;
}
interface MlflowRequest {
  /** The path under the prefix (the route's own, its parameters filled in). */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * Every MLflow route (under each prefix) by method and path: the role it needs and a request for it.
 * Deletions name things that do not exist, so the sweep of allowed writes leaves the fixture whole.
 */
const MLFLOW = new Map<string, { need: Role; request: (n: MlflowNames) => MlflowRequest }>([
  ["POST /experiments/create", { need: "member", request: () => ({ path: "/experiments/create", body: { name: "roles-new" } }) }],
  ["GET /experiments/get", { need: "viewer", request: (n) => ({ path: "/experiments/get", query: { experiment_id: n.experimentId } }) }],
  [
    "GET /experiments/get-by-name",
    { need: "viewer", request: () => ({ path: "/experiments/get-by-name", query: { experiment_name: "proto" } }) },
  ],
  ["GET /experiments/search", { need: "viewer", request: () => ({ path: "/experiments/search", query: { max_results: "10" } }) }],
  ["POST /experiments/search", { need: "viewer", request: () => ({ path: "/experiments/search", body: { max_results: 10 } }) }],
  [
    "POST /experiments/update",
    { need: "member", request: (n) => ({ path: "/experiments/update", body: { experiment_id: n.experimentId, new_name: "proto" } }) },
  ],
  ["POST /experiments/delete", { need: "admin", request: () => ({ path: "/experiments/delete", body: { experiment_id: "987654321" } }) }],
  ["POST /experiments/restore", { need: "admin", request: () => ({ path: "/experiments/restore", body: { experiment_id: "987654321" } }) }],
  [
    "POST /experiments/set-experiment-tag",
    {
      need: "member",
      request: (n) => ({ path: "/experiments/set-experiment-tag", body: { experiment_id: n.experimentId, key: "k", value: "v" } }),
    },
  ],
  [
    "POST /experiments/delete-experiment-tag",
    { need: "member", request: (n) => ({ path: "/experiments/delete-experiment-tag", body: { experiment_id: n.experimentId, key: "k" } }) },
  ],
  [
    "POST /logged-models",
    { need: "member", request: (n) => ({ path: "/logged-models", body: { experiment_id: n.experimentId, source_run_id: n.runId } }) },
  ],
  [
    "POST /logged-models/search",
    { need: "viewer", request: (n) => ({ path: "/logged-models/search", body: { experiment_ids: [n.experimentId] } }) },
  ],
  ["GET /logged-models/:model_id", { need: "viewer", request: (n) => ({ path: `/logged-models/${n.modelId}` }) }],
  [
    "PATCH /logged-models/:model_id",
    {
      need: "member",
      request: (n) => ({ path: `/logged-models/${n.modelId}`, body: { model_id: n.modelId, status: "LOGGED_MODEL_READY" } }),
    },
  ],
  ["DELETE /logged-models/:model_id", { need: "admin", request: () => ({ path: "/logged-models/m-00000000000000000000000000000000" }) }],
  [
    "PATCH /logged-models/:model_id/tags",
    { need: "member", request: (n) => ({ path: `/logged-models/${n.modelId}/tags`, body: { tags: [{ key: "k", value: "v" }] } }) },
  ],
  ["DELETE /logged-models/:model_id/tags/:tag_key", { need: "member", request: (n) => ({ path: `/logged-models/${n.modelId}/tags/k` }) }],
  [
    "POST /logged-models/:model_id/params",
    { need: "member", request: (n) => ({ path: `/logged-models/${n.modelId}/params`, body: { params: [{ key: "p", value: "1" }] } }) },
  ],
  [
    "POST /runs/create",
    { need: "member", request: (n) => ({ path: "/runs/create", body: { experiment_id: n.experimentId, start_time: 1 } }) },
  ],
  ["GET /runs/get", { need: "viewer", request: (n) => ({ path: "/runs/get", query: { run_id: n.runId } }) }],
  ["POST /runs/update", { need: "member", request: (n) => ({ path: "/runs/update", body: { run_id: n.runId, run_name: "fixture" } }) }],
  ["POST /runs/delete", { need: "admin", request: () => ({ path: "/runs/delete", body: { run_id: "0".repeat(32) } }) }],
  ["POST /runs/restore", { need: "admin", request: () => ({ path: "/runs/restore", body: { run_id: "0".repeat(32) } }) }],
  ["POST /runs/search", { need: "viewer", request: (n) => ({ path: "/runs/search", body: { experiment_ids: [n.experimentId] } }) }],
  [
    "POST /runs/log-metric",
    {
      need: "member",
      request: (n) => ({ path: "/runs/log-metric", body: { run_id: n.runId, key: "m", value: 1, timestamp: 1, step: 0 } }),
    },
  ],
  [
    "POST /runs/log-parameter",
    { need: "member", request: (n) => ({ path: "/runs/log-parameter", body: { run_id: n.runId, key: "p", value: "1" } }) },
  ],
  ["POST /runs/set-tag", { need: "member", request: (n) => ({ path: "/runs/set-tag", body: { run_id: n.runId, key: "t", value: "x" } }) }],
  [
    "POST /runs/log-batch",
    { need: "member", request: (n) => ({ path: "/runs/log-batch", body: { run_id: n.runId, params: [{ key: "q", value: "1" }] } }) },
  ],
  ["POST /runs/delete-tag", { need: "member", request: (n) => ({ path: "/runs/delete-tag", body: { run_id: n.runId, key: "t" } }) }],
  ["POST /runs/log-inputs", { need: "member", request: (n) => ({ path: "/runs/log-inputs", body: { run_id: n.runId, datasets: [] } }) }],
  [
    "POST /runs/outputs",
    { need: "member", request: (n) => ({ path: "/runs/outputs", body: { run_id: n.runId, models: [{ model_id: n.modelId, step: 0 }] } }) },
  ],
  ["POST /runs/log-model", { need: "member", request: (n) => ({ path: "/runs/log-model", body: { run_id: n.runId, model_json: "{}" } }) }],
  [
    "GET /metrics/get-history",
    { need: "viewer", request: (n) => ({ path: "/metrics/get-history", query: { run_id: n.runId, metric_key: "loss" } }) },
  ],
  [
    "GET /metrics/get-history-bulk-interval",
    { need: "viewer", request: (n) => ({ path: "/metrics/get-history-bulk-interval", query: { run_ids: n.runId, metric_key: "loss" } }) },
  ],
  [
    "POST /registered-models/create",
    { need: "member", request: () => ({ path: "/registered-models/create", body: { name: "roles-model" } }) },
  ],
  ["GET /registered-models/get", { need: "viewer", request: () => ({ path: "/registered-models/get", query: { name: "fixture-model" } }) }],
  [
    "PATCH /registered-models/update",
    { need: "member", request: () => ({ path: "/registered-models/update", body: { name: "fixture-model", description: "d" } }) },
  ],
  [
    "POST /registered-models/rename",
    { need: "member", request: () => ({ path: "/registered-models/rename", body: { name: "no-such-model", new_name: "other" } }) },
  ],
  [
    "DELETE /registered-models/delete",
    { need: "admin", request: () => ({ path: "/registered-models/delete", body: { name: "no-such-model" } }) },
  ],
  ["GET /registered-models/search", { need: "viewer", request: () => ({ path: "/registered-models/search" }) }],
  ["POST /registered-models/search", { need: "viewer", request: () => ({ path: "/registered-models/search", body: {} }) }],
  [
    "GET /registered-models/get-latest-versions",
    { need: "viewer", request: () => ({ path: "/registered-models/get-latest-versions", query: { name: "fixture-model" } }) },
  ],
  [
    "POST /registered-models/get-latest-versions",
    { need: "viewer", request: () => ({ path: "/registered-models/get-latest-versions", body: { name: "fixture-model" } }) },
  ],
  [
    "POST /registered-models/set-tag",
    { need: "member", request: () => ({ path: "/registered-models/set-tag", body: { name: "fixture-model", key: "k", value: "v" } }) },
  ],
  [
    "DELETE /registered-models/delete-tag",
    { need: "member", request: () => ({ path: "/registered-models/delete-tag", body: { name: "fixture-model", key: "k" } }) },
  ],
  [
    "POST /registered-models/alias",
    { need: "member", request: () => ({ path: "/registered-models/alias", body: { name: "fixture-model", alias: "best", version: "1" } }) },
  ],
  [
    "DELETE /registered-models/alias",
    { need: "member", request: () => ({ path: "/registered-models/alias", body: { name: "fixture-model", alias: "best" } }) },
  ],
  [
    "GET /registered-models/alias",
    { need: "viewer", request: () => ({ path: "/registered-models/alias", query: { name: "fixture-model", alias: "best" } }) },
  ],
  [
    "POST /model-versions/create",
    { need: "member", request: () => ({ path: "/model-versions/create", body: { name: "no-such-model", source: "s3://b/m" } }) },
  ],
  [
    "GET /model-versions/get",
    { need: "viewer", request: () => ({ path: "/model-versions/get", query: { name: "fixture-model", version: "1" } }) },
  ],
  [
    "PATCH /model-versions/update",
    {
      need: "member",
      request: () => ({ path: "/model-versions/update", body: { name: "fixture-model", version: "1", description: "d" } }),
    },
  ],
  [
    "POST /model-versions/transition-stage",
    {
      need: "member",
      request: () => ({ path: "/model-versions/transition-stage", body: { name: "fixture-model", version: "1", stage: "Staging" } }),
    },
  ],
  [
    "DELETE /model-versions/delete",
    { need: "admin", request: () => ({ path: "/model-versions/delete", body: { name: "no-such-model", version: "1" } }) },
  ],
  [
    "GET /model-versions/get-download-uri",
    { need: "viewer", request: () => ({ path: "/model-versions/get-download-uri", query: { name: "fixture-model", version: "1" } }) },
  ],
  ["GET /model-versions/search", { need: "viewer", request: () => ({ path: "/model-versions/search" }) }],
  ["POST /model-versions/search", { need: "viewer", request: () => ({ path: "/model-versions/search", body: {} }) }],
  [
    "POST /model-versions/set-tag",
    {
      need: "member",
      request: () => ({ path: "/model-versions/set-tag", body: { name: "fixture-model", version: "1", key: "k", value: "v" } }),
    },
  ],
  [
    "DELETE /model-versions/delete-tag",
    { need: "member", request: () => ({ path: "/model-versions/delete-tag", body: { name: "fixture-model", version: "1", key: "k" } }) },
  ],
  ["GET /artifacts/list", { need: "viewer", request: (n) => ({ path: "/artifacts/list", query: { run_id: n.runId } }) }],
  [
    "GET /logged-models/:model_id/artifacts/directories",
    { need: "viewer", request: (n) => ({ path: `/logged-models/${n.modelId}/artifacts/directories` }) },
  ],
  [
    "GET /logged-models/:model_id/artifacts/files",
    { need: "viewer", request: (n) => ({ path: `/logged-models/${n.modelId}/artifacts/files`, query: { artifact_file_path: "MLmodel" } }) },
  ],
  // The artifact proxy (under /api/2.0/mlflow-artifacts): removing a file of a run is a write of the run, a member's.
  [
    "GET /artifacts",
    { need: "viewer", request: (n) => ({ path: "/artifacts", query: { path: `${n.experimentId}/${n.runId}/artifacts` } }) },
  ],
  [
    "PUT /artifacts/*",
    { need: "member", request: (n) => ({ path: `/artifacts/${n.experimentId}/${n.runId}/artifacts/roles.txt`, body: "x" }) },
  ],
  ["GET /artifacts/*", { need: "viewer", request: (n) => ({ path: `/artifacts/${n.experimentId}/${n.runId}/artifacts/roles.txt` }) }],
  ["DELETE /artifacts/*", { need: "member", request: (n) => ({ path: `/artifacts/${n.experimentId}/${n.runId}/artifacts/no-such.txt` }) }],
]);

/**
 * Reads whose generated request is refused past the role check: switching organization is a
 * session's (400 with a key, 404 for the sample's organization), the sweep revokes a key that
 * does not exist (404), and the fixture member, once removed, is no member to change (404).
 */
const NOT_200_FOR_ALL = new Set([
  "POST /api/auth/session/organization",
  "POST /api/keys/{keyId}/revoke",
  // The fixture member is removed by the first admin request; the role change and removal after it are 404.
  "POST /api/members/{userId}/role",
  "POST /api/members/{userId}/remove",
]);

/** A route to sweep, of either protocol: the role this test expects it to need, and how to send it. */
interface Route {
  name: string;
  method: string;
  need: Need;
  /** Sends the route's request with these headers (a key, or a session's cookie and CSRF token). */
  send: (auth: Record<string, string>) => Promise<{ status: number; text: string }>;
}

/** The MLflow routes as the server registers them: method and path of every one, under every prefix. */
async function registeredMlflowRoutes(test: TestServer): Promise<{ method: string; url: string }[]> {
  const app = Fastify();
  const routes: { method: string; url: string }[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) if (method !== "HEAD") routes.push({ method, url: route.url });
  });
  // Registration only reads the services it hands its handlers, which never run here.
  await app.register(mlflowRoutes({ services: test.server.services, store: test.server.store } as unknown as RouteDeps));
  await app.ready();
  await app.close();
  return routes;
}

const PREFIXES = [...MLFLOW_ARTIFACT_PREFIXES, ...MLFLOW_PREFIXES];

describe("roles on every route, both protocols", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  let writes: WriteCounter;
  let fixture: Fixture;
  let operations: Operation[];
  let mlflowRoutesRegistered: { method: string; url: string }[];
  const routes: Route[] = [];
  /** Each person's credentials: a key and a signed-in session, by role. */
  const people = new Map<Role, { key: Record<string, string>; session: Record<string, string> }>();

  before(async () => {
    // A clock that stands still: a session's last-seen time is written once, at its first request,
    // never in the middle of the sweep (where it would read as a refused request that wrote).
    // No stale-run monitor nor alert delivery: their writes would too.
    test = await startTestServer({ clock, flags: { "--stale-after": "0", "--alerts-concurrency": "0" } });
    const org = await makeOrg(test);
    fixture = await makeFixture(test, org);
    operations = operationsOf((await org.client.get<Parameters<typeof operationsOf>[0]>("/api/openapi.json")).body);
    // The saved view the view routes' samples name (ID 1), made as the document's own order makes it.
    const createView = operations.find((operation) => operation.method === "POST" && operation.path === "/api/runs/views")!;
    assert.equal((await send(test.url, createView, baseline(createView, fixture), bearer(org.key))).status, 200);
    const experimentId = String(fixture.fixtures.get("experimentId"));
    const runId = String(fixture.fixtures.get("mlflowRunId"));
    const model = await org.client.post("/api/2.0/mlflow/logged-models", { experiment_id: experimentId, source_run_id: runId });
    assert.equal(model.status, 200, JSON.stringify(model.body));
    const names: MlflowNames = { experimentId, runId, modelId: model.body.model.info.model_id };

    const store = test.server.store;
    const orgId = org.organization.id;
    for (const role of ["viewer", "member", "admin"] as const) {
      const user = await store.createUser({ orgId, email: `${role}@roles.example`, name: role, kind: "person" }, clock.now());
      await store.setMembership(orgId, user.id, role, clock.now());
      const { key } = await issueKey(store, { orgId, userId: user.id, name: role, expiresAt: null, role: null }, clock.now());
      const started = await test.server.services.sessions.start({ userId: user.id, orgId, sourceIp: null, userAgent: null });
      const session = { cookie: `stepwise_session=${started.token}`, "x-csrf-token": started.csrfToken };
      // The session's first request writes its last-seen time; the clock stands still after it.
      assert.equal((await fetch(new URL("/api/auth/session", test.url), { headers: session })).status, 200);
      people.set(role, { key: bearer(key), session });
    }

    for (const operation of operations) {
      const name = `${operation.method} ${operation.path}`;
      if (operation.path === "/api/openapi.json") continue;
      const request: Request = baseline(operation, fixture);
      // Revoking the fixture's key is its owner's or an admin's (a 403 past the role check, below):
      // everyone here revokes a key that does not exist, a 404.
      if (request.path.has("keyId")) request.path.set("keyId", "no-such-key");
      routes.push({
        name,
        method: operation.method,
        need: STEPWISE.get(name) ?? "unclassified",
        send: (auth) => send(test.url, operation, request, auth),
      } as Route);
    }
    mlflowRoutesRegistered = await registeredMlflowRoutes(test);
    for (const { method, url } of mlflowRoutesRegistered) {
      const prefix = PREFIXES.find((p) => url.startsWith(`${p}/`))!;
      const own = `${method} ${url.slice(prefix.length)}`;
      const route = MLFLOW.get(own);
      routes.push({
        name: `${method} ${url}`,
        method,
        need: route?.need ?? "unclassified",
        send: async (auth) => {
          const { path, query, body } = route!.request(names);
          const target = new URL(prefix + path, test.url);
          for (const [field, value] of Object.entries(query ?? {})) target.searchParams.set(field, value);
          const headers: Record<string, string> = { ...auth };
          if (body !== undefined) headers["content-type"] = typeof body === "string" ? "application/octet-stream" : "application/json";
          const response = await fetch(target, {
            method,
            headers,
            body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
          });
          return { status: response.status, text: await response.text() };
        },
      } as Route);
    }
    writes = await writeCounter(test);
  });
  after(async () => {
    await writes?.close();
    await test?.close();
  });

  /** The routes that need a role (the unclassified ones fail the first test only). */
  const authenticated = () => routes.filter((route) => ["viewer", "member", "admin", "owner"].includes(route.need));

  it("every route of the OpenAPI document and of MLflow's list is classified in this test", () => {
    const unclassified = routes.filter((route) => !["public", "viewer", "member", "admin", "owner"].includes(route.need));
    assert.deepEqual(
      unclassified.map((route) => route.name),
      [],
      "add each to STEPWISE or MLFLOW above, with the role it needs",
    );
    const listed = new Set(operations.map((operation) => `${operation.method} ${operation.path}`));
    const planned = [...STEPWISE.keys()];
    assert.deepEqual(
      planned.filter((name) => !listed.has(name)),
      [],
      "a classified route is not in the document",
    );
    assert.ok(routes.filter((route) => route.name.includes("/mlflow")).length >= 2 * MLFLOW.size - 8);
    assert.ok(authenticated().filter((route) => route.need === "admin").length >= 20);
  });

  for (const role of ["viewer", "member", "admin"] as const) {
    for (const via of ["key", "session"] as const) {
      it(`${role === "admin" ? "an" : "a"} ${role}'s ${via}: every route above its role is a 403 naming the role it needs, and writes nothing; every read it may use answers`, async () => {
        const auth = people.get(role)![via];
        const failures: string[] = [];
        let refused = 0;
        let read = 0;
        for (const route of authenticated()) {
          const need = route.need as Role;
          if (roleAtLeast(role, need)) {
            if (need !== "viewer") continue; // Writes it may make: the last test.
            const answer = await route.send(auth);
            read++;
            // Stepwise's generated requests name real things, so a read answers 200 (MLflow's hand-written
            // ones may name what is not there: not refused is enough); the exceptions are past the role check.
            const ok = route.name.includes("/mlflow") || NOT_200_FOR_ALL.has(route.name) ? answer.status < 500 : answer.status < 300;
            if (answer.status === 401 || answer.status === 403 || !ok)
              failures.push(`${route.name}: a read answered ${answer.status} ${answer.text.slice(0, 200)}`);
            continue;
          }
          const version = await writes.read();
          const answer = await route.send(auth);
          refused++;
          const expected = `this requires the role '${need}' (your role: '${role}')`;
          if (answer.status !== 403 || !answer.text.includes(expected))
            failures.push(`${route.name}: expected 403 '${expected}', got ${answer.status} ${answer.text.slice(0, 200)}`);
          else if ((await writes.read()) !== version) failures.push(`${route.name}: refused but wrote`);
        }
        assert.deepEqual(failures, []);
        assert.ok(read > 40, `only ${read} reads`);
        if (role !== "admin") assert.ok(refused > (role === "viewer" ? 80 : 20), `only ${refused} refusals`);
      });
    }
  }

  it("every write is open to the role it needs: a member's key and session for a member's, an admin's for an admin's", async () => {
    const failures: string[] = [];
    for (const via of ["key", "session"] as const) {
      for (const route of authenticated()) {
        if (route.need === "viewer") continue;
        const auth = route.need === "member" ? people.get("member")![via] : people.get("admin")![via];
        if (route.need === "owner") continue; // No route needs an owner yet (docs/semantics.md, "Roles").
        const answer = await route.send(auth);
        if (answer.status === 401 || answer.status === 403 || answer.status >= 500)
          failures.push(`${via} ${route.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
