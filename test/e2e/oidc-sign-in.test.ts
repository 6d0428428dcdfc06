/**
 * Single sign-on end to end in headless Chromium (docs/api.md, "Single sign-on"): the sign-in page
 * shows "Sign in with SSO" when the server has it on; clicking it goes to a real OpenID Connect
 * provider (oidc-provider on a local port), whose login page the browser fills in, and comes back to
 * the page that asked, signed in with a session cookie (HttpOnly, SameSite=Lax); "Sign out" ends the
 * session on the server. A person the server refuses lands on the sign-in page, which says why.
 * Screenshots go to test-output/ui-screenshots/ (90-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { TestOidcProvider } from "../helpers/oidc-provider.js";
import { startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "sso-e2e";

describe("single sign-on in the browser", () => {
  let provider: TestOidcProvider;
  let test: TestServer;
  let browser: Browser;
  const errors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    provider = await TestOidcProvider.start();
    test = await startTestServer({
      flags: {
        "--stale-after": "0",
        "--oidc-issuer": provider.issuer,
        "--oidc-client-id": provider.clientId,
        "--oidc-client-secret": provider.clientSecret,
      },
    });
    provider.setRedirectUris([`${test.url}/api/auth/oidc/callback`]);
    const store = test.server.store;
    const organization = (await store.getOrganizationBySlug("default"))!;
    const ada = await store.createUser({ orgId: organization.id, email: "ada@example.com", name: "Ada", kind: "person" }, Date.now());
    await store.setMembership(organization.id, ada.id, "member", Date.now());
    provider.addUser({ email: "ada@example.com", name: "Ada" });
    provider.addUser({ email: "eve@elsewhere.example", name: "Eve" });
    await test.client.createRun({ projectName: PROJECT, runName: "first" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
    await provider?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    return page;
  }

  /** On the provider's login page: its development form takes any password. */
  async function logInAtProvider(page: Page, email: string) {
    await page.waitForURL((url) => url.href.startsWith(provider.issuer));
    await page.locator("input[name=login]").fill(email);
    await page.locator("input[name=password]").fill("any password");
    await page.locator("button[type=submit]").click();
  }

  it("signs in with SSO, lands on the page that asked, and signs out on the server", async () => {
    const page = await newPage();
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    const sso = page.getByRole("link", { name: "Sign in with SSO" });
    await sso.waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}90-sso-sign-in.png` });
    await sso.click();
    await logInAtProvider(page, "ada@example.com");

    await page.waitForURL(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.locator("[data-testid=runs-table] tr[data-run-id]").first().waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}91-sso-signed-in.png` });
    const cookies = await page.context().cookies(test.url);
    const session = cookies.find((cookie) => cookie.name === "stepwise_session");
    assert.ok(session, "a session cookie");
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    assert.equal(
      cookies.some((cookie) => cookie.name === "stepwise_oidc_state"),
      false,
      "the sign-in's state cookie is gone",
    );
    assert.equal(await page.evaluate(() => document.cookie.includes("stepwise_session")), false, "scripts cannot read it");
    const who = await page.evaluate(async () => (await fetch("/api/auth/session")).json());
    assert.equal(who.user.email, "ada@example.com");
    assert.equal(who.role, "member");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("link", { name: "Sign in with SSO" }).waitFor();
    assert.equal(await page.evaluate(async () => (await fetch("/api/auth/session")).status), 401, "the browser is signed out");
    // The old cookie, sent again by another client, no longer signs anyone in: the session ended on the server.
    const replayed = await fetch(`${test.url}/api/auth/session`, { headers: { cookie: `stepwise_session=${session.value}` } });
    assert.equal(replayed.status, 401);
  });

  it("brings a refused person back to the sign-in page, which says why", async () => {
    const page = await newPage();
    await page.goto(new URL("/projects", test.url).toString());
    await page.getByRole("link", { name: "Sign in with SSO" }).click();
    await logInAtProvider(page, "eve@elsewhere.example");
    await page.waitForURL((url) => url.pathname === "/signin");
    const refused = page.locator("[data-testid=sso-refused]");
    await refused.waitFor();
    assert.match((await refused.textContent())!, /not a member of an organization here/);
    assert.equal(new URL(page.url()).searchParams.get("error"), "sso_not_member");
    await page.screenshot({ path: `${SCREENSHOTS}92-sso-refused.png` });
    assert.deepEqual(errors, []);
  });
});
