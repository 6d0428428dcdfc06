/**
 * Deletion end to end in headless Chromium against a real server (docs/api.md, "Deletion and
 * retention"): two runs ticked in the runs table are deleted with the bulk action after a confirm
 * (dismissing it deletes nothing), leave the table, and show in the project's trash with their purge
 * date; one is restored by the trash's bulk Restore and is back in the table. A run is deleted from
 * its own page, a project from the projects page, and the organization's trash lists the project
 * and restores it. Screenshots go to test-output/ui-screenshots/ (80-…).
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
const PROJECT = "trash-e2e";
const DAY_MS = 86_400_000;

describe("delete, trash and restore in the UI", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  const ids: number[] = [];
  const errors: string[] = [];

  const rowIds = () =>
    page
      .locator("[data-testid=runs-table] tr[data-run-id]")
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute("data-run-id"))));
  const tick = (runId: number) => page.locator(`[data-testid=runs-table] tr[data-run-id='${runId}'] input[type=checkbox]`).check();
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    for (let r = 0; r < 4; r++) ids.push((await client.createRun({ projectName: PROJECT, runName: `run-${r}` })).runId);
    await client.createRun({ projectName: "doomed", runName: "only" });
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

  it("deletes ticked runs after a confirm, and a dismissed confirm deletes nothing", async () => {
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.locator("[data-testid=runs-table] tr[data-run-id]").first().waitFor();
    await tick(ids[0]!);
    await tick(ids[1]!);
    page.once("dialog", (dialog) => void dialog.dismiss());
    await page.locator("[data-testid=delete-selected]").click();
    await page.waitForTimeout(300);
    assert.equal((await rowIds()).length, 4, "dismissed: nothing deleted");
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.locator("[data-testid=delete-selected]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tr[data-run-id]").length === 2);
    assert.match(asked, /Delete 2 runs\?/);
    assert.deepEqual((await rowIds()).sort(), [ids[2]!, ids[3]!].sort());
    assert.equal((await client.get(`/api/runs/details/${ids[0]}`)).status, 404, "the server deleted it");
    await shot("80-runs-after-delete");
  });

  it("lists the deleted runs in the project's trash with their purge date, and restores one", async () => {
    await page.getByRole("link", { name: "Trash" }).first().click();
    await page.locator("[data-testid=trash-run]").nth(1).waitFor();
    assert.equal(await page.locator("[data-testid=trash-run]").count(), 2);
    const purge = await page.locator("[data-testid=purge-date]").first().textContent();
    const expected = new Date(Date.now() + 30 * DAY_MS).toLocaleDateString("en-CA");
    assert.equal(purge, expected, "purged 30 days after the delete (--deleted-retention)");
    await shot("81-trash");
    await page.locator("[data-testid=trash-run]", { hasText: "run-0" }).locator("input[type=checkbox]").check();
    await page.locator("[data-testid=restore-selected]").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=trash-run]").length === 1);
    assert.equal((await client.get(`/api/runs/details/${ids[0]}`)).status, 200, "restored");
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tr[data-run-id]").length === 3);
  });

  it("deletes a run from its page, and a project from the projects page; the trash restores the project", async () => {
    await page.goto(new URL(`/projects/${PROJECT}/runs/${ids[2]}`, test.url).toString());
    page.once("dialog", (dialog) => void dialog.accept());
    await page.locator("[data-testid=delete-run]").click();
    await page.waitForURL((url) => url.pathname === `/projects/${PROJECT}`);
    assert.equal((await client.get(`/api/runs/details/${ids[2]}`)).status, 404);

    await page.goto(new URL("/projects", test.url).toString());
    await page.getByRole("button", { name: "Delete project doomed" }).waitFor();
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete project doomed" }).click();
    await page.waitForFunction(() => !document.querySelector("[data-testid=projects-table]")?.textContent?.includes("doomed"));
    await page.goto(new URL("/trash", test.url).toString());
    const projects = page.locator("[data-testid=trash-projects]");
    await projects.waitFor();
    assert.match((await projects.textContent()) ?? "", /doomed/);
    await shot("82-trash-organization");
    await projects.getByRole("button", { name: "Restore" }).click();
    await page.locator("[data-testid=trash-projects]").waitFor({ state: "detached" });
    assert.ok((await client.get("/api/runs/projects")).body.projects.some((p: { name: string }) => p.name === "doomed"));
    assert.deepEqual(errors, []);
  });
});
