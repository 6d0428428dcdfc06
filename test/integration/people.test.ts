import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { issueKey } from "../../src/services/accounts.js";
import { ApiClient, type ApiResponse } from "../helpers/client.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * People over HTTP (docs/semantics.md, "People, roles and sign-in"; docs/api.md, "Sign-in and
 * sessions", "Members"): invitations set a password and sign in, password sign-in with its limits,
 * members' roles and removal acting at the next request, CSRF and session fixation.
 */

const PASSWORD = "correct horse battery";
const uniqueEmail = (name = "ada") => `${name}-${Math.random().toString(36).slice(2, 10)}@example.com`;

/** The session cookie a response set (`name=value`), or undefined. */
function sessionCookie(response: ApiResponse): string | undefined {
  const header = response.headers.getSetCookie().find((cookie) => cookie.startsWith("stepwise_session="));
  const pair = header?.split(";")[0];
  return pair === "stepwise_session=" ? undefined : pair;
}

/** A browser: a cookie jar of one cookie and the CSRF token its page keeps. */
class Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  readonly client: ApiClient;
  constructor(url: string) {
    this.client = new ApiClient(url, undefined);
  }
  private headers(extra: Record<string, string> = {}) {
    return { ...(this.cookie ? { cookie: this.cookie } : {}), ...(this.csrf ? { "x-csrf-token": this.csrf } : {}), ...extra };
  }
  get(path: string) {
    return this.client.get(path, undefined, this.headers());
  }
  post(path: string, body: unknown, extra: Record<string, string> = {}) {
    return this.client.post(path, body, this.headers(extra));
  }
  /** A sign-in or invitation answer: keeps the new cookie and CSRF token. */
  private keep(response: ApiResponse) {
    if (response.status === 200) {
      this.cookie = sessionCookie(response);
      this.csrf = response.body.csrfToken;
    }
    return response;
  }
  async signIn(email: string, password: string, organization?: string) {
    return this.keep(await this.post("/api/auth/sign-in", { email, password, ...(organization ? { organization } : {}) }));
  }
  async accept(link: string, password: string, name?: string) {
    const token = link.split("/invite/")[1]!;
    return this.keep(await this.post(`/api/auth/invitations/${token}/accept`, { password, ...(name ? { name } : {}) }));
  }
}

