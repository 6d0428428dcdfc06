import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { TestOidcProvider } from "../helpers/oidc-provider.js";
import {
  ManualClock,
  makeTestStoreLocation,
  spawnServer,
  startTestServer,
  type ServerProcess,
  type TestServer,
  type TestStoreLocation,
} from "../helpers/start-server.js";

/**
 * Single sign-on with a real OpenID Connect provider (oidc-provider, OpenID Certified, on a local
 * port) over HTTP (docs/api.md, "Single sign-on"): the code flow with PKCE, state and nonce gives a
 * session; a tampered state, a replayed code, an ID token for another audience or expired, and an
 * unverified email are refused; an allowed domain joins with the default role, another does not.
 */

/** A cookie jar of one browser: what Set-Cookie sets, sent back on every request. */
class Browser {
  readonly cookies = new Map<string, string>();
  readonly setCookies: string[] = [];
  constructor(private readonly accept = "application/json") {}

  async get(url: string): Promise<Response> {
    const response = await fetch(url, {
      redirect: "manual",
      headers: { accept: this.accept, cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** GET /api/auth/oidc/start at `base`: the provider's authorization URL it redirects to. */
  async start(base: string, returnTo?: string): Promise<string> {
    const response = await this.get(
      `${base}/api/auth/oidc/start${returnTo === undefined ? "" : `?returnTo=${encodeURIComponent(returnTo)}`}`,
    );
    assert.equal(response.status, 302, await response.clone().text());
    return response.headers.get("location")!;
  }
}

async function json(response: Response) {
  return JSON.parse(await response.text());
}

describe("single sign-on with OpenID Connect", () => {
  const clock = new ManualClock(Date.now());
  let provider: TestOidcProvider;
  let test: TestServer;
  before(async () => {
    provider = await TestOidcProvider.start({ idTokenTtlSeconds: 120 });
    test = await startTestServer({
      clock,
      flags: {
        "--stale-after": "0",
        "--oidc-issuer": provider.issuer,
        "--oidc-client-id": provider.clientId,
        "--oidc-client-secret": provider.clientSecret,
        "--oidc-allowed-domains": "allowed.example, Lab.Allowed.example",
        "--oidc-default-role": "member",
      },
    });
    provider.setRedirectUris([`${test.url}/api/auth/oidc/callback`]);
  });
  after(async () => {
    await test?.close();
    await provider?.close();
  });

  /** A person with that email, a member of organization `default` with the role. */
  async function member(email: string, role: "viewer" | "member" | "admin" = "admin") {
    const store = test.server.store;
    const organization = (await store.getOrganizationBySlug("default"))!;
    const user = await store.createUser({ orgId: organization.id, email, name: "Ada Lovelace", kind: "person" }, clock.now());
    await store.setMembership(organization.id, user.id, role, clock.now());
    provider.addUser({ email, name: "Ada L." });
    return { user, organization };
  }

  const unique = (local: string, domain = "example.com") => `${local}-${Math.random().toString(36).slice(2, 8)}@${domain}`;

  it("says which sign-in methods are on (the UI's API-key sign-in is off with single sign-on)", async () => {
    const response = await fetch(`${test.url}/api/auth/config`);
    assert.equal(response.status, 200);
    assert.deepEqual(await json(response), { password: true, oidc: true, apiKey: false });
  });

  it("signs a member in: the code flow ends in a session cookie that works, and sign-out ends it on the server", async () => {
    const { user } = await member(unique("ada"));
    const browser = new Browser();
    const authorization = new URL(await browser.start(test.url, "/projects/mnist?tab=charts"));
    assert.equal(authorization.origin + authorization.pathname, `${provider.issuer}/auth`);
    const params = authorization.searchParams;
    assert.equal(params.get("response_type"), "code");
    assert.equal(params.get("client_id"), provider.clientId);
    assert.equal(params.get("redirect_uri"), `${test.url}/api/auth/oidc/callback`);
    assert.equal(params.get("code_challenge_method"), "S256");
    assert.match(params.get("code_challenge")!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get("state")!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(params.get("nonce")!, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(params.get("scope")!.split(" ").sort(), ["email", "openid", "profile"]);
    const stateCookie = browser.setCookies.find((line) => line.startsWith("stepwise_oidc_state="))!;
    assert.match(stateCookie, /HttpOnly/i);
    assert.match(stateCookie, /SameSite=Lax/i);
    assert.match(stateCookie, /Path=\/api\/auth\/oidc/);

    const callback = await provider.signIn(authorization.href, user.email!);
    const landed = await browser.get(callback);
    assert.equal(landed.status, 302, await landed.clone().text());
    assert.equal(landed.headers.get("location"), "/projects/mnist?tab=charts");
    assert.equal(landed.headers.get("cache-control"), "no-store");
    const sessionCookie = browser.setCookies.find((line) => line.startsWith("stepwise_session="))!;
    assert.match(sessionCookie, /HttpOnly/i);
    assert.match(sessionCookie, /SameSite=Lax/i);
    assert.doesNotMatch(sessionCookie, /Secure/i, "served over plain HTTP");
    assert.equal(browser.cookies.has("stepwise_oidc_state"), false, "the state cookie is cleared");

    const session = await browser.get(`${test.url}/api/auth/session`);
    assert.equal(session.status, 200);
    const body = await json(session);
    assert.equal(body.user.id, user.id);
    assert.equal(body.user.email, user.email);
    assert.equal(body.organization.slug, "default");
    assert.equal(body.role, "admin");
    assert.equal((await browser.get(`${test.url}/api/runs/projects`)).status, 200);

    const token = browser.cookies.get("stepwise_session")!;
    const signOut = await fetch(`${test.url}/api/auth/sign-out`, { method: "POST", headers: { cookie: `stepwise_session=${token}` } });
    assert.equal(signOut.status, 200);
    const after = await fetch(`${test.url}/api/auth/session`, { headers: { cookie: `stepwise_session=${token}` } });
    assert.equal(after.status, 401, "the session ended on the server, not only in the browser");
  });

  it("returns only to a path of this server, never to another site", async () => {
    const { user } = await member(unique("grace"));
    for (const returnTo of ["https://evil.example/x", "//evil.example/x", "/\\evil.example", "/api/runs/projects"]) {
      const browser = new Browser();
      const callback = await provider.signIn(await browser.start(test.url, returnTo), user.email!);
      const landed = await browser.get(callback);
      assert.equal(landed.status, 302);
      assert.equal(landed.headers.get("location"), "/projects", returnTo);
    }
  });

  it("refuses a tampered state, and a state without this browser's cookie, without spending the real one", async () => {
    const { user } = await member(unique("tamper"));
    const browser = new Browser();
    const callback = new URL(await provider.signIn(await browser.start(test.url), user.email!));

    const tampered = new URL(callback);
    tampered.searchParams.set("state", `${callback.searchParams.get("state")!.slice(0, -2)}xx`);
    const refused = await browser.get(tampered.href);
    assert.equal(refused.status, 400);
    assert.equal((await json(refused)).code, "sso_state");
    assert.equal(browser.cookies.has("stepwise_session"), false);

    const otherBrowser = new Browser();
    const elsewhere = await otherBrowser.get(callback.href);
    assert.equal(elsewhere.status, 400, "a callback link opened in another browser (login CSRF)");
    assert.equal((await json(elsewhere)).code, "sso_state");
    assert.equal(otherBrowser.cookies.has("stepwise_session"), false);

    // The refusals spent nothing: the genuine callback in the browser that started still signs in.
    const browser2 = new Browser();
    browser2.cookies.set("stepwise_oidc_state", callback.searchParams.get("state")!);
    const landed = await browser2.get(callback.href);
    assert.equal(landed.status, 302, await landed.clone().text());
    assert.ok(browser2.cookies.has("stepwise_session"));
  });

  it("refuses a replayed callback (its state is used) and a replayed code (the provider refuses it), cleanly", async () => {
    const { user } = await member(unique("replay"));
    const browser = new Browser();
    const callback = new URL(await provider.signIn(await browser.start(test.url), user.email!));
    const state = browser.cookies.get("stepwise_oidc_state")!;
    assert.equal((await browser.get(callback.href)).status, 302);

    // The same redirect again, cookie and all: its state was taken by the first.
    const again = new Browser();
    again.cookies.set("stepwise_oidc_state", state);
    const replayed = await again.get(callback.href);
    assert.equal(replayed.status, 400);
    assert.equal((await json(replayed)).code, "sso_state");

    // The used code with a fresh sign-in's state: past our state check, refused by the provider.
    const fresh = new Browser();
    const freshState = new URL(await fresh.start(test.url)).searchParams.get("state")!;
    const spliced = new URL(callback);
    spliced.searchParams.set("state", freshState);
    const refused = await fresh.get(spliced.href);
    assert.equal(refused.status, 401);
    const body = await json(refused);
    assert.equal(body.code, "sso_code");
    assert.match(body.error, /authorization code/);
    assert.equal(fresh.cookies.has("stepwise_session"), false);
  });

  it("refuses an ID token minted for another client (audience)", async () => {
    const { user } = await member(unique("aud"));
    const browser = new Browser();
    const callback = await provider.signIn(await browser.start(test.url), user.email!);
    provider.audienceOverride = "another-client";
    try {
      const refused = await browser.get(callback);
      assert.equal(refused.status, 401);
      const body = await json(refused);
      assert.equal(body.code, "sso_token");
      assert.match(body.error, /'aud'/);
    } finally {
      provider.audienceOverride = undefined;
    }
    assert.equal(browser.cookies.has("stepwise_session"), false);
  });

  it("refuses an expired ID token", async () => {
    const { user } = await member(unique("late"));
    const browser = new Browser();
    const callback = await provider.signIn(await browser.start(test.url), user.email!);
    // The token lives 120 s (and 30 s of tolerance); the sign-in itself 10 minutes.
    clock.advance(5 * 60_000);
    try {
      const refused = await browser.get(callback);
      assert.equal(refused.status, 401);
      assert.equal((await json(refused)).code, "sso_token_expired");
    } finally {
      clock.advance(-5 * 60_000);
    }
  });

  it("refuses a sign-in past its 10 minutes", async () => {
    const { user } = await member(unique("slow"));
    const browser = new Browser();
    const callback = await provider.signIn(await browser.start(test.url), user.email!);
    clock.advance(10 * 60_000);
    try {
      const refused = await browser.get(callback);
      assert.equal(refused.status, 400);
      assert.equal((await json(refused)).code, "sso_state");
    } finally {
      clock.advance(-10 * 60_000);
    }
  });

  it("refuses an email the provider does not assert as verified", async () => {
    for (const emailVerified of [false, "true", undefined]) {
      const email = unique("unverified", "allowed.example");
      provider.addUser({ email, emailVerified });
      const browser = new Browser();
      const refused = await browser.get(await provider.signIn(await browser.start(test.url), email));
      assert.equal(refused.status, 401, String(emailVerified));
      assert.equal((await json(refused)).code, "sso_email_unverified");
      assert.equal(await test.server.store.getUserByEmail(email), undefined, "no user made");
    }
  });

  it("refuses a person who is no member and whose domain does not join, saying so", async () => {
    const email = unique("stranger", "elsewhere.example");
    provider.addUser({ email });
    const browser = new Browser();
    const refused = await browser.get(await provider.signIn(await browser.start(test.url), email));
    assert.equal(refused.status, 403);
    const body = await json(refused);
    assert.equal(body.code, "sso_not_member");
    assert.match(body.error, /not a member .* ask an admin/);
    assert.equal(await test.server.store.getUserByEmail(email), undefined, "no user made");
  });

  it("makes a person of an allowed domain a member with the default role, once", async () => {
    for (const domain of ["allowed.example", "LAB.allowed.example"]) {
      const email = unique("Newcomer", domain);
      provider.addUser({ email, name: "New Comer" });
      for (const round of [1, 2]) {
        const browser = new Browser();
        const landed = await browser.get(await provider.signIn(await browser.start(test.url), email));
        assert.equal(landed.status, 302, await landed.clone().text());
        const session = await json(await browser.get(`${test.url}/api/auth/session`));
        assert.equal(session.user.email, email.toLowerCase(), `round ${round}`);
        assert.equal(session.user.name, "New Comer");
        assert.equal(session.user.kind, "person");
        assert.equal(session.role, "member", "--oidc-default-role");
        assert.deepEqual(session.organizations, [{ slug: "default", role: "member" }]);
      }
    }
    const organization = (await test.server.store.getOrganizationBySlug("default"))!;
    const newcomers = (await test.server.store.listMembers(organization.id)).filter((m) => m.user.email?.startsWith("newcomer-"));
    assert.equal(newcomers.length, 2, "one user each, not one per sign-in");
    // The audit log: each joined once (member.add, by itself through SSO) and signed in twice.
    const entries = await test.server.store.listAuditEntries(organization.id, {
      actions: ["member.add", "sign_in"],
      actor: null,
      targetType: "user",
      targetId: newcomers[0]!.userId,
      since: null,
      until: null,
      beforeId: null,
      limit: 10,
    });
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.actorLabel, entry.details]),
      [
        ["sign_in", newcomers[0]!.user.email, '{"method":"sso"}'],
        ["sign_in", newcomers[0]!.user.email, '{"method":"sso"}'],
        ["member.add", newcomers[0]!.user.email, '{"role":"member","via":"sso"}'],
      ],
    );
  });

  it("keeps the role a member has rather than the default one", async () => {
    const email = unique("viewer", "allowed.example");
    await member(email, "viewer");
    const browser = new Browser();
    await browser.get(await provider.signIn(await browser.start(test.url), email));
    assert.equal((await json(await browser.get(`${test.url}/api/auth/session`))).role, "viewer");
  });

  it("refuses what the provider refused (access_denied), and sends a browser to the sign-in page with the reason", async () => {
    const browser = new Browser();
    const state = new URL(await browser.start(test.url)).searchParams.get("state")!;
    const denied = await browser.get(
      `${test.url}/api/auth/oidc/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(provider.issuer)}`,
    );
    assert.equal(denied.status, 401);
    assert.equal((await json(denied)).code, "sso_denied");

    const page = new Browser("text/html,application/xhtml+xml");
    const refused = await page.get(`${test.url}/api/auth/oidc/callback?code=x&state=not-started`);
    assert.equal(refused.status, 302);
    assert.equal(refused.headers.get("location"), "/signin?error=sso_state");
  });
});

describe("single sign-on when it is not configured", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--stale-after": "0" } });
  });
  after(async () => test?.close());

  it("says so, and its routes answer 404", async () => {
    assert.deepEqual(await json(await fetch(`${test.url}/api/auth/config`)), { password: true, oidc: false, apiKey: true });
    const start = await fetch(`${test.url}/api/auth/oidc/start`, { redirect: "manual" });
    assert.equal(start.status, 404);
    assert.equal((await json(start)).code, "sso_off");
    const callback = await fetch(`${test.url}/api/auth/oidc/callback?code=x&state=y`, { redirect: "manual" });
    assert.equal(callback.status, 404);
  });
});

