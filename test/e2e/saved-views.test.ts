/**
 * Saved views end to end in headless Chromium against a real server (docs/api.md, "Saved views"):
 * a layout set up on the project page (a panel moved, a panel added, a panel's option, a run hidden,
 * a column added, the table sorted) is saved under a name, and its link opened in a fresh browser
 * context (no localStorage but the API key) shows the same panels in the same order, the same
 * columns and hidden runs and the same query; a second save under the same name is refused; the
 * view is updated, renamed and deleted from the list. The run page's and compare's chart settings (x axis,
 * smoothing, log scale) survive a copied URL in a fresh context. Screenshots go to
 * test-output/ui-screenshots/ (70-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "views";
const RUNS = 4;

describe("saved views and chart settings in links", () => {
  let test: TestServer;
  let browser: Browser;
  let client: ApiClient;
  let key: string;
  const ids: number[] = [];
  const errors: string[] = [];
  const contexts: BrowserContext[] = [];

  /** A new browser context with nothing stored but the API key (a colleague signed in on another machine). */
  async function freshPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), key);
    assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), ["stepwise.apiKey"], "a fresh context stores nothing else");
    return page;
  }
  const panel = (page: Page, id: string) => page.locator(`[data-testid=workspace] .ws-panel[data-panel='${id}']`);
  const sectionOrder = (page: Page, section: string) =>
    page
      .locator(`[data-testid=workspace] details[data-section='${section}'] .ws-panel`)
      .evaluateAll((list) => list.map((p) => p.getAttribute("data-panel")));
  const allPanels = (page: Page) =>
    page.locator("[data-testid=workspace] .ws-panel").evaluateAll((list) => list.map((p) => p.getAttribute("data-panel")));
  const columnHeaders = (page: Page) =>
    page.locator("[data-testid=runs-table] th[data-column]").evaluateAll((list) => list.map((th) => th.getAttribute("data-column")));
  const eye = (page: Page, runId: number) => page.locator(`[data-testid=runs-table] tr[data-run-id='${runId}'] [data-testid=run-eye]`);
  const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    key = org.key;
    for (let r = 0; r < RUNS; r++) {
      const run = await client.createRun({ projectName: PROJECT, runName: `run-${r}`, config: JSON.stringify({ lr: 0.1 / (r + 1) }) });
      ids.push(run.runId);
      const lines = Array.from({ length: 50 }, (_, step) => ({
        step,
        data: {
          "train/loss": (1 + r) * Math.exp(-step / 20),
          "train/acc": 1 - Math.exp(-step / 15),
          "val/loss": (1.1 + r) * Math.exp(-step / 25),
        },
      }));
      assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
      await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    }
    browser = await launchBrowser();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await test?.close();
  });

  let link = "";
  let expected: { panels: (string | null)[]; train: (string | null)[]; columns: (string | null)[] };
  const hiddenRun = () => ids[1]!;

  it("saves the page's layout, panels, hidden runs, columns and query as a named view, and refuses the name twice", async () => {
    const page = await freshPage();
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await panel(page, "train/loss").locator(".chart-canvas[data-drawn=true]").waitFor();
    assert.deepEqual(await sectionOrder(page, "train"), ["train/acc", "train/loss"], "alphabetical before the move");

    await panel(page, "train/acc").scrollIntoViewIfNeeded();
    await panel(page, "train/acc").getByLabel("Move panel later").click();
    assert.deepEqual(await sectionOrder(page, "train"), ["train/loss", "train/acc"]);
    await panel(page, "val/loss").scrollIntoViewIfNeeded();
    await panel(page, "val/loss").locator("label[title='log scale'] input").check();

    await page.getByTestId("add-panel").click();
    await page.getByTestId("add-panel-metrics").getByLabel("train/acc").check();
    await page.getByTestId("add-panel-metrics").getByLabel("val/loss").check();
    await page.getByTestId("add-panel-confirm").click();
    await panel(page, "custom:1").waitFor();

    await eye(page, hiddenRun()).click();
    await page.getByTestId("workspace-count").filter({ hasText: "1 hidden" }).waitFor();

    // lr differs between the runs, so the default columns show it: choosing columns starts from
    // them; ticked off and on again, lr moves to the end of the chosen columns.
    await page.locator("th[data-column='config.lr']").waitFor();
    await page.getByText("Columns").click();
    const lr = page.locator("[data-testid=column-choices] label", { hasText: /Config\s+lr$/ }).locator("input");
    await lr.uncheck();
    await page.locator("th[data-column='config.lr']").waitFor({ state: "detached" });
    await lr.check();
    await page.locator("th[data-column='config.lr']").waitFor();
    await page.locator("th[data-column='name'] button").click(); // sorted by name: the query is part of the view
    await page.waitForFunction(() => new URLSearchParams(location.search).get("sort") === "name");

    expected = { panels: await allPanels(page), train: await sectionOrder(page, "train"), columns: await columnHeaders(page) };
    assert.equal(expected.panels[0], "custom:1", "the added panel first");
    assert.ok(expected.columns.includes("config.lr"));

    await page.getByTestId("saved-views").locator("summary").click();
    await page.getByTestId("view-name").fill("Loss review");
    await page.getByTestId("save-view").click();
    await page.getByTestId("current-view").filter({ hasText: "Loss review" }).waitFor();
    link = await page.getByTestId("view-link").inputValue();
    assert.match(link, new RegExp(`^${test.url}/projects/${PROJECT}\\?view=\\d+$`));
    await page.locator("[data-testid=view-list] li", { hasText: "Loss review" }).waitFor();

    // What the server keeps is the page's state (the UI's own JSON, read back whole).
    const viewId = Number(new URL(link).searchParams.get("view"));
    const stored = (await client.get(`/api/runs/views/${viewId}`)).body.state;
    assert.deepEqual(stored.hiddenRuns, [hiddenRun()]);
    assert.deepEqual(
      (stored.columns as { source: string; key: string }[]).map((column) => `${column.source}.${column.key}`),
      expected.columns.slice(6), // after status, name, ID, tags, created, duration
    );
    assert.deepEqual(stored.columns.at(-1), { source: "config", key: "lr" });
    assert.deepEqual(stored.layout.order, ["train/loss", "train/acc"]);
    assert.deepEqual(stored.layout.custom, [{ id: "custom:1", logNames: ["train/acc", "val/loss"] }]);
    assert.equal(stored.query.sort, "name");
    assert.deepEqual(stored.grouping, { keys: [], line: "mean", band: "minmax" }, "ungrouped");

    await page.getByTestId("view-name").fill("Loss review");
    await page.getByTestId("save-view").click();
    await page.getByRole("alert").filter({ hasText: "already has a view named 'Loss review'" }).waitFor();
    await shot(page, "70-saved-view-saved");
  });

  it("opens the view's link in a fresh browser context with the same panels in the same order, columns, hidden runs and query", async () => {
    const page = await freshPage();
    await page.goto(link);
    await page.getByTestId("current-view").filter({ hasText: "Loss review" }).waitFor();
    await page.waitForFunction(() => !new URLSearchParams(location.search).has("view"), undefined, { timeout: 10_000 });
    assert.equal(new URL(page.url()).searchParams.get("sort"), "name", "the view's query is in the URL");
    await panel(page, "custom:1").locator(".chart-canvas[data-drawn=true]").waitFor();
    await page.locator("th[data-column='config.lr']").waitFor();
    assert.deepEqual(await allPanels(page), expected.panels);
    assert.deepEqual(await sectionOrder(page, "train"), expected.train);
    assert.deepEqual(await columnHeaders(page), expected.columns);
    assert.equal(await eye(page, hiddenRun()).getAttribute("aria-pressed"), "true");
    assert.match(await page.getByTestId("workspace-count").innerText(), /\(1 hidden/);
    const drawnRuns = (await panel(page, "train/loss").getAttribute("data-runs"))!.split(",").map(Number);
    assert.ok(!drawnRuns.includes(hiddenRun()) && drawnRuns.length === RUNS - 1, `the hidden run is left out (${drawnRuns})`);
    await panel(page, "val/loss").scrollIntoViewIfNeeded();
    assert.ok(await panel(page, "val/loss").locator("label[title='log scale'] input").isChecked(), "a panel's options come with the view");
    // The names of the runs in the table's order: sorted by name.
    const names = await page.locator("[data-testid=runs-table] tbody .run-name").allInnerTexts();
    assert.deepEqual(names, [...names].sort());
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByTestId("saved-views").locator("summary").click();
    await page.locator("[data-testid=view-list] li").first().waitFor();
    await shot(page, "71-saved-view-opened-fresh");

    // Updated from this browser: another run hidden too, saved into the same view.
    await page.getByTestId("saved-views").locator("summary").click(); // closed: the panel covers the table's first rows
    await eye(page, ids[2]!).click();
    await page.getByTestId("saved-views").locator("summary").click();
    await page.getByTestId("update-view").click();
    const viewId = Number(new URL(link).searchParams.get("view"));
    const deadline = Date.now() + 10_000;
    let hidden: number[] = [];
    while (Date.now() < deadline) {
      hidden = (await client.get(`/api/runs/views/${viewId}`)).body.state.hiddenRuns;
      if (hidden.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(
      [...hidden].sort((a, b) => a - b),
      [hiddenRun(), ids[2]!].sort((a, b) => a - b),
    );

    // Renamed: the page and the list say the new name.
    await page.getByTestId("rename-view").fill("Loss review v2");
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByTestId("current-view").filter({ hasText: "Loss review v2" }).waitFor();
    await page.locator("[data-testid=view-list] li", { hasText: "Loss review v2" }).waitFor();
    assert.equal((await client.get(`/api/runs/views/${viewId}`)).body.name, "Loss review v2");

    await page.getByLabel("Delete view Loss review v2").click();
    await page.getByText("No saved views in this project yet.").waitFor();
    assert.equal((await client.get(`/api/runs/views/${viewId}`)).status, 404);
    const gone = await freshPage();
    await gone.goto(link);
    await gone
      .getByRole("alert")
      .filter({ hasText: `View ${viewId} could not be opened: view ${viewId} not found` })
      .waitFor();
  });

  it("keeps the run page's chart settings in its URL: a copied link opens with the same x axis, smoothing and log scale", async () => {
    const page = await freshPage();
    await page.goto(new URL(`/projects/${PROJECT}/runs/${ids[0]}`, test.url).toString());
    await page.locator(".chart-canvas[data-drawn=true]").first().waitFor();
    assert.equal(new URL(page.url()).searchParams.get("x"), "step", "the URL says the settings it opened with");
    await page.getByLabel("X axis").selectOption("time");
    await page.getByLabel("log scale").first().check();
    await page
      .locator("input[type=range]")
      .first()
      .evaluate((input: HTMLInputElement) => {
        input.value = "0.6";
        input.dispatchEvent(new Event("input", { bubbles: true }));
      });
    await page.waitForFunction(() => {
      const query = new URLSearchParams(location.search);
      return query.get("x") === "time" && query.get("smoothing") === "0.6" && query.get("log") === "1";
    });
    const copied = page.url();

    const fresh = await freshPage();
    await fresh.goto(copied);
    await fresh.locator(".chart-canvas[data-drawn=true]").first().waitFor();
    assert.equal(await fresh.getByLabel("X axis").inputValue(), "time");
    assert.ok(await fresh.getByLabel("log scale").first().isChecked());
    assert.equal(await fresh.locator("input[type=range]").first().inputValue(), "0.6");
    assert.match(await fresh.locator("label", { hasText: "Smoothing" }).first().innerText(), /Smoothing 0\.60/);
    await shot(fresh, "72-run-chart-settings-from-link");

    // Compare too: its link carries the same settings.
    const compare = await freshPage();
    await compare.goto(new URL(`/projects/${PROJECT}/compare?runIds=${ids.join(",")}&x=time&smoothing=0.8&log=1`, test.url).toString());
    await compare.locator(".chart-canvas[data-drawn=true]").first().waitFor();
    assert.equal(await compare.getByLabel("X axis").inputValue(), "time");
    assert.ok(await compare.getByLabel("log scale").first().isChecked());
    assert.equal(await compare.locator("input[type=range]").first().inputValue(), "0.8");
    assert.deepEqual(errors, [], "no page errors");
  });
});
