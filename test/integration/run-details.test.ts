import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The run details fields, one by one: a predicate per type. */
const isNullableNumber = (v: unknown) => v === null || typeof v === "number";
const isNullableString = (v: unknown) => v === null || typeof v === "string";
const DETAIL_FIELDS: Record<string, (v: unknown) => boolean> = {
  id: (v) => Number.isInteger(v),
  name: (v) => typeof v === "string",
  number: isNullableNumber,
  displayId: isNullableString,
  status: (v) => ["RUNNING", "COMPLETED", "FAILED", "TERMINATED", "CANCELLED"].includes(v as string),
  tags: (v) => Array.isArray(v) && v.every((tag) => typeof tag === "string"),
  createdAt: (v) => typeof v === "string" && ISO_MS.test(v),
  updatedAt: (v) => typeof v === "string" && ISO_MS.test(v),
  statusUpdated: (v) => v === null || (typeof v === "string" && ISO_MS.test(v)),
  projectName: (v) => typeof v === "string",
  externalId: isNullableString,
  logNames: (v) =>
    Array.isArray(v) &&
    v.every(
      (l) =>
        typeof l.logName === "string" &&
        typeof l.logType === "string" &&
        (l.logGroup === null || typeof l.logGroup === "string") &&
        Object.keys(l).length === 3,
    ),
};
const FORK_FIELDS: Record<string, (v: unknown) => boolean> = { forkedFromRunId: isNullableNumber, forkStep: isNullableNumber };

function assertShape(body: Record<string, unknown>, fields: Record<string, (v: unknown) => boolean>) {
  for (const [name, valid] of Object.entries(fields)) {
    assert.ok(Object.hasOwn(body, name), `missing field ${name}`);
    assert.ok(valid(body[name]), `field ${name} has a wrong type: ${JSON.stringify(body[name])}`);
  }
}

