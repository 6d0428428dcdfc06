import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { issueKey } from "../../src/services/accounts.js";
import { ApiClient } from "../helpers/client.js";
import { ManualClock, makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * Browser sessions and roles over HTTP (docs/semantics.md, "People, roles and sign-in"): the
 * cookie authenticates reads, a write needs the session's CSRF token and this server's origin,
 * the idle and absolute expiries end it, sign-out ends it on the server, and removal from the
 * organization ends it and the member's keys at the next request. Keys act with the lower of
 * their cap and their owner's role.
 */
describe("sessions and roles", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock, flags: { "--stale-after": "0", "--session-idle": "1h", "--session-max-age": "1d" } });
  });
  after(async () => test.close());

  /** A person of a new organization with that role, signed in: its cookie and CSRF token. */
  async function signedIn(role: "viewer" | "member" | "admin" | "owner") {
    const org = await makeOrg(test);
    const store = test.server.store;
    const user = await store.createUser(
      { orgId: org.organization.id, email: `${Math.random().toString(36).slice(2)}@example.com`, name: "Ada", kind: "person" },
      clock.now(),
    );
    await store.setMembership(org.organization.id, user.id, role, clock.now());
    const started = await test.server.services.sessions.start({
      userId: user.id,
      orgId: org.organization.id,
      sourceIp: null,
      userAgent: null,
    });
    const cookie = `stepwise_session=${started.token}`;
    const browser = new ApiClient(test.url, undefined);
    const get = (path: string) => browser.get(path, undefined, { cookie });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) => browser.post(path, body, { cookie, ...headers });
    return { org, user, cookie, csrf: started.csrfToken, sessionId: started.id, get, post };
  }

  it("a session cookie reads, and says who is signed in with the CSRF token for writes", async () => {
    const ada = await signedIn("member");
    const session = await ada.get("/api/auth/session");
    assert.equal(session.status, 200);
    assert.deepEqual(session.body, {
      user: { id: ada.user.id, email: ada.user.email, name: "Ada", kind: "person" },
      organization: { id: ada.org.organization.id, slug: ada.org.organization.slug },
      role: "member",
      csrfToken: ada.csrf,
      organizations: [{ slug: ada.org.organization.slug, role: "member" }],
    });
    assert.equal((await ada.get("/api/runs/projects")).status, 200);
  });

  it("a write with the cookie needs the session's CSRF token and, when the browser names one, this server's origin", async () => {
    const ada = await signedIn("member");
    const body = { runName: "r", projectName: "csrf" };
    const withoutToken = await ada.post("/api/runs/create", body);
    assert.equal(withoutToken.status, 403);
    assert.match(withoutToken.body.error, /CSRF check failed/);
    assert.equal((await ada.post("/api/runs/create", body, { "x-csrf-token": "not-it" })).status, 403);
    const otherOrigin = await ada.post("/api/runs/create", body, { "x-csrf-token": ada.csrf, origin: "https://evil.example" });
    assert.equal(otherOrigin.status, 403);
    assert.match(otherOrigin.body.error, /origin 'https:\/\/evil.example'/);
    assert.equal((await ada.get("/api/runs/projects")).body.projects.length, 0, "nothing was created");
    const ok = await ada.post("/api/runs/create", body, { "x-csrf-token": ada.csrf, origin: new URL(test.url).origin });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  it("a viewer's session reads but every write is 403 naming the role it lacks", async () => {
    const viewer = await signedIn("viewer");
    assert.equal((await viewer.get("/api/runs/projects")).status, 200);
    const refused = await viewer.post("/api/runs/create", { runName: "r", projectName: "nope" }, { "x-csrf-token": viewer.csrf });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "this requires the role 'member' (your role: 'viewer')");
  });

  it("sign-out ends the session on the server: the same cookie no longer works", async () => {
    const ada = await signedIn("member");
    const out = await ada.post("/api/auth/sign-out", undefined);
    assert.equal(out.status, 200);
    assert.match(out.headers.get("set-cookie") ?? "", /stepwise_session=;/);
    const after = await ada.get("/api/runs/projects");
    assert.equal(after.status, 401);
    assert.match(after.body.error, /session has ended/);
  });

  it("a session ends after the idle timeout and at its absolute expiry, however active", async () => {
    const idle = await signedIn("member");
    clock.advance(59 * 60_000);
    assert.equal((await idle.get("/api/runs/projects")).status, 200, "used within the hour: activity recorded");
    clock.advance(59 * 60_000);
    assert.equal((await idle.get("/api/runs/projects")).status, 200, "an hour after sign-in, but not idle for one");
    clock.advance(61 * 60_000);
    const expired = await idle.get("/api/runs/projects");
    assert.equal(expired.status, 401);
    assert.match(expired.body.error, /inactivity/);

    const busy = await signedIn("member");
    for (let hour = 0; hour < 24; hour++) {
      clock.advance(59 * 60_000);
      assert.equal((await busy.get("/api/runs/projects")).status, 200);
    }
    clock.advance(60 * 60_000);
    const old = await busy.get("/api/runs/projects");
    assert.equal(old.status, 401);
    assert.match(old.body.error, /session has expired/);
  });

  it("removing a member ends its session and revokes its keys at the next request", async () => {
    const ada = await signedIn("admin");
    const { key } = await issueKey(
      test.server.store,
      { orgId: ada.org.organization.id, userId: ada.user.id, name: "ada's", expiresAt: null, role: null },
      clock.now(),
    );
    const adaKey = new ApiClient(test.url, key);
    assert.equal((await adaKey.get("/api/runs/projects")).status, 200);
    await test.server.store.removeMembership(ada.org.organization.id, ada.user.id, clock.now());
    assert.equal((await adaKey.get("/api/runs/projects")).status, 401);
    assert.equal((await ada.get("/api/runs/projects")).status, 401);
  });

  it("a key acts with the lower of its cap and its owner's role, which follows role changes at once", async () => {
    const ada = await signedIn("admin");
    const issue = async (role: "viewer" | "owner" | null) =>
      new ApiClient(
        test.url,
        (
          await issueKey(
            test.server.store,
            { orgId: ada.org.organization.id, userId: ada.user.id, name: `cap ${role}`, expiresAt: null, role },
            clock.now(),
          )
        ).key,
      );
    const readOnly = await issue("viewer");
    const uncapped = await issue(null);
    assert.equal((await readOnly.get("/api/runs/projects")).status, 200);
    const refused = await readOnly.post("/api/runs/create", { runName: "r", projectName: "x" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "this requires the role 'member' (your role: 'viewer')");
    assert.equal((await uncapped.post("/api/runs/create", { runName: "r", projectName: "x" })).status, 200);
    await test.server.store.setMembership(ada.org.organization.id, ada.user.id, "viewer", clock.now());
    assert.equal(
      (await uncapped.post("/api/runs/create", { runName: "r", projectName: "y" })).status,
      403,
      "the owner's new role caps the key",
    );
    const validated = await uncapped.get("/api/runs/auth/validate");
    assert.equal(validated.status, 200);
  });

  it("an organization's first key is its owner's: a service account that owns it", async () => {
    const org = await makeOrg(test);
    const session = await org.client.get("/api/auth/session");
    assert.equal(session.status, 200);
    assert.equal(session.body.role, "owner");
    assert.equal(session.body.csrfToken, null);
    assert.deepEqual(session.body.user, { id: session.body.user.id, email: null, name: "admin", kind: "service" });
  });
});
