/**
 * Grouping a sweep's runs end to end in headless Chromium against a real server (issue 23, item 2):
 * "Group by" config keys folds the seeds of one config into one line per group with a band in
 * every panel, a legend with member counts, and one folded row per group in the runs table whose
 * metric columns hold the group's mean (or median); a group unfolds to its runs; the grouping is
 * remembered after a reload. Screenshots go to test-output/ui-screenshots/ (85-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "grouped-sweep";
const STEPS = 40;
const configs = ["adam", "sgd"].flatMap((optimizer) => [0.1, 0.01].flatMap((lr) => [0, 1, 2].map((seed) => ({ optimizer, lr, seed }))));
const finalLoss = (c: (typeof configs)[number]) =>
  (c.optimizer === "adam" ? 0.2 : 0.5) + (c.lr === 0.1 ? 0.1 : 0) + c.seed * 0.01 * (c.seed === 2 ? 5 : 1);
/** The UI's number format for values like these (0.1 to 1: five significant digits, no padding). */
const formatNumber = (value: number) => String(Number(value.toPrecision(5)));
const WIDE_PROJECT = "wide-sweep";
const WIDE_RUNS = 230;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe("grouping a sweep's runs", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const table = () => page.getByTestId("runs-table");
  const panel = (metric: string) => page.locator(`[data-testid=workspace] .ws-panel[data-metric='${metric}']`);
  const drawn = (metric: string) => panel(metric).locator(".chart-canvas[data-drawn=true]");
  const groupCell = async (label: string) => {
    const index = await table()
      .locator("thead th")
      .evaluateAll((cells) => cells.findIndex((cell) => cell.getAttribute("data-column") === "summary.val/loss"));
    return table().locator(`tr.group-row[data-group='${label}'] td`).nth(index).innerText();
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    for (const config of configs) {
      const run = await org.client.createRun({
        projectName: PROJECT,
        runName: `${config.optimizer}-lr${config.lr}-seed${config.seed}`,
        config: JSON.stringify(config),
      });
      const lines = Array.from({ length: STEPS }, (_, step) => ({
        step,
        data: { "val/loss": finalLoss(config) + 2 * Math.exp(-step / 8) - 2 * Math.exp(-(STEPS - 1) / 8) },
      }));
      assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines))).status, 200);
      await org.client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    }
    // A sweep past the run list's page (200 runs): the workspace reads it in pages.
    for (let first = 0; first < WIDE_RUNS; first += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, WIDE_RUNS - first) }, async (_, i) => {
          const r = first + i;
          const run = await org.client.createRun({
            projectName: WIDE_PROJECT,
            runName: `wide-${r}`,
            config: JSON.stringify({ optimizer: r % 2 === 0 ? "adam" : "sgd", seed: r }),
          });
          const lines = Array.from({ length: 5 }, (_, step) => ({ step, data: { "val/loss": 1 / (step + 1) + (r % 2) } }));
          assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines))).status, 200);
        }),
      );
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), org.key);
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await drawn("val/loss").waitFor();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("folds the runs into one line and band per group in every panel, with a legend of member counts", async () => {
    assert.equal(await drawn("val/loss").getAttribute("data-lines"), "12", "ungrouped: a line per run");
    await page.getByTestId("grouping").locator("summary").click();
    await page.getByTestId("grouping").getByLabel("optimizer").check();
    await page.getByTestId("grouping").locator("summary").click();
    await page.waitForFunction(
      () => document.querySelector("[data-metric='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "2",
    );
    assert.equal(await drawn("val/loss").getAttribute("data-bands"), "2", "a band per group");
    assert.equal(await page.getByTestId("group-count").innerText(), "2 groups");
    const legend = await panel("val/loss").locator("[data-testid=panel-legend] li").allInnerTexts();
    assert.deepEqual(
      legend.map((text) => text.replace(/\s+/g, " ").trim()),
      ["optimizer=sgd (6)", "optimizer=adam (6)"], // newest runs first: sgd's were created last
    );
    await page.screenshot({ path: `${SCREENSHOTS}85-grouped-workspace.png` });
  });

  it("shows each group as one folded row in the table, its metric column the group's mean, unfolding to its runs", async () => {
    await table().locator("tr.group-row").first().waitFor();
    assert.equal(await table().locator("tr.group-row").count(), 2);
    assert.equal(await table().locator("tr[data-run-id]").count(), 0, "folded: no run rows");
    const adam = configs.filter((c) => c.optimizer === "adam").map(finalLoss);
    await table().locator("thead th[data-column='summary.val/loss']").waitFor();
    await page.waitForFunction(() => !/—|^$/.test(document.querySelector("tr.group-row")?.textContent ?? ""));
    assert.equal(await groupCell("optimizer=adam"), formatNumber(mean(adam)));
    await table().locator("tr.group-row[data-group='optimizer=adam'] button").click();
    assert.equal(await table().locator("tr[data-run-id]").count(), 6);
    const after = await table()
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-group") ?? "run"));
    assert.deepEqual(after, ["optimizer=sgd", "optimizer=adam", "run", "run", "run", "run", "run", "run"]);
    await page.screenshot({ path: `${SCREENSHOTS}86-grouped-table.png` });
  });

  it("groups by two keys, draws the median, and remembers the grouping after a reload", async () => {
    await page.getByTestId("grouping").locator("summary").click();
    await page.getByTestId("grouping").getByLabel("lr").check();
    await page.getByTestId("group-line").selectOption("median");
    await page.getByTestId("group-band").selectOption("std");
    await page.getByTestId("grouping").locator("summary").click();
    await page.waitForFunction(
      () => document.querySelector("[data-metric='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "4",
    );
    assert.equal(await table().locator("tr.group-row").count(), 4);
    const group = configs.filter((c) => c.optimizer === "adam" && c.lr === 0.01).map(finalLoss);
    const median = [...group].sort((a, b) => a - b)[1]!;
    assert.notEqual(formatNumber(median), formatNumber(mean(group)), "the seeds' median is not their mean");
    await page.waitForFunction(() => document.querySelectorAll("tr.group-row").length === 4);
    assert.equal(await groupCell("optimizer=adam · lr=0.01"), formatNumber(median));
    await page.reload();
    await drawn("val/loss").waitFor();
    assert.equal(await drawn("val/loss").getAttribute("data-lines"), "4");
    assert.match(await page.getByTestId("grouping").locator("summary").innerText(), /Group by optimizer, lr/);
    // Ungrouped again: a line per run.
    await page.getByTestId("grouping").locator("summary").click();
    await page.getByTestId("grouping").getByRole("button", { name: "ungroup" }).click();
    await page.waitForFunction(
      () => document.querySelector("[data-metric='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "12",
    );
    assert.equal(await table().locator("tr.group-row").count(), 0);
  });

  it("draws more than the run list's page of runs (230, read in pages of 200), and groups them", async () => {
    await page.goto(new URL(`/projects/${WIDE_PROJECT}`, test.url).toString());
    await drawn("val/loss").waitFor();
    for (const cap of [50, 100, 200, 500]) {
      await page.getByTestId("raise-cap").click();
      await page.waitForFunction(
        (shown) => document.querySelector("[data-testid=workspace-count]")?.textContent?.startsWith(`showing ${shown} of 230`),
        Math.min(cap, WIDE_RUNS),
      );
    }
    assert.equal(await page.getByTestId("raise-cap").count(), 0, "every run shown");
    await page.waitForFunction(
      () => document.querySelector("[data-metric='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "230",
    );
    assert.equal(new Set((await panel("val/loss").getAttribute("data-runs"))!.split(",")).size, WIDE_RUNS, "each run once");
    await page.getByTestId("grouping").locator("summary").click();
    await page.getByTestId("grouping").getByLabel("optimizer").check();
    await page.waitForFunction(
      () => document.querySelector("[data-metric='val/loss'] .chart-canvas[data-drawn=true]")?.getAttribute("data-lines") === "2",
    );
    const legend = await panel("val/loss").locator("[data-testid=panel-legend] li").allInnerTexts();
    assert.deepEqual(legend.map((text) => text.replace(/\s+/g, " ").trim()).sort(), ["optimizer=adam (115)", "optimizer=sgd (115)"]);
  });

  it("reloads the table's page every 5 s while one of its runs is RUNNING, and not otherwise", async () => {
    const tableReads = (project: string) => {
      const seen: string[] = [];
      const listener = (request: { url: () => string }) => {
        const url = new URL(request.url());
        if (url.pathname === "/api/runs/list" && url.searchParams.has("includeDiverged") && url.searchParams.get("projectName") === project)
          seen.push(url.search);
      };
      page.on("request", listener);
      return { seen, stop: () => page.off("request", listener) };
    };
    // The wide sweep's runs were never finished: RUNNING.
    const running = tableReads(WIDE_PROJECT);
    await page.goto(new URL(`/projects/${WIDE_PROJECT}`, test.url).toString());
    await page.getByTestId("runs-table").locator("tbody tr").first().waitFor();
    await page.waitForTimeout(1000);
    const loaded = running.seen.length;
    await page.waitForTimeout(5500);
    running.stop();
    assert.ok(running.seen.length > loaded, `the page read again: ${loaded} reads at load, ${running.seen.length} after 5.5 s`);
    const finished = tableReads(PROJECT);
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.getByTestId("runs-table").locator("tbody tr").first().waitFor();
    await page.waitForTimeout(1000);
    const read = finished.seen.length;
    await page.waitForTimeout(5500);
    finished.stop();
    assert.equal(finished.seen.length, read, "every run COMPLETED: not read again");
  });

  it("raised no page error", () => {
    assert.deepEqual(errors, []);
  });
});