describe("run details and other reads", () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 4, 5, 6, 7, 89));
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock, flags: { "--stale-after": "0" } });
  });
  after(async () => test.close());

  it("GET /details/{runId} returns every documented field with its type, fork fields and notes", async () => {
    const { client } = await makeOrg(test);
    const created = await client.createRun({
      runName: "details",
      projectName: "vision",
      tags: ["a", "b"],
      externalId: "ext-1",
      config: '{"lr": 0.1, "opt": {"name": "adam"}}',
      systemMetadata: '{"host": "gpu1"}',
      loggerSettings: '{"x": 1}',
    });
    await client.post("/api/runs/logName/add", { runId: created.runId, logName: ["train/loss", "acc"], logType: "METRIC" });
    await client.post("/api/runs/notes/update", { runId: created.runId, notes: "first attempt" });

    const response = await client.get(`/api/runs/details/${created.runId}`);
    assert.equal(response.status, 200);
    assertShape(response.body, { ...DETAIL_FIELDS, ...FORK_FIELDS });
    const expectedTime = new Date(clock.now()).toISOString();
    assert.equal(expectedTime, "2026-03-04T05:06:07.089Z");
    assert.deepEqual(
      { ...response.body, logNames: undefined },
      {
        id: created.runId,
        name: "details",
        number: 1,
        displayId: "VIS-1",
        status: "RUNNING",
        tags: ["a", "b"],
        notes: "first attempt",
        config: { lr: 0.1, opt: { name: "adam" } },
        systemMetadata: { host: "gpu1" },
        loggerSettings: { x: 1 },
        statusMetadata: null,
        createdAt: expectedTime,
        updatedAt: expectedTime,
        statusUpdated: null,
        projectName: "vision",
        externalId: "ext-1",
        forkedFromRunId: null,
        forkStep: null,
        forkChildren: [],
        logNames: undefined,
      },
    );
    assert.deepEqual(
      [...response.body.logNames].sort((a: { logName: string }, b: { logName: string }) => a.logName.localeCompare(b.logName)),
      [
        { logName: "acc", logType: "METRIC", logGroup: null },
        { logName: "train/loss", logType: "METRIC", logGroup: "train" },
      ],
    );
  });

  it("GET /details/{runId} of a fork names its parent and fork step; the parent lists its forks", async () => {
    const { client } = await makeOrg(test);
    const parent = await client.createRun({ runName: "parent", projectName: "forks" });
    assert.equal(
      (await ingest(client, "metrics", parent, toNdjson([0, 1, 2, 3].map((step) => ({ step, data: { loss: step } }))))).status,
      200,
    );
    const child = await client.createRun({ runName: "child", projectName: "forks", forkRunId: parent.runId, forkStep: 2 });
    const response = await client.get(`/api/runs/details/${child.runId}`);
    assert.equal(response.status, 200);
    assert.equal(response.body.forkedFromRunId, parent.runId);
    assert.equal(response.body.forkStep, 2);
    assert.deepEqual(response.body.forkChildren, []);
    const parentDetails = await client.get(`/api/runs/details/${parent.runId}`);
    assert.deepEqual(parentDetails.body.forkChildren, [
      { id: child.runId, name: "child", displayId: "FOR-2", status: "RUNNING", forkStep: 2 },
    ]);
    const byDisplayId = await client.get(`/api/runs/details/by-display-id/FOR-1`);
    assert.ok(!("forkChildren" in byDisplayId.body), "the by-display-ID variant has no fork fields");
  });

  it("GET /details/{runId}: 400 for a non-numeric ID, 404 for an unknown run and for another organization's run", async () => {
    const mine = await makeOrg(test);
    const other = await makeOrg(test);
    const created = await mine.client.createRun({ projectName: "private" });
    for (const [path, status] of [
      ["/api/runs/details/abc", 400],
      ["/api/runs/details/0", 400],
      ["/api/runs/details/999999999", 404],
      [`/api/runs/details/${created.runId}`, 404],
    ] as const) {
      const response = await other.client.get(path);
      assert.equal(response.status, status, path);
      assert.deepEqual(Object.keys(response.body), ["error"], path);
    }
  });

  it("GET /details/by-display-id/{displayId} returns the run without fork fields, upper-casing the prefix", async () => {
    const { client } = await makeOrg(test);
    const created = await client.createRun({ runName: "by-display", projectName: "my-ml-project" });
    await client.post("/api/runs/notes/update", { runId: created.runId, notes: "hello" });
    for (const displayId of ["MMP-1", "mmp-1"]) {
      const response = await client.get(`/api/runs/details/by-display-id/${displayId}`);
      assert.equal(response.status, 200, displayId);
      assertShape(response.body, DETAIL_FIELDS);
      assert.equal(response.body.id, created.runId);
      assert.equal(response.body.notes, "hello");
      assert.ok(!("forkedFromRunId" in response.body) && !("forkStep" in response.body), "no fork fields");
    }
  });

  it("GET /details/by-display-id: 409 when two projects share the prefix, unless projectName narrows it", async () => {
    const { client } = await makeOrg(test);
    const first = await client.createRun({ projectName: "my-project" });
    const second = await client.createRun({ projectName: "mpr" });
    assert.equal(first.displayId, "MPR-1");
    assert.equal(second.displayId, "MPR-1");
    const ambiguous = await client.get("/api/runs/details/by-display-id/MPR-1");
    assert.equal(ambiguous.status, 409);
    assert.match(ambiguous.body.error, /projectName/);
    for (const [projectName, runId] of [
      ["my-project", first.runId],
      ["mpr", second.runId],
    ] as const) {
      const response = await client.get("/api/runs/details/by-display-id/MPR-1", { projectName });
      assert.equal(response.status, 200);
      assert.equal(response.body.id, runId);
    }
    assert.equal((await client.get("/api/runs/details/by-display-id/MPR-1", { projectName: "unknown" })).status, 404);
  });

  it("GET /details/by-display-id: 400 for a malformed ID, 404 for an unknown one or another organization's", async () => {
    const mine = await makeOrg(test);
    const other = await makeOrg(test);
    await mine.client.createRun({ projectName: "secret" });
    for (const displayId of ["SEC", "SEC-", "SEC-0", "SEC-x", "SEC--1", "-1"]) {
      const response = await mine.client.get(`/api/runs/details/by-display-id/${encodeURIComponent(displayId)}`);
      assert.equal(response.status, 400, displayId);
      assert.deepEqual(Object.keys(response.body), ["error"]);
    }
    assert.equal((await mine.client.get("/api/runs/details/by-display-id/SEC-2")).status, 404);
    const foreign = await other.client.get("/api/runs/details/by-display-id/SEC-1");
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, { error: "run 'SEC-1' not found" });
  });

  it("GET /api/runs/{encoded} decodes the SQID form without looking the run up", async () => {
    const { client } = await makeOrg(test);
    assert.deepEqual((await client.get("/api/runs/UkLWZ")).body, { runId: 1 });
    assert.deepEqual((await client.get("/api/runs/JgaEB")).body, { runId: 42 });
    for (const bad of ["ukLWZ", "UkLW", "JgaEBx", "XMbTb", "bMZn4", "!!!"]) {
      const response = await client.get(`/api/runs/${encodeURIComponent(bad)}`);
      assert.equal(response.status, 400, bad);
      assert.deepEqual(Object.keys(response.body), ["error"]);
    }
    const anonymous = await client.withKey(undefined).get("/api/runs/UkLWZ");
    assert.equal(anonymous.status, 401);
  });

  it("GET /api/runs/projects lists the projects of the key's organization with run counts and times", async () => {
    const { client } = await makeOrg(test);
    const other = await makeOrg(test);
    await other.client.createRun({ projectName: "theirs" });
    const t0 = clock.now();
    await client.createRun({ projectName: "beta" });
    clock.advance(1500);
    await client.createRun({ projectName: "alpha" });
    clock.advance(2500);
    await client.createRun({ projectName: "beta" });
    await client.createRun({ projectName: "beta", externalId: "same" });
    await client.createRun({ projectName: "beta", externalId: "same" });
    const response = await client.get("/api/runs/projects");
    assert.equal(response.status, 200);
    const projects = response.body.projects as { id: number; name: string; createdAt: string; updatedAt: string; runCount: number }[];
    const byName = new Map(projects.map((p) => [p.name, p]));
    assert.deepEqual([...byName.keys()].sort(), ["alpha", "beta"]);
    for (const project of projects) assert.ok(Number.isInteger(project.id), project.name);
    assert.deepEqual(
      { ...byName.get("beta"), id: 0 },
      { id: 0, name: "beta", runCount: 3, createdAt: new Date(t0).toISOString(), updatedAt: new Date(t0 + 4000).toISOString() },
    );
    assert.deepEqual(
      { ...byName.get("alpha"), id: 0 },
      { id: 0, name: "alpha", runCount: 1, createdAt: new Date(t0 + 1500).toISOString(), updatedAt: new Date(t0 + 1500).toISOString() },
    );
  });

  it("GET /api/runs/projects is empty for a new organization", async () => {
    const { client } = await makeOrg(test);
    assert.deepEqual((await client.get("/api/runs/projects")).body, { projects: [] });
  });
});

