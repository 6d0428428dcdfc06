/**
 * My API keys end to end in headless Chromium against a real server (docs/api.md, "API keys"): a
 * person signed in with a session cookie (no key in the browser) opens the page from the top bar,
 * makes a read-only key (shown once; it reads and may not write), sees it listed, and revokes it
 * (after a confirm), when it stops working at once. Screenshots go to test-output/ui-screenshots/ (90-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));

describe("my API keys in the UI, signed in with a session", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let userId: string;
  let key: string;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    const org = await makeOrg(test);
    const store = test.server.store;
    const orgId = org.organization.id;
    const user = await store.createUser({ orgId, email: "ada@keys-ui.example", name: "Ada", kind: "person" }, Date.now());
    userId = user.id;
    await store.setMembership(orgId, user.id, "member", Date.now());
    const session = await test.server.services.sessions.start({ userId, orgId, sourceIp: null, userAgent: null });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: "stepwise_session", value: session.token, url: test.url, httpOnly: true, sameSite: "Lax" }]);
    page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("opens from the top bar with the session alone, and lists no keys yet", async () => {
    await page.goto(new URL("/projects", test.url).toString());
    await page.getByRole("link", { name: "API keys" }).click();
    await page.locator("[data-testid=keys]").waitFor();
    assert.equal(new URL(page.url()).pathname, "/keys");
    await page.getByText("You have no API keys yet.").waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem("stepwise.apiKey")), null, "no key in the browser: the cookie signs in");
  });

  it("makes a read-only key, shown once, that reads and may not write", async () => {
    await page.getByLabel("Name").fill("notebook");
    await page.getByLabel("Role").selectOption("viewer");
    await page.getByLabel("Expires").selectOption("30d");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.locator("[data-testid=created-key-value]");
    await shown.waitFor();
    key = await shown.inputValue();
    assert.match(key, /^sw_[A-Za-z0-9_-]{43}$/);
    await page.locator("[data-testid=key-row]").first().waitFor();
    assert.equal(await page.locator("[data-testid=key-row]").count(), 1);
    assert.match(await page.locator("[data-testid=key-row]").first().innerText(), /notebook[\s\S]*viewer[\s\S]*active/);
    await shot("90-keys-created");

    const client = new ApiClient(test.url, key);
    const validate = await client.get("/api/runs/auth/validate");
    assert.equal(validate.body.user.id, userId, "the key is the person's own");
    assert.equal(validate.body.role, "viewer");
    assert.equal((await client.post("/api/runs/create", { projectName: "p", runName: "r" })).status, 403);

    await page.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await page.locator("[data-testid=key-row]").first().waitFor();
    assert.equal(await page.locator("[data-testid=created-key]").count(), 0, "shown only once");
    assert.ok(!(await page.content()).includes(key), "the key is never listed again");
  });

  it("revokes a key after a confirm, and it stops working at once", async () => {
    const row = page.locator("[data-testid=key-row]").first();
    const keyId = await row.getAttribute("data-key-id");
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await row.getByRole("button", { name: "Revoke" }).click();
    await page.waitForFunction(() => document.querySelector("[data-testid=key-state]")?.textContent === "revoked");
    assert.match(asked, /Revoke the key 'notebook'\?/);
    const listed = (await test.server.store.listApiKeys((await test.server.store.getUser(userId))!.orgId)).find((k) => k.id === keyId);
    assert.ok(listed?.revokedAt, "the server revoked it");
    const refused = await new ApiClient(test.url, key).get("/api/runs/projects");
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body, { error: "API key has been revoked" });
    await shot("91-keys-revoked");
    assert.deepEqual(errors, []);
  });

  it("signs out: the session ends on the server, and the page asks to sign in again", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#api-key").waitFor();
    await page.reload();
    await page.locator("#api-key").waitFor();
    assert.equal(await page.locator("[data-testid=keys]").count(), 0, "the cookie no longer signs in");
    assert.deepEqual(errors, []);
  });
});