describe("single sign-on with a provider that puts the email in the ID token", () => {
  let provider: TestOidcProvider;
  let test: TestServer;
  before(async () => {
    provider = await TestOidcProvider.start({ emailInIdToken: true });
    test = await startTestServer({
      flags: {
        "--stale-after": "0",
        "--oidc-issuer": provider.issuer,
        "--oidc-client-id": provider.clientId,
        "--oidc-client-secret": provider.clientSecret,
        "--oidc-allowed-domains": "allowed.example",
      },
    });
    provider.setRedirectUris([`${test.url}/api/auth/oidc/callback`]);
  });
  after(async () => {
    await test?.close();
    await provider?.close();
  });

  it("signs in from the ID token's claims, and still refuses an unverified email", async () => {
    provider.addUser({ email: "idtoken@allowed.example", name: "Id Token" });
    const browser = new Browser();
    const landed = await browser.get(await provider.signIn(await browser.start(test.url), "idtoken@allowed.example"));
    assert.equal(landed.status, 302, await landed.clone().text());
    const session = await json(await browser.get(`${test.url}/api/auth/session`));
    assert.equal(session.user.email, "idtoken@allowed.example");
    assert.equal(session.user.name, "Id Token");
    assert.equal(session.role, "viewer", "the default --oidc-default-role");

    provider.addUser({ email: "unverified@allowed.example", emailVerified: false });
    const other = new Browser();
    const refused = await other.get(await provider.signIn(await other.start(test.url), "unverified@allowed.example"));
    assert.equal(refused.status, 401);
    assert.equal((await json(refused)).code, "sso_email_unverified");
  });
});