/** Every operation the API specification lists (OpenAPI path form); those the server has must be documented. */
const SPEC_OPERATIONS = [
  "GET /api/runs/auth/validate",
  "POST /api/slug",
  "POST /api/runs/status/update",
  "GET /api/runs/status/history",
  "POST /api/runs/modelGraph/create",
  "POST /api/runs/logName/add",
  "POST /api/runs/tags/update",
  "POST /api/runs/notes/update",
  "GET /api/runs/leaderboard",
  "GET /api/runs/details/by-display-id/{displayId}",
  "GET /api/runs/details/{runId}",
  "GET /api/runs/list",
  "GET /api/runs/compare",
  "GET /api/runs/statistics",
  "GET /api/runs/files",
  "GET /api/runs/logs",
  "GET /api/runs/metrics",
  "GET /api/runs/projects",
  "GET /api/runs/metric-names",
  "GET /api/runs/{runId}",
  "POST /api/runs/create",
  "POST /api/runs/resume",
  "POST /api/runs/config/update",
  "GET /api/runs/metrics/raw",
  "POST /api/runs/trigger",
  "POST /api/runs/alert",
  "GET /api/runs/modelGraph",
  "GET /api/runs/data",
  "GET /api/runs/alerts",
  "POST /ingest/metrics",
  "POST /ingest/logs",
  "POST /ingest/data",
  "POST /files",
  "PUT /files/upload/{fileId}",
  "GET /files/download/{fileId}/{fileName}",
  "GET /api/health",
  "GET /api/health/ready",
];

/** POST routes that take nothing but their path: a slug, and actions on the alert outbox. */
const BODYLESS_POSTS = new Set([
  "POST /api/slug",
  "POST /api/alerts/destinations/{destinationId}/test",
  "POST /api/alerts/deliveries/{deliveryId}/retry",
  "POST /api/auth/sign-out",
  "POST /api/members/{userId}/remove",
  "POST /api/keys/{keyId}/revoke",
]);

