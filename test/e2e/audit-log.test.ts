/**
 * The audit log end to end in headless Chromium against a real server (docs/api.md, "Audit log"): a
 * run deleted in the runs table shows in the audit log with its actor, target and source address;
 * older entries come with "Load more"; the action, actor and time filters narrow the list (and are
 * in the URL). Screenshots go to test-output/ui-screenshots/ (96-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "audit-e2e";

describe("the audit log in the UI", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  let target: { runId: number; displayId: string };
  const errors: string[] = [];
  const entries = () => page.locator("[data-testid=audit-entry]");
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    // 55 older entries (more than a page of 50), made over the API before the run the UI deletes.
    const older = [];
    for (let r = 0; r < 55; r++) older.push((await client.createRun({ projectName: "bulk", runName: `bulk-${r}` })).runId);
    assert.equal((await client.post("/api/runs/delete", { runIds: older })).status, 200);
    target = await client.createRun({ projectName: PROJECT, runName: "doomed" });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), org.key);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("shows a run deleted in the UI with its actor, target and source address", async () => {
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.locator(`[data-testid=runs-table] tr[data-run-id='${target.runId}'] input[type=checkbox]`).check();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.locator("[data-testid=delete-selected]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tr[data-run-id]").length === 0);

    await page.getByRole("link", { name: "Audit log" }).click();
    await entries().first().waitFor();
    const first = entries().first();
    assert.equal(await first.locator("[data-testid=audit-entry-action]").textContent(), "runs.delete");
    assert.equal(await first.locator("[data-testid=audit-entry-actor]").textContent(), "admin", "who deleted it");
    const targetText = (await first.locator("[data-testid=audit-entry-target]").textContent()) ?? "";
    assert.match(targetText, new RegExp(`run ${target.displayId} doomed`));
    assert.match((await first.textContent()) ?? "", /127\.0\.0\.1/);
    assert.equal(await entries().count(), 50, "a page of 50");
    await shot("96-audit-log");
  });

  it("loads older entries with Load more, and says when there are none left", async () => {
    await page.locator("[data-testid=audit-more]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=audit-entry]").length === 56);
    assert.equal(await page.locator("[data-testid=audit-more]").count(), 0, "the last page offers no more");
    const ids = await entries().evaluateAll((rows) => rows.map((row) => row.textContent));
    assert.equal(new Set(ids).size, 56, "no entry twice");
  });

  it("filters by action, actor and time range, with the filters in the URL", async () => {
    await client.post("/api/runs/restore", { runIds: [target.runId] });
    await page.locator("[data-testid=audit-action]").selectOption("runs.restore");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=audit-entry]").length === 1);
    assert.equal(await entries().first().locator("[data-testid=audit-entry-action]").textContent(), "runs.restore");
    assert.match(page.url(), /action=runs\.restore/);

    await page.locator("[data-testid=audit-action]").selectOption("runs.");
    await page.locator("[data-testid=audit-actor]").fill("someone-else@example.com");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No entries match these filters.").waitFor();

    await page.locator("[data-testid=audit-actor]").fill("admin");
    const inAnHour = new Date(Date.now() + 3_600_000);
    const pad = (n: number) => String(n).padStart(2, "0");
    const local = `${inAnHour.getFullYear()}-${pad(inAnHour.getMonth() + 1)}-${pad(inAnHour.getDate())}T${pad(inAnHour.getHours())}:${pad(inAnHour.getMinutes())}`;
    await page.locator("[data-testid=audit-since]").fill(local);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No entries match these filters.").waitFor();
    await page.locator("[data-testid=audit-since]").fill("");
    await page.locator("[data-testid=audit-until]").fill(local);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=audit-entry]").length === 50);

    await page.goBack();
    await page.getByText("No entries match these filters.").waitFor();
    await page.getByRole("button", { name: "Clear" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=audit-entry]").length === 50);
    assert.ok(!page.url().includes("?"), "no filters left");
    assert.equal(await page.locator("[data-testid=audit-more]").count(), 1, "from the first page again");
    assert.deepEqual(errors, []);
  });
});
