/**
 * People end to end in headless Chromium against a real server (README, "Teams and sign-in"): an
 * owner signed in with the API key (a single-user install) invites a person on the Members page,
 * which shows the link once; the person opens it, sets a password and is signed in by a session
 * cookie; the writes of the session carry its CSRF token; sign-out ends it, and the sign-in page
 * then offers email and password only (someone has a password now), which sign in again. The
 * owner changes the person's role and removes it on the Members page. Screenshots: 90-….
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PASSWORD = "a long enough password";

describe("invitation, password sign-in and members in the UI", () => {
  let test: TestServer;
  let browser: Browser;
  let owner: Page;
  let person: BrowserContext;
  let key: string;
  let link: string;
  const errors: string[] = [];
  const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test, "people-e2e");
    key = org.key;
    browser = await launchBrowser();
    owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    owner.on("pageerror", (error) => errors.push(error.message));
    person = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("the owner signs in with the API key and invites a person on the Members page, which shows the link once", async () => {
    await owner.goto(new URL("/members", test.url).toString());
    await owner.getByLabel("API key").fill(key);
    await owner.getByRole("button", { name: "Sign in" }).click();
    await owner.getByRole("heading", { name: /Members/ }).waitFor();
    const form = owner.getByTestId("invite-form");
    await form.getByLabel("Email").fill("grace@example.com");
    await form.getByLabel("Name").fill("Grace");
    await form.getByRole("button", { name: "Invite" }).click();
    const shown = owner.getByLabel("Invitation link");
    await shown.waitFor();
    link = await shown.inputValue();
    assert.match(link, new RegExp(`^${test.url}/invite/[A-Za-z0-9_-]{43}$`));
    await owner.locator("[data-testid=members-table] tr", { hasText: "grace@example.com" }).waitFor();
    await shot(owner, "90-members-invited");
  });

  it("the person opens the link, sets a password and is signed in by a session", async () => {
    const page = await person.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(link);
    await page.getByText("Welcome to people-e2e, grace@example.com").waitFor();
    await shot(page, "91-invitation");
    await page.getByLabel(/^Password \(at least 10/).fill(PASSWORD);
    await page.getByLabel("Password again").fill(PASSWORD);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/projects");
    const cookies = await person.cookies();
    const sessionCookie = cookies.find((cookie) => cookie.name === "stepwise_session");
    assert.ok(sessionCookie?.httpOnly, "an HttpOnly session cookie");
    assert.equal(await page.evaluate(() => localStorage.getItem("stepwise.apiKey")), null, "no key in the browser");
    // The cookie goes with the page's own requests; a write without the session's CSRF token is refused.
    assert.equal(await page.evaluate(async () => (await fetch("/api/runs/projects")).status), 200);
    assert.equal(await page.evaluate(async () => (await fetch("/api/members", { method: "POST", body: "{}" })).status), 403);
    await page.reload();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await page.close();
  });

  it("sign-out ends the session; the sign-in page then asks for email and password, which sign in again", async () => {
    const page = await person.newPage();
    await page.goto(new URL("/projects", test.url).toString());
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Email").waitFor();
    assert.equal(await page.getByLabel("API key").count(), 0, "a password exists: no API-key sign-in");
    await page.getByLabel("Email").fill("grace@example.com");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("wrong email or password").waitFor();
    await shot(page, "92-sign-in-wrong");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    // Members: a member sees them but manages nothing.
    await page.getByRole("link", { name: "Members" }).click();
    await page.locator("[data-testid=members-table] tr", { hasText: "grace@example.com" }).waitFor();
    assert.equal(await page.getByTestId("invite-form").count(), 0);
    await page.close();
  });

  it("the owner makes the person admin, who then invites from the UI; the owner removes the person, whose session ends", async () => {
    await owner.reload();
    const row = owner.locator("[data-testid=members-table] tr", { hasText: "grace@example.com" });
    await row.getByLabel("Role of grace@example.com").selectOption("admin");
    await owner.waitForFunction(
      async () => {
        const members = await (
          await fetch("/api/members", { headers: { authorization: `Bearer ${localStorage.getItem("stepwise.apiKey")}` } })
        ).json();
        return members.members.some(
          (m: { user: { email: string }; role: string }) => m.user.email === "grace@example.com" && m.role === "admin",
        );
      },
      undefined,
      { polling: 200 },
    );
    // Now an admin, the person invites someone from the UI: a write of the session, with its CSRF token.
    const page = await person.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/members", test.url).toString());
    const form = page.getByTestId("invite-form");
    await form.getByLabel("Email").fill("linus@example.com");
    await form.getByRole("button", { name: "Invite" }).click();
    await page.getByLabel("Invitation link").waitFor();
    assert.equal(await form.getByRole("option", { name: "owner" }).count(), 0, "an admin cannot grant owner");

    owner.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Remove" }).click();
    await row.waitFor({ state: "detached" });
    await shot(owner, "93-members-removed");
    await page.goto(new URL("/projects", test.url).toString());
    await page.getByLabel("Email").waitFor();
    await page.close();
    assert.deepEqual(errors, [], "no uncaught errors in the pages");
  });
});