/** Routes whose success is a redirect (single sign-on's, docs/api.md "Single sign-on"). */
const REDIRECTS = new Set(["GET /api/auth/oidc/start", "GET /api/auth/oidc/callback"]);

describe("public routes and HTTP conventions", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());
  const anonymous = () => test.client.withKey(undefined);

  it("GET /api/health answers OK as text", async () => {
    const response = await anonymous().get("/api/health");
    assert.equal(response.status, 200);
    assert.equal(response.body, "OK");
  });

  it("GET /api/health/ready answers 200 ready while the store answers", async () => {
    const response = await anonymous().get("/api/health/ready");
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: "ready" });
  });

  it("GET /api/health/ready answers 503 once the store is gone, while liveness stays OK", async () => {
    const broken = await startTestServer();
    try {
      await broken.server.store.close();
      const response = await broken.client.withKey(undefined).get("/api/health/ready");
      assert.equal(response.status, 503);
      assert.deepEqual(response.body, { error: "store unavailable" });
      assert.equal((await broken.client.withKey(undefined).get("/api/health")).status, 200);
    } finally {
      await broken.close();
    }
  });

  it("GET /api/openapi.json documents every route with its request and response schemas", async () => {
    const response = await anonymous().get("/api/openapi.json");
    assert.equal(response.status, 200);
    const document = response.body as { openapi: string; paths: Record<string, Record<string, any>> };
    assert.match(document.openapi, /^3\./);
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)),
    );
    const app = test.server.app;
    for (const operation of SPEC_OPERATIONS) {
      const [method, path] = operation.split(" ") as [string, string];
      const registered = app.hasRoute({ method: method as "GET", url: path.replace(/\{(\w+)\}/g, ":$1") });
      assert.ok(registered, `${operation} is not served`);
      assert.ok(documented.has(operation), `${operation} is missing from the OpenAPI document`);
    }
    for (const operation of documented) {
      const [method, path] = operation.split(" ") as [string, string];
      const spec = document.paths[path]![method.toLowerCase()];
      assert.ok(
        app.hasRoute({ method: method as "GET", url: path.replace(/\{(\w+)\}/g, ":$1") }),
        `${operation} is documented but not served`,
      );
      const success = Object.keys(spec.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
      // Redirect-only routes (single sign-on's) succeed with a documented 302: its Location is the answer.
      assert.ok(
        REDIRECTS.has(operation)
          ? spec.responses["302"] !== undefined
          : success.length > 0 && success.every((status) => spec.responses[status].content),
        `${operation}: no success response schema`,
      );
      for (const [status, answer] of Object.entries(spec.responses as Record<string, any>)) {
        if (status === "302" && REDIRECTS.has(operation)) continue;
        assert.ok(
          answer.content && Object.values(answer.content).every((c: any) => c.schema),
          `${operation}: response ${status} has no schema`,
        );
      }
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        assert.ok(
          spec.parameters?.some((p: any) => p.in === "path" && `{${p.name}}` === name && p.schema),
          `${operation}: path parameter ${name}`,
        );
      }
      if (method === "POST" && !BODYLESS_POSTS.has(operation)) assert.ok(spec.requestBody?.content, `${operation}: no request body schema`);
    }
  });

  it("GET /api/docs serves an HTML page", async () => {
    const response = await anonymous().get("/api/docs");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/html/);
    assert.match(String(response.body), /<html/i);
  });

  it("answers an unknown route with 404 and an error body", async () => {
    for (const path of ["/api/nope", "/api/runs/details/1/extra", "/nothing/here"]) {
      for (const client of [anonymous(), test.client]) {
        const response = await client.get(path);
        assert.equal(response.status, 404, path);
        assert.deepEqual(Object.keys(response.body), ["error"], path);
        assert.match(response.body.error, /not found/);
      }
    }
  });

  it("sends an x-request-id header on every response, new per request, echoing the caller's", async () => {
    const first = await anonymous().get("/api/health");
    const second = await test.client.get("/api/runs/projects");
    const failed = await anonymous().get("/api/runs/projects");
    const unknown = await anonymous().get("/api/nope");
    const ids = [first, second, failed, unknown].map((r) => r.headers.get("x-request-id"));
    for (const id of ids) assert.ok(id && id.length >= 8, String(id));
    assert.equal(new Set(ids).size, 4);
    const echoed = await anonymous().get("/api/health", undefined, { "x-request-id": "trace-123" });
    assert.equal(echoed.headers.get("x-request-id"), "trace-123");
  });
});