describe("single sign-on behind HTTPS, and with the provider down", () => {
  let provider: TestOidcProvider;
  let test: TestServer;
  let down: TestServer;
  before(async () => {
    provider = await TestOidcProvider.start();
    const flags = { "--stale-after": "0", "--oidc-client-id": provider.clientId, "--oidc-client-secret": provider.clientSecret };
    test = await startTestServer({ flags: { ...flags, "--oidc-issuer": provider.issuer, "--public-url": "https://stepwise.example.com" } });
    // A provider that does not answer: the port of a server that was closed.
    const gone = await TestOidcProvider.start();
    await gone.close();
    down = await startTestServer({ flags: { ...flags, "--oidc-issuer": gone.issuer } });
  });
  after(async () => {
    await test?.close();
    await down?.close();
    await provider?.close();
  });

  it("sends the public URL's redirect URI and a Secure state cookie when served over HTTPS", async () => {
    const browser = new Browser();
    const authorization = new URL(await browser.start(test.url));
    assert.equal(authorization.searchParams.get("redirect_uri"), "https://stepwise.example.com/api/auth/oidc/callback");
    assert.match(browser.setCookies.find((line) => line.startsWith("stepwise_oidc_state="))!, /;\s*Secure/i);
  });

  it("answers 503 (a browser: the sign-in page) when the provider cannot be reached, never a 500", async () => {
    const api = await fetch(`${down.url}/api/auth/oidc/start`, { redirect: "manual" });
    assert.equal(api.status, 503);
    assert.equal((await json(api)).code, "sso_unavailable");
    const page = await new Browser("text/html").get(`${down.url}/api/auth/oidc/start`);
    assert.equal(page.status, 302);
    assert.equal(page.headers.get("location"), "/signin?error=sso_unavailable");
    assert.deepEqual(await json(await fetch(`${down.url}/api/auth/config`)), { password: true, oidc: true, apiKey: false });
  });
});

