import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Role } from "../../src/domain/roles.js";
import { issueKey } from "../../src/services/accounts.js";
import { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * A person's own API keys over HTTP (docs/api.md, "API keys"): made, listed and revoked with a
 * session or a key; a key's role is at most its owner's (and the caller's: a read-only key makes
 * read-only keys); an admin lists and revokes the organization's keys; another organization's keys
 * are not found.
 */
describe("API keys of people", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--stale-after": "0" } });
  });
  after(async () => test.close());

  /** A person of the organization with that role: a key of its own and a signed-in session. */
  async function person(org: Awaited<ReturnType<typeof makeOrg>>, role: Role) {
    const store = test.server.store;
    const orgId = org.organization.id;
    const email = `${role}-${Math.random().toString(36).slice(2)}@keys.example`;
    const user = await store.createUser({ orgId, email, name: role, kind: "person" }, Date.now());
    await store.setMembership(orgId, user.id, role, Date.now());
    const { key, record } = await issueKey(store, { orgId, userId: user.id, name: "own", expiresAt: null, role: null }, Date.now());
    const started = await test.server.services.sessions.start({ userId: user.id, orgId, sourceIp: null, userAgent: null });
    const cookie = { cookie: `stepwise_session=${started.token}`, "x-csrf-token": started.csrfToken };
    const browser = new ApiClient(test.url, undefined);
    return {
      user,
      key,
      keyId: record.id,
      client: new ApiClient(test.url, key),
      get: (path: string, query?: Record<string, string>) => browser.get(path, query, cookie),
      post: (path: string, body?: unknown) => browser.post(path, body ?? {}, cookie),
    };
  }

  it("a member makes a key with its session: shown once, its own, acting as the member", async () => {
    const org = await makeOrg(test);
    const ada = await person(org, "member");
    const made = await ada.post("/api/keys", { name: "laptop", expiresIn: "30d" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.match(made.body.key, /^sw_/);
    assert.equal(made.body.apiKey.name, "laptop");
    assert.deepEqual(made.body.apiKey.user, { id: ada.user.id, email: ada.user.email, name: "member", kind: "person" });
    assert.equal(made.body.apiKey.role, null);
    assert.equal(made.body.apiKey.memberRole, "member");
    const lifetime = Date.parse(made.body.apiKey.expiresAt) - Date.parse(made.body.apiKey.createdAt);
    assert.equal(lifetime, 30 * 86_400_000);
    const validate = await new ApiClient(test.url, made.body.key).get("/api/runs/auth/validate");
    assert.equal(validate.status, 200);
    assert.equal(validate.body.user.id, ada.user.id);
    assert.equal(validate.body.role, "member");

    const listed = await ada.get("/api/keys");
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.keys.map((k: { name: string }) => k.name),
      ["own", "laptop"],
      "its own keys only: not the organization's first key",
    );
    assert.ok(!JSON.stringify(listed.body).includes(made.body.key), "the key itself is never listed");
  });

  it("a key's role is at most its owner's; a read-only key reads only and makes read-only keys only", async () => {
    const org = await makeOrg(test);
    const ada = await person(org, "member");
    const above = await ada.post("/api/keys", { name: "too-much", role: "admin" });
    assert.equal(above.status, 403);
    assert.equal(above.body.error, "a key's role is at most its owner's: 'admin' is above 'member'");

    const readOnly = await ada.client.post("/api/keys", { name: "read-only", role: "viewer" });
    assert.equal(readOnly.status, 201, JSON.stringify(readOnly.body));
    assert.equal(readOnly.body.apiKey.role, "viewer");
    const viewerKey = new ApiClient(test.url, readOnly.body.key);
    assert.equal((await viewerKey.get("/api/runs/projects")).status, 200);
    const write = await viewerKey.post("/api/runs/create", { projectName: "p", runName: "r" });
    assert.equal(write.status, 403);
    assert.equal(write.body.error, "this requires the role 'member' (your role: 'viewer')");

    const escalate = await viewerKey.post("/api/keys", { name: "escalate", role: "member" });
    assert.equal(escalate.status, 403);
    assert.equal(escalate.body.error, "a key's role is at most its owner's: 'member' is above 'viewer'");
    const follows = await viewerKey.post("/api/keys", { name: "no-role" });
    assert.equal(follows.status, 201);
    assert.equal(follows.body.apiKey.role, "viewer", "without a role, a key made by a read-only key is read-only too");
  });

  it("refuses a bad lifetime or role with 400, making nothing", async () => {
    const org = await makeOrg(test);
    const ada = await person(org, "admin");
    for (const [body, message] of [
      [{ name: "k", expiresIn: "0d" }, /expiresIn must be longer than 0/],
      [{ name: "k", expiresIn: "36501d" }, /at most 36500d/],
      [{ name: "k", expiresIn: "soon" }, /expiresIn must be a duration/],
      [{ name: "k", role: "god" }, /role/],
      [{ name: "" }, /name/],
    ] as const) {
      const refused = await ada.post("/api/keys", body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.match(refused.body.error, message);
    }
    assert.equal((await ada.get("/api/keys")).body.keys.length, 1);
  });

  it("a member revokes its own keys, not another's; an admin lists and revokes any of the organization", async () => {
    const org = await makeOrg(test);
    const ada = await person(org, "member");
    const bob = await person(org, "member");
    const admin = await person(org, "admin");
    const adaKey = (await ada.post("/api/keys", { name: "second" })).body;

    const notHers = await ada.post(`/api/keys/${bob.keyId}/revoke`);
    assert.equal(notHers.status, 403);
    assert.equal(notHers.body.error, "this requires the role 'admin' (your role: 'member')");
    assert.equal((await bob.client.get("/api/runs/projects")).status, 200, "bob's key still works");
    const all = await ada.get("/api/keys", { all: "true" });
    assert.equal(all.status, 403);

    const own = await ada.post(`/api/keys/${adaKey.apiKey.id}/revoke`);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.ok(own.body.apiKey.revokedAt);
    assert.equal((await new ApiClient(test.url, adaKey.key).get("/api/runs/projects")).status, 401);

    const everyone = await admin.get("/api/keys", { all: "true" });
    assert.equal(everyone.status, 200);
    const owners = new Map<string, string>(
      everyone.body.keys.map((k: { id: string; user: { kind: string; email: string | null; name: string } }) => [
        k.id,
        k.user.kind === "person" ? k.user.email! : `service:${k.user.name}`,
      ]),
    );
    assert.equal(owners.get(org.keyId), "service:admin", "the organization's first key is its owner service account's");
    assert.equal(owners.get(bob.keyId), bob.user.email);
    assert.equal(owners.size, 5);

    const byAdmin = await admin.post(`/api/keys/${bob.keyId}/revoke`);
    assert.equal(byAdmin.status, 200);
    assert.equal((await bob.client.get("/api/runs/projects")).status, 401, "a revoked key stops at once");
  });

  it("another organization's keys are not found, listed or revoked", async () => {
    const mine = await makeOrg(test);
    const theirs = await makeOrg(test);
    const admin = await person(mine, "admin");
    const stranger = await person(theirs, "member");
    const listed = await admin.get("/api/keys", { all: "true" });
    assert.ok(!listed.body.keys.some((k: { id: string }) => k.id === stranger.keyId || k.id === theirs.keyId));
    for (const keyId of [stranger.keyId, theirs.keyId, "no-such-key"]) {
      const refused = await admin.post(`/api/keys/${keyId}/revoke`);
      assert.equal(refused.status, 404, keyId);
    }
    assert.equal((await stranger.client.get("/api/runs/projects")).status, 200);
    assert.equal((await theirs.client.get("/api/runs/projects")).status, 200);
  });

  it("a removed member's keys stop working at once, and its own list is gone with it", async () => {
    const org = await makeOrg(test);
    const ada = await person(org, "member");
    const made = (await ada.post("/api/keys", { name: "k" })).body;
    assert.equal(await test.server.store.removeMembership(org.organization.id, ada.user.id, Date.now()), true);
    assert.equal((await new ApiClient(test.url, made.key).get("/api/runs/projects")).status, 401);
    assert.equal((await ada.client.get("/api/keys")).status, 401);
  });
});
