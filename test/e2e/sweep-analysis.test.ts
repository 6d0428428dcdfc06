/**
 * The project page's sweep analysis end to end in headless Chromium against a real server (issue 23,
 * item 1): over a 32-run sweep (lr × optimizer × seed, a string key some runs lack), parallel
 * coordinates with an axis per differing config key and per main metric, a scatter with a point per
 * run, the importance table ranking the key the metric follows first, and a brush on the lr axis
 * narrowing the runs table and the charts (through the page's filter), cleared again.
 * Screenshots go to test-output/ui-screenshots/ (90-…) and docs/analysis.png.
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
const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));
const PROJECT = "cifar-sweep";
const LRS = [0.0001, 0.001, 0.01, 0.1];

describe("sweep analysis on the project page", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    let r = 0;
    for (const lr of LRS)
      for (const optimizer of ["adam", "sgd"])
        for (const seed of [0, 1, 2, 3]) {
          const config = { lr, optimizer, seed, ...(r % 3 === 0 ? {} : { scheduler: r % 2 === 0 ? "cosine" : "step" }), batch: 128 };
          const run = await org.client.createRun({ projectName: PROJECT, runName: `r${r}`, config: JSON.stringify(config) });
          const final = 0.3 + 0.25 * Math.abs(Math.log10(lr) + 2.5) + (optimizer === "sgd" ? 0.03 : 0) + seed * 0.002;
          const lines = Array.from({ length: 20 }, (_, step) => ({
            step,
            data: { "val/loss": final + Math.exp(-step / 4), "train/loss": final * 0.9 + Math.exp(-step / 4) },
          }));
          assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines))).status, 200);
          r++;
        }
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), org.key);
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await page.getByTestId("runs-table").locator("tbody tr").first().waitFor();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("draws an axis per differing config key and main metric, a point per run, and ranks lr first", async () => {
    await page.getByTestId("analysis-section").locator("summary").click();
    await page.locator("[data-testid=parallel-coordinates] canvas[data-lines='32']").waitFor();
    const axes = await page
      .locator("[data-testid=parallel-coordinates] [data-axis]")
      .evaluateAll((list) => list.map((axis) => axis.getAttribute("data-axis")));
    assert.deepEqual(
      [...axes].sort(),
      ["config.lr", "config.optimizer", "config.scheduler", "config.seed", "metric.train/loss", "metric.val/loss"].sort(),
    );
    assert.equal(axes.at(-1), "metric.val/loss", "the chosen metric last, where the lines end");
    assert.equal(await page.getByTestId("analysis-count").innerText(), "32 runs, 4 config keys differ");
    // The string key some runs lack: its levels and a missing slot, nothing dropped.
    const scheduler = await page.locator("[data-axis='config.scheduler'] .pc-tick").allInnerTexts();
    assert.deepEqual(scheduler, ["—", "cosine", "step"]);
    assert.equal(await page.locator("[data-testid=scatter] canvas").getAttribute("data-points"), "32");
    const ranked = await page
      .getByTestId("importance")
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-key")));
    assert.equal(ranked[0], "lr");
    assert.equal(ranked.length, 4);
    await page.getByTestId("analysis").screenshot({ path: `${SCREENSHOTS}90-sweep-analysis.png` });
    await page.getByTestId("analysis").screenshot({ path: `${DOCS}analysis.png` });
  });

  it("narrows the table and the charts to the runs a brush on an axis keeps, and clears it", async () => {
    const axis = (await page.locator("[data-axis='config.lr']").boundingBox())!;
    // From the top (lr 0.1) down past 0.01 (two thirds up a log axis of three decades).
    await page.mouse.move(axis.x + 1, axis.y + 2);
    await page.mouse.down();
    await page.mouse.move(axis.x + 1, axis.y + axis.height * 0.4, { steps: 5 });
    await page.mouse.up();
    await page.waitForURL(/brush=/);
    await page.locator("[data-testid=parallel-coordinates] canvas[data-kept='16']").waitFor();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr[data-run-id]").length === 16);
    await page.waitForFunction(() => document.querySelector("[data-testid=workspace-count]")?.textContent?.startsWith("showing 16 of 16"));
    const lrs = await page.evaluate(() => new URL(location.href).searchParams.get("brush"));
    const [brush] = JSON.parse(lrs!) as { axis: string; range: [number, number] }[];
    assert.equal(brush!.axis, "config.lr");
    assert.ok(brush!.range[0] < 0.01 && brush!.range[0] > 0.001 && brush!.range[1] >= 0.1 * 0.999, JSON.stringify(brush));
    await page.screenshot({ path: `${SCREENSHOTS}91-brushed.png` });
    // The brush is in the URL: a reload keeps it.
    await page.reload();
    await page.locator("[data-testid=parallel-coordinates] canvas[data-kept='16']").waitFor();
    await page.getByTestId("clear-brushes").click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr[data-run-id]").length === 32);
    assert.doesNotMatch(page.url(), /brush=/);
  });

  it("ranks for another metric when chosen", async () => {
    await page.getByTestId("analysis-metric").selectOption("train/loss");
    await page.waitForFunction(() =>
      document.querySelector("[data-testid=importance]")?.previousElementSibling?.textContent?.includes("train/loss"),
    );
    const first = await page.getByTestId("importance").locator("tbody tr").first().getAttribute("data-key");
    assert.equal(first, "lr");
  });

  it("raised no page error", () => {
    assert.deepEqual(errors, []);
  });
});