describe("people: invitations, password sign-in, members", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock });
  });
  after(async () => test.close());

  /** An organization (its owner key's client) and a person invited to it with that role, signed in by the link. */
  async function member(role: "viewer" | "member" | "admin" | "owner" = "member") {
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email, role });
    assert.equal(invited.status, 200, JSON.stringify(invited.body));
    const browser = new Browser(test.url);
    const accepted = await browser.accept(invited.body.invitationUrl, PASSWORD);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    return { org, email, userId: invited.body.member.user.id as string, browser, link: invited.body.invitationUrl as string };
  }

  it("an invitation link sets the password once and signs in; the person then signs in with it", async () => {
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email: email.toUpperCase(), name: "Ada", role: "member" });
    assert.equal(invited.status, 200, JSON.stringify(invited.body));
    assert.equal(invited.body.member.user.email, email, "stored lowercased");
    assert.equal(invited.body.member.role, "member");
    assert.match(invited.body.invitationUrl, new RegExp(`^${test.url}/invite/[A-Za-z0-9_-]{43}$`));
    assert.equal(invited.headers.get("cache-control"), "no-store");

    const token = invited.body.invitationUrl.split("/invite/")[1];
    const anonymous = new Browser(test.url);
    const shown = await anonymous.get(`/api/auth/invitations/${token}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.email, email);
    assert.equal(shown.body.organization.slug, org.organization.slug);
    assert.equal(shown.body.hasPassword, false);

    const short = await anonymous.accept(invited.body.invitationUrl, "too short");
    assert.equal(short.status, 400);
    assert.match(short.body.error, /at least 10 characters/);

    const browser = new Browser(test.url);
    const accepted = await browser.accept(invited.body.invitationUrl, PASSWORD, "Ada Lovelace");
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual(accepted.body, {
      csrfToken: accepted.body.csrfToken,
      organization: { id: org.organization.id, slug: org.organization.slug },
      role: "member",
    });
    assert.match(accepted.headers.get("set-cookie") ?? "", /stepwise_session=[^;]+; .*HttpOnly; SameSite=Lax/);
    const session = await browser.get("/api/auth/session");
    assert.equal(session.status, 200);
    assert.equal(session.body.user.name, "Ada Lovelace");
    assert.equal(session.body.csrfToken, browser.csrf);

    const again = await new Browser(test.url).accept(invited.body.invitationUrl, "another password!");
    assert.equal(again.status, 400);
    assert.match(again.body.error, /used already/);
    assert.equal((await anonymous.get(`/api/auth/invitations/${token}`)).status, 400);

    const later = new Browser(test.url);
    const signedIn = await later.signIn(email, PASSWORD);
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    assert.equal(signedIn.body.role, "member");
    assert.equal((await later.get("/api/runs/projects")).status, 200);
    assert.equal((await later.post("/api/runs/create", { runName: "r", projectName: "p" })).status, 200, "a write with the CSRF token");
  });

  it("a wrong password and an unknown email get the same 401; the audit log has the sign-ins and the known person's failure", async () => {
    const { email, org, userId } = await member();
    const wrong = await new Browser(test.url).signIn(email, "not the password");
    const unknown = await new Browser(test.url).signIn(uniqueEmail("nobody"), PASSWORD);
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.deepEqual(wrong.body, { error: "wrong email or password" });
    assert.equal(sessionCookie(wrong), undefined);
    const log = await org.client.get("/api/audit", { targetId: userId });
    assert.equal(log.status, 200, JSON.stringify(log.body));
    assert.deepEqual(
      log.body.entries.map((entry: { action: string; actor: { label: string } }) => [entry.action, entry.actor.label]),
      [
        ["sign_in_failed", email],
        ["sign_in", email],
        ["member.add", "admin"],
      ],
    );
  });

  it("sign-in gives a new session every time: a cookie held before it is not the one after, and no longer works", async () => {
    const { email, browser } = await member();
    const before = browser.cookie!;
    assert.equal((await browser.get("/api/runs/projects")).status, 200);
    const again = await browser.signIn(email, PASSWORD);
    assert.equal(again.status, 200);
    assert.notEqual(browser.cookie, before, "a new session ID");
    const old = await browser.client.get("/api/runs/projects", undefined, { cookie: before });
    assert.equal(old.status, 401, "the session the browser held before signing in has ended");
    assert.equal((await browser.get("/api/runs/projects")).status, 200);
    // A cookie planted before sign-in (one the server never issued) is not adopted either.
    const planted = new Browser(test.url);
    planted.cookie = "stepwise_session=planted-by-someone-else";
    await planted.signIn(email, PASSWORD);
    assert.notEqual(planted.cookie, "stepwise_session=planted-by-someone-else");
  });

  it("refuses a write with the session cookie from another origin (CSRF)", async () => {
    const { browser } = await member("admin");
    const refused = await browser.post("/api/members", { email: uniqueEmail(), role: "viewer" }, { origin: "https://evil.example" });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error, /CSRF check failed/);
    const noToken = await browser.client.post("/api/members", { email: uniqueEmail() }, { cookie: browser.cookie! });
    assert.equal(noToken.status, 403);
    assert.equal((await browser.get("/api/members")).body.members.length, 2, "nobody was invited");
    const same = await browser.post("/api/members", { email: uniqueEmail(), role: "viewer" }, { origin: new URL(test.url).origin });
    assert.equal(same.status, 200, JSON.stringify(same.body));
  });

  it("a role change takes effect at the member's next request", async () => {
    const { org, userId, browser } = await member("member");
    const refused = await browser.post("/api/members", { email: uniqueEmail() });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "this requires the role 'admin' (your role: 'member')");
    const changed = await org.client.post(`/api/members/${userId}/role`, { role: "admin" });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.member.role, "admin");
    assert.equal((await browser.post("/api/members", { email: uniqueEmail() })).status, 200);
    assert.equal((await browser.get("/api/auth/session")).body.role, "admin");
    await org.client.post(`/api/members/${userId}/role`, { role: "viewer" });
    assert.equal((await browser.post("/api/runs/create", { runName: "r", projectName: "p" })).status, 403);

    // The audit log has the invitation, the sign-in by it and both role changes, newest first.
    const audit = await org.client.get("/api/audit", { targetId: userId });
    assert.equal(audit.status, 200, JSON.stringify(audit.body));
    const entries = audit.body.entries.map((e: { action: string; details: unknown }) => [e.action, e.details]);
    assert.deepEqual(entries, [
      ["member.role", { from: "admin", to: "viewer" }],
      ["member.role", { from: "member", to: "admin" }],
      ["sign_in", { method: "invitation" }],
      ["member.add", { role: "member", via: "invitation" }],
    ]);
  });

  it("removal ends the member's session and revokes its keys", async () => {
    const { org, userId, browser } = await member("member");
    const { key } = await issueKey(
      test.server.store,
      { orgId: org.organization.id, userId, name: "ada", expiresAt: null, role: null },
      clock.now(),
    );
    const adaKey = new ApiClient(test.url, key);
    assert.equal((await adaKey.get("/api/runs/projects")).status, 200);
    const removed = await org.client.post(`/api/members/${userId}/remove`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal((await browser.get("/api/runs/projects")).status, 401);
    assert.equal((await adaKey.get("/api/runs/projects")).status, 401);
    const members = await org.client.get("/api/members");
    assert.ok(!members.body.members.some((m: { user: { id: string } }) => m.user.id === userId));
    const audit = await org.client.get("/api/audit", { action: "member.remove" });
    assert.deepEqual(
      audit.body.entries.map((e: { target: { id: string }; details: unknown }) => [e.target.id, e.details]),
      [[userId, { role: "member" }]],
    );
    assert.equal((await org.client.post(`/api/members/${userId}/remove`)).status, 404);
  });

  it("only an owner grants or takes away owner; the last owner stays", async () => {
    const { org, userId: adminId, browser: admin } = await member("admin");
    const owners = (await org.client.get("/api/members")).body.members.filter((m: { role: string }) => m.role === "owner");
    assert.equal(owners.length, 1, "the organization's first key's service account");
    const grant = await admin.post(`/api/members/${adminId}/role`, { role: "owner" });
    assert.equal(grant.status, 403);
    assert.match(grant.body.error, /only an owner/);
    const demoteOwner = await admin.post(`/api/members/${owners[0].user.id}/role`, { role: "member" });
    assert.equal(demoteOwner.status, 403);
    assert.equal((await admin.post("/api/members", { email: uniqueEmail(), role: "owner" })).status, 403);

    // The owner key makes the admin owner; the admin-now-owner removes the first owner, then cannot demote itself.
    assert.equal((await org.client.post(`/api/members/${adminId}/role`, { role: "owner" })).status, 200);
    assert.equal((await admin.post(`/api/members/${owners[0].user.id}/remove`, {})).status, 200);
    const last = await admin.post(`/api/members/${adminId}/role`, { role: "admin" });
    assert.equal(last.status, 409);
    assert.match(last.body.error, /at least one owner/);
    assert.equal((await admin.post(`/api/members/${adminId}/remove`, {})).status, 409);
  });

  it("an admin's re-invitation of a person with a password makes no link; the operator's link resets the password", async () => {
    const { org, email, browser, link } = await member("member");
    const again = await org.client.post("/api/members", { email });
    assert.equal(again.status, 200);
    assert.equal(again.body.member.role, "member", "the role is kept");
    assert.equal(again.body.invitationUrl, null, "an admin cannot reset a password");
    const conflict = await org.client.post("/api/members", { email, role: "admin" });
    assert.equal(conflict.status, 409);
    assert.match(conflict.body.error, /member already, with the role 'member'/);

    // The operator's (stepwise users create, in process here): a link that sets a new password.
    const people = test.server.services.people;
    const older = (await people.invite(org.organization.id, { email }, null)).token!;
    const newer = (await people.invite(org.organization.id, { email }, null)).token!;
    assert.equal((await new Browser(test.url).get(`/api/auth/invitations/${newer}`)).body.hasPassword, true);
    assert.equal((await new Browser(test.url).accept(`${test.url}/invite/${older}`, "newer password 1")).status, 404, "replaced");
    assert.equal((await new Browser(test.url).accept(link, "newer password 1")).status, 400, "used already");
    const reset = await new Browser(test.url).accept(`${test.url}/invite/${newer}`, "a brand new password");
    assert.equal(reset.status, 200);
    assert.equal((await browser.get("/api/runs/projects")).status, 401, "the browser that knew the old password is signed out");
    assert.equal((await new Browser(test.url).signIn(email, PASSWORD)).status, 401);
    assert.equal((await new Browser(test.url).signIn(email, "a brand new password")).status, 200);
  });

  it("an admin's link cannot set the password of a person of another organization", async () => {
    // A person with a password in A, added to B by B's admin: no link, and A's password still signs in.
    const a = await member("owner");
    const b = await makeOrg(test);
    const added = await b.client.post("/api/members", { email: a.email, role: "admin" });
    assert.equal(added.status, 200);
    assert.equal(added.body.invitationUrl, null);
    assert.equal((await new Browser(test.url).signIn(a.email, PASSWORD, b.organization.slug)).status, 200);

    // A person invited by A, link not yet used, then added to B: A's link may no longer set the
    // password (B's admin saw no link; A's admin's link would now open B too). The operator's may.
    const email = uniqueEmail("pending");
    const fromA = await a.org.client.post("/api/members", { email });
    assert.match(fromA.body.invitationUrl, /\/invite\//);
    const fromB = await b.client.post("/api/members", { email });
    assert.equal(fromB.body.invitationUrl, null);
    const token = fromA.body.invitationUrl.split("/invite/")[1];
    const shown = await new Browser(test.url).get(`/api/auth/invitations/${token}`);
    assert.equal(shown.status, 400);
    assert.match(shown.body.error, /can no longer set your password/);
    assert.equal((await new Browser(test.url).accept(fromA.body.invitationUrl, PASSWORD)).status, 400);
    const operator = (await test.server.services.people.invite(a.org.organization.id, { email }, null)).token!;
    assert.equal((await new Browser(test.url).accept(`${test.url}/invite/${operator}`, PASSWORD)).status, 200);
  });

  it("a person of two organizations signs in to the one named, and switches between them", async () => {
    const { email, browser } = await member("viewer");
    const other = await makeOrg(test);
    assert.equal((await other.client.post("/api/members", { email, role: "admin" })).status, 200);
    const named = await browser.signIn(email, PASSWORD, other.organization.slug);
    assert.equal(named.status, 200);
    assert.deepEqual(named.body.organization, { id: other.organization.id, slug: other.organization.slug });
    assert.equal(named.body.role, "admin");
    const notMember = await new Browser(test.url).signIn(email, PASSWORD, "no-such-org");
    assert.equal(notMember.status, 403);
  });

  it("members are of one organization: another's members are neither listed nor changed", async () => {
    const a = await member("member");
    const b = await makeOrg(test);
    const listed = await b.client.get("/api/members");
    assert.ok(!listed.body.members.some((m: { user: { id: string } }) => m.user.id === a.userId));
    assert.equal((await b.client.post(`/api/members/${a.userId}/role`, { role: "viewer" })).status, 404);
    assert.equal((await b.client.post(`/api/members/${a.userId}/remove`)).status, 404);
    assert.equal((await a.browser.get("/api/runs/projects")).status, 200, "untouched");
    assert.equal(
      (await a.org.client.get("/api/members")).body.members.find((m: { user: { id: string } }) => m.user.id === a.userId).role,
      "member",
    );
  });

  it("validates input at the edge", async () => {
    const org = await makeOrg(test);
    assert.equal((await org.client.post("/api/members", { email: "not-an-email" })).status, 400);
    assert.equal((await org.client.post("/api/members", { email: uniqueEmail(), role: "god" })).status, 400);
    const anonymous = new Browser(test.url);
    assert.equal((await anonymous.post("/api/auth/sign-in", { email: uniqueEmail() })).status, 400);
    assert.equal((await anonymous.post("/api/auth/invitations/nope/accept", { password: PASSWORD })).status, 404);
    assert.equal((await anonymous.get("/api/members")).status, 401);
  });

  it("the UI's API-key sign-in is offered only while no person has a password", async () => {
    // Other tests of this server have set passwords already.
    await member();
    const config = await new Browser(test.url).get("/api/auth/config");
    assert.deepEqual(config.body, { password: true, oidc: false, apiKey: false });
  });

  it("an expired invitation cannot be used", async () => {
    const org = await makeOrg(test);
    const invited = await org.client.post("/api/members", { email: uniqueEmail() });
    clock.advance(7 * 24 * 3600 * 1000 + 1);
    const expired = await new Browser(test.url).accept(invited.body.invitationUrl, PASSWORD);
    assert.equal(expired.status, 400);
    assert.match(expired.body.error, /expired/);
  });
});

describe("sign-in limits, shared by two processes on one store", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  let second: RunningServer;
  before(async () => {
    test = await startTestServer({ clock });
    const flags: Record<string, string> = { "--data-dir": test.dataDir, "--port": "0", "--log-level": "silent" };
    if (test.databaseUrl) flags["--database-url"] = test.databaseUrl;
    second = await startServer(loadConfig(flags, {}), clock);
  });
  after(async () => {
    await second.close();
    await test.close();
  });

  it("a session made at one process works at the other, and its sign-out ends it at both", async () => {
    assert.deepEqual((await new Browser(second.url).get("/api/auth/config")).body, { password: true, oidc: false, apiKey: true });
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email, role: "member" });
    const atFirst = new Browser(test.url);
    assert.equal((await atFirst.accept(invited.body.invitationUrl, PASSWORD)).status, 200);
    const atSecond = new Browser(second.url);
    atSecond.cookie = atFirst.cookie;
    atSecond.csrf = atFirst.csrf;
    assert.equal((await atSecond.get("/api/auth/session")).body.user.email, email);
    assert.equal((await atSecond.post("/api/runs/create", { runName: "r", projectName: "p" })).status, 200);
    assert.equal((await atFirst.post("/api/auth/sign-out", {})).status, 200);
    // The other process may serve what it read for --auth-cache-ttl (1 s on PostgreSQL): past it, the session has ended there too.
    clock.advance(1001);
    assert.equal((await atSecond.get("/api/runs/projects")).status, 401);
  });

  it("5 failures of one account, spread over both processes, refuse the 6th attempt with 429 and Retry-After, even with the right password", async () => {
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email });
    assert.equal((await new Browser(test.url).accept(invited.body.invitationUrl, PASSWORD)).status, 200);
    for (let i = 0; i < 5; i++) {
      const url = i % 2 === 0 ? test.url : second.url;
      assert.equal((await new Browser(url).signIn(email, `wrong password ${i}`)).status, 401);
    }
    for (const url of [test.url, second.url]) {
      const refused = await new Browser(url).signIn(email, PASSWORD);
      assert.equal(refused.status, 429, `at ${url}`);
      assert.match(refused.body.error, /too many failed sign-ins/);
      const retryAfter = Number(refused.headers.get("retry-after"));
      assert.ok(retryAfter > 14 * 60 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
    }
    clock.advance(15 * 60_000 + 1000);
    assert.equal((await new Browser(second.url).signIn(email, PASSWORD)).status, 200, "the window has passed");
  });

  it("20 failures from one address, of any accounts, refuse further attempts from it", async () => {
    clock.advance(16 * 60_000);
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email });
    assert.equal((await new Browser(second.url).accept(invited.body.invitationUrl, PASSWORD)).status, 200);
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const url = i % 2 === 0 ? test.url : second.url;
        assert.equal((await new Browser(url).signIn(uniqueEmail(`guess${i}`), "wrong password")).status, 401);
      }),
    );
    const refused = await new Browser(test.url).signIn(email, PASSWORD);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    // Without --trust-proxy a client's X-Forwarded-For is not believed: it cannot pose as another address.
    const posing = await new Browser(test.url).post(
      "/api/auth/sign-in",
      { email, password: PASSWORD },
      { "x-forwarded-for": "198.51.100.1" },
    );
    assert.equal(posing.status, 429);
  });
});

describe("sign-in limits behind a reverse proxy (--trust-proxy)", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock, flags: { "--trust-proxy": "127.0.0.1" } });
  });
  after(async () => test.close());

  it("counts failures per forwarded client address, so one client's guesses do not stop another's sign-in", async () => {
    const org = await makeOrg(test);
    const email = uniqueEmail();
    const invited = await org.client.post("/api/members", { email });
    assert.equal((await new Browser(test.url).accept(invited.body.invitationUrl, PASSWORD)).status, 200);
    const from = (address: string) => ({ "x-forwarded-for": address });
    const anonymous = new Browser(test.url);
    for (let i = 0; i < 20; i++)
      assert.equal(
        (await anonymous.post("/api/auth/sign-in", { email: uniqueEmail(), password: "wrong password" }, from("203.0.113.7"))).status,
        401,
      );
    const guesser = await anonymous.post("/api/auth/sign-in", { email, password: PASSWORD }, from("203.0.113.7"));
    assert.equal(guesser.status, 429);
    const other = await anonymous.post("/api/auth/sign-in", { email, password: PASSWORD }, from("198.51.100.9"));
    assert.equal(other.status, 200, "another client behind the same proxy signs in");
  });
});
