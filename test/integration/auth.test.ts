import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { issueKey } from "../../src/services/accounts.js";
import { ApiClient } from "../helpers/client.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Routes that answer without a key (docs/semantics.md, One process, one port). Everything else in the OpenAPI document needs one. */
const PUBLIC_PATHS = new Set([
  "/api/health",
  "/api/health/ready",
  "/api/openapi.json",
  "/api/auth/sign-out",
  "/api/auth/config",
  "/api/auth/sign-in",
  "/api/auth/invitations/{token}",
  "/api/auth/invitations/{token}/accept",
  "/api/auth/oidc/start",
  "/api/auth/oidc/callback",
  "/files/upload/{fileId}",
  "/files/download/{fileId}/{fileName}",
]);
const isPublic = (path: string) => PUBLIC_PATHS.has(path) || path === "/api/docs" || path.startsWith("/api/docs/");

/** A concrete path for an OpenAPI path template: `{runId}` → 1, `{displayId}` → `RUN-1`. */
function concretePath(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => (name === "displayId" ? "RUN-1" : "1"));
}

describe("authentication", () => {
  const clock = new ManualClock();
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  before(async () => {
    test = await startTestServer({ clock, flags: { "--stale-after": "0" } });
    org = await makeOrg(test);
  });
  after(async () => test.close());

  const anonymous = () => new ApiClient(test.url, undefined);

  async function keyFor(expiresAt: number | null) {
    const [user] = await test.server.store.listUsers(org.organization.id);
    const { key, record } = await issueKey(
      test.server.store,
      { orgId: org.organization.id, userId: user!.id, name: "test", expiresAt, role: null },
      clock.now(),
    );
    return { key, id: record.id, client: new ApiClient(test.url, key) };
  }

  it("validates a key: GET /api/runs/auth/validate gives the organization, the real user of the key and its role", async () => {
    const response = await org.client.get("/api/runs/auth/validate");
    assert.equal(response.status, 200);
    const [user] = await test.server.store.listUsers(org.organization.id);
    assert.deepEqual(response.body, {
      valid: true,
      organization: { id: org.organization.id, slug: org.organization.slug },
      user: { id: user!.id, email: null, name: "admin", kind: "service" },
      role: "owner",
    });
  });

  it("answers POST /api/slug sent with no body and no content type", async () => {
    const response = await org.client.raw("POST", "/api/slug", undefined, {});
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(response.body, { organization: { slug: org.organization.slug } });
  });

  it("answers POST /api/slug sent with a JSON content type and an empty body", async () => {
    const response = await org.client.raw("POST", "/api/slug", "", { "content-type": "application/json" });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.deepEqual(response.body, { organization: { slug: org.organization.slug } });
  });

  it("accepts the bearer scheme in any case", async () => {
    const response = await anonymous().get("/api/runs/auth/validate", undefined, { authorization: `bearer ${org.key}` });
    assert.equal(response.status, 200);
  });

  it("rejects a request without a key: 401 missing API key", async () => {
    const response = await anonymous().get("/api/runs/auth/validate");
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: "missing API key" });
  });

  it("treats other schemes, a bare key and an empty bearer as a missing key", async () => {
    const basic = `Basic ${Buffer.from(`user:${org.key}`).toString("base64")}`;
    for (const authorization of [basic, org.key, `Token ${org.key}`, "Bearer", "Bearer   ", ""]) {
      const response = await anonymous().get("/api/runs/auth/validate", undefined, { authorization });
      assert.equal(response.status, 401, authorization);
      assert.deepEqual(response.body, { error: "missing API key" }, authorization);
    }
  });

  it("rejects an unknown key, and one that differs from a real key in one character: 401 invalid API key", async () => {
    const last = org.key.at(-1) === "A" ? "B" : "A";
    for (const key of ["sw_not-a-real-key", org.key.slice(0, -1) + last, `${org.key}x`]) {
      const response = await anonymous().withKey(key).get("/api/runs/auth/validate");
      assert.equal(response.status, 401, key);
      assert.deepEqual(response.body, { error: "invalid API key" });
    }
  });

  it("accepts a key until its expiry, then answers 401 API key has expired", async () => {
    const { client } = await keyFor(clock.now() + 60_000);
    assert.equal((await client.get("/api/runs/auth/validate")).status, 200);
    clock.advance(59_999);
    assert.equal((await client.get("/api/runs/auth/validate")).status, 200);
    clock.advance(1);
    const response = await client.get("/api/runs/auth/validate");
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: "API key has expired" });
  });

  it("rejects a revoked key with 401 API key has been revoked, on every route, leaving other keys working", async () => {
    const { client, id } = await keyFor(null);
    assert.equal((await client.get("/api/runs/projects")).status, 200);
    await test.server.store.revokeApiKey(id, clock.now());
    for (const response of [
      await client.get("/api/runs/auth/validate"),
      await client.get("/api/runs/projects"),
      await client.raw("POST", "/api/slug", undefined),
    ]) {
      assert.equal(response.status, 401);
      assert.deepEqual(response.body, { error: "API key has been revoked" });
    }
    assert.equal((await org.client.get("/api/runs/auth/validate")).status, 200);
  });

  it("names revocation, not expiry, for a key that is both", async () => {
    const { client, id } = await keyFor(clock.now() + 1000);
    await test.server.store.revokeApiKey(id, clock.now());
    clock.advance(2000);
    assert.deepEqual((await client.get("/api/runs/auth/validate")).body, { error: "API key has been revoked" });
  });

  it("checks the key before reading the body: an unauthenticated oversized or malformed body is a 401", async () => {
    const malformed = await anonymous().raw("POST", "/api/runs/create", "{not json", { "content-type": "application/json" });
    assert.equal(malformed.status, 401);
    assert.deepEqual(malformed.body, { error: "missing API key" });
    const big = await anonymous().raw("POST", "/api/runs/tags/update", JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) }), {
      "content-type": "application/json",
    });
    assert.equal(big.status, 401);
  });

  it("requires a key on every route of the OpenAPI document except the public ones", async () => {
    const document = (await anonymous().get("/api/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })),
    );
    const guarded = operations.filter((operation) => !isPublic(operation.path));
    assert.ok(guarded.length >= 30, `only ${guarded.length} authenticated operations in the document`);
    assert.ok(
      guarded.some((o) => o.path === "/api/runs/{runId}"),
      "the encoded-ID decoder needs a key too",
    );
    for (const { path, method } of guarded) {
      const url = concretePath(path);
      const body = method === "GET" ? undefined : "{}";
      const headers: Record<string, string> =
        method === "GET" ? {} : { "content-type": "application/json", "x-run-id": "1", "x-project-name": "p" };
      for (const [client, error] of [
        [anonymous(), "missing API key"],
        [anonymous().withKey("sw_wrong"), "invalid API key"],
      ] as const) {
        const response = await client.raw(method, url, body, headers);
        assert.equal(response.status, 401, `${method} ${url}: ${JSON.stringify(response.body)}`);
        assert.deepEqual(response.body, { error }, `${method} ${url}`);
      }
    }
  });

  it("serves the public routes without a key", async () => {
    for (const path of ["/api/health", "/api/health/ready", "/api/openapi.json", "/api/docs"]) {
      const response = await anonymous().get(path);
      assert.equal(response.status, 200, path);
    }
  });

  it("marks the public operations as needing no security in the OpenAPI document, and the others as bearer", async () => {
    const document = (await anonymous().get("/api/openapi.json")).body as {
      security?: unknown;
      paths: Record<string, Record<string, { security?: unknown; responses?: Record<string, unknown> }>>;
    };
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const security = operation.security ?? document.security;
        if (isPublic(path)) assert.deepEqual(security, [], `${method} ${path}`);
        else {
          assert.deepEqual(security, [{ bearer: [] }], `${method} ${path}`);
          assert.ok(operation.responses?.["401"], `${method} ${path} documents its 401`);
        }
      }
    }
  });
});