/**
 * Two server processes on one store behind one public URL: the sign-in starts at one and comes back
 * to the other (the pending sign-in is in the store, not in a process), and the session works on both.
 */
describe("single sign-on across processes on one store", () => {
  let provider: TestOidcProvider;
  let location: TestStoreLocation;
  let processes: ServerProcess[] = [];
  const PUBLIC_URL = "http://stepwise.test";
  before(async () => {
    provider = await TestOidcProvider.start();
    provider.setRedirectUris([`${PUBLIC_URL}/api/auth/oidc/callback`]);
    location = await makeTestStoreLocation();
    const args = [
      ...location.args,
      "--stale-after",
      "0",
      "--public-url",
      PUBLIC_URL,
      "--oidc-issuer",
      provider.issuer,
      "--oidc-client-id",
      provider.clientId,
      "--oidc-allowed-domains",
      "allowed.example",
    ];
    // The secret from the environment, as a deployment would keep it out of the command line.
    const env = { STEPWISE_OIDC_CLIENT_SECRET: provider.clientSecret };
    // The first creates the store (and organization default); then the second joins it.
    processes.push(await spawnServer(location.dataDir, args, env));
    processes.push(await spawnServer(location.dataDir, args, env));
  });
  after(async () => {
    for (const p of processes) p.child.kill("SIGTERM");
    await Promise.all(processes.map((p) => p.exited));
    processes = [];
    await provider?.close();
    await location?.remove();
  });

  it("starts at process A, finishes at process B, and the session reads at both", { timeout: 60_000 }, async () => {
    const [a, b] = processes as [ServerProcess, ServerProcess];
    const email = `multi-${Math.random().toString(36).slice(2, 8)}@allowed.example`;
    provider.addUser({ email });
    const browser = new Browser();
    const authorization = await browser.start(a.url, "/models");
    const callback = new URL(await provider.signIn(authorization, email));
    assert.equal(callback.origin, PUBLIC_URL);
    const atB = await browser.get(`${b.url}${callback.pathname}${callback.search}`);
    assert.equal(atB.status, 302, await atB.clone().text());
    assert.equal(atB.headers.get("location"), "/models");
    for (const server of [a, b]) {
      const session = await browser.get(`${server.url}/api/auth/session`);
      assert.equal(session.status, 200);
      assert.equal((await json(session)).user.email, email);
    }
    // The same callback at A now: the state was taken at B.
    const replay = new Browser();
    replay.cookies.set("stepwise_oidc_state", callback.searchParams.get("state")!);
    const refused = await replay.get(`${a.url}${callback.pathname}${callback.search}`);
    assert.equal(refused.status, 400);
  });
});
