/**
 * The runs table as a sweep table, and run colours, end to end in headless Chromium against a real
 * server (issue 23, items 3 and 4): by default the table shows the config keys that differ between
 * the runs and the main metrics; a metric column shows last, min or max; no cell has its text cut,
 * and a sideways scroll never leaves a column cut under the pinned ones; the splitter widens the
 * table and the charts can be hidden; "ticked runs only" narrows the charts; 20 shown runs have 20
 * distinct colours; a panel's legend and a table row highlight a run's lines in every panel; a
 * picked colour is the run's in the table and the charts, after a reload too.
 * Screenshots go to test-output/ui-screenshots/ (80-…).
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
const PROJECT = "lr-sweep";
const RUNS = 20;
const lrOf = (r: number) => [2.7416e-12, 0.00031, 0.001, 0.0031, 0.01][r % 5]!;
const valLoss = (r: number, step: number) => 0.43311 + r / 100 + Math.exp(-step / 10) - (step === 20 ? 0.3 : 0); // min at step 20

describe("the runs table as a sweep table, and run colours", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  const ids: number[] = [];
  const errors: string[] = [];
  const table = () => page.getByTestId("runs-table");
  const headerIds = () =>
    table()
      .locator("thead th[data-column]")
      .evaluateAll((cells) => cells.map((cell) => cell.getAttribute("data-column")));
  const panel = (metric: string) => page.locator(`[data-testid=workspace] .ws-panel[data-metric='${metric}']`);
  const drawn = (metric: string) => panel(metric).locator(".chart-canvas[data-drawn=true]");

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    key = org.key;
    for (let r = 0; r < RUNS; r++) {
      const run = await org.client.createRun({
        projectName: PROJECT,
        runName: `sweep-run-with-a-long-descriptive-name-${r}`,
        config: JSON.stringify({ lr: lrOf(r), optimizer: r % 2 === 0 ? "adam" : "sgd", seed: r % 3, epochs: 30, model: { depth: 12 } }),
      });
      ids.push(run.runId);
      const lines = Array.from({ length: 30 }, (_, step) => ({
        step,
        data: { "train/loss": 2 - step / 30 + r / 50, "val/loss": valLoss(r, step), "sys/cpu": 50 },
      }));
      assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines))).status, 200);
      await org.client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    }
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(new URL("/projects", test.url).toString());
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), key);
    await page.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await table().locator("tbody tr").first().waitFor();
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("shows by default the config keys that differ between the runs, then the main metrics", async () => {
    await table().locator("thead th[data-column='summary.val/loss']").waitFor();
    const columns = (await headerIds()).slice(6); // after status, name, ID, tags, created, duration
    assert.deepEqual(columns, ["config.lr", "config.optimizer", "config.seed", "summary.val/loss", "summary.train/loss"]);
    // The last finite value of the first run's val/loss, as the table formats it.
    const cell = table()
      .locator(`tr[data-run-id='${ids[0]}'] td`)
      .nth(columns.indexOf("summary.val/loss") + 8);
    assert.equal(await cell.innerText(), valLoss(0, 29).toPrecision(5));
  });

  it("shows a metric column's minimum or maximum, chosen in its header", async () => {
    const column = table().locator("thead th[data-column='summary.val/loss']");
    await column.locator("select").selectOption("min");
    await table().locator("thead th[data-column='summary.val/loss.min']").waitFor();
    const index = (await headerIds()).indexOf("summary.val/loss.min") + 2; // after the tick and colour cells
    const minimum = Math.min(...Array.from({ length: 30 }, (_, step) => valLoss(0, step)));
    const cell = table().locator(`tr[data-run-id='${ids[0]}'] td`).nth(index);
    assert.equal(Number((await cell.innerText()).replace(/[^0-9.e-]/g, "")).toPrecision(3), minimum.toPrecision(3));
    // Back to the last value, the column sorts again.
    await table().locator("thead th[data-column='summary.val/loss.min'] select").selectOption("last");
    await table().locator("thead th[data-column='summary.val/loss'] button.sort").waitFor();
  });

  it("cuts no cell's text, and a sideways scroll never leaves a column cut under the pinned ones", async () => {
    // Every cell shows its whole text, or an ellipsis whose element holds the whole text in its title.
    const cut = await table().evaluate((element) =>
      [...element.querySelectorAll<HTMLElement>("th, td, th *, td *")]
        .filter((cell) => (cell.textContent ?? "").trim() !== "" && !cell.closest(".visually-hidden"))
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 1 && getComputedStyle(cell).overflowX !== "visible")
        .filter((cell) => cell.title === "" || !cell.title.includes(cell.textContent ?? ""))
        .map((cell) => `${cell.tagName} ${cell.textContent}`),
    );
    assert.deepEqual(cut, []);
    const scroller = page.locator(".runs-pane .table-scroll");
    for (const by of [70, 130, 260]) {
      await scroller.evaluate((element, left) => element.scrollTo({ left, behavior: "instant" }), by);
      await page.waitForTimeout(300); // the scroll snaps to a column
      const partly = await table().evaluate((element) => {
        const pinnedEdge = element.querySelector("thead th.pinned")!.getBoundingClientRect().right;
        return [...element.querySelectorAll<HTMLElement>("thead th:not(.pin):not(.pinned)")]
          .map((cell) => ({ text: cell.textContent, box: cell.getBoundingClientRect() }))
          .filter(({ box }) => box.left < pinnedEdge - 1 && box.right > pinnedEdge + 1)
          .map(({ text }) => text);
      });
      assert.deepEqual(partly, [], `scrolled ${by}px: no column half under the pinned ones`);
    }
    await page.screenshot({ path: `${SCREENSHOTS}80-sweep-table-scrolled.png` });
    await scroller.evaluate((element) => element.scrollTo({ left: 0, behavior: "instant" }));
  });

  it("draws 20 shown runs in 20 distinct colours, the table's swatches in the lines' colours", async () => {
    await drawn("val/loss").waitFor();
    const swatches = await table()
      .locator("tr[data-run-id] .swatch")
      .evaluateAll((list) => list.map((swatch) => swatch.getAttribute("data-color")));
    assert.equal(swatches.length, RUNS);
    assert.equal(new Set(swatches).size, RUNS, "no two runs share a colour");
    const legend = await panel("val/loss")
      .locator("[data-testid=panel-legend] li[data-run-id] .swatch")
      .evaluateAll((list) => list.map((swatch) => (swatch as HTMLElement).style.background));
    assert.equal(legend.length, 8, "the legend lists 8 runs, then +12 more");
    await panel("val/loss").getByText("+12 more").click();
    assert.equal(await panel("val/loss").locator("[data-testid=panel-legend] li[data-run-id]").count(), RUNS);
  });

  it("highlights a run's lines in every panel from its table row, and its row from a panel's legend", async () => {
    await table().locator(`tr[data-run-id='${ids[3]}']`).hover();
    for (const metric of ["val/loss", "train/loss"]) {
      await panel(metric).scrollIntoViewIfNeeded();
      assert.equal(await drawn(metric).getAttribute("data-highlighted"), String(ids[3]));
    }
    const faded = await panel("val/loss").locator("[data-testid=panel-legend] li.faded").count();
    assert.equal(faded, RUNS - 1, "every other run fades in the legend");
    await page.screenshot({ path: `${SCREENSHOTS}81-highlighted-run.png` });
    await panel("val/loss").scrollIntoViewIfNeeded();
    await panel("val/loss").locator(`[data-testid=panel-legend] li[data-run-id='${ids[5]}']`).hover();
    assert.equal(await table().locator("tr.highlighted").getAttribute("data-run-id"), String(ids[5]));
    assert.equal(await drawn("train/loss").getAttribute("data-highlighted"), String(ids[5]));
    await page.mouse.move(5, 5);
    assert.equal(await table().locator("tr.highlighted").count(), 0);
    assert.equal(await drawn("val/loss").getAttribute("data-highlighted"), null);
  });

  it("keeps a picked colour for the run in the table and the charts, after a reload too", async () => {
    const row = table().locator(`tr[data-run-id='${ids[17]}']`);
    await row.getByTestId("run-color").fill("#00aa55");
    assert.equal(await row.locator(".swatch").getAttribute("data-color"), "#00aa55");
    await page.reload();
    await drawn("val/loss").waitFor();
    assert.equal(await table().locator(`tr[data-run-id='${ids[17]}'] .swatch`).getAttribute("data-color"), "#00aa55");
    const legendColour = await panel("val/loss")
      .locator(`[data-testid=panel-legend] li[data-run-id='${ids[17]}'] .swatch`)
      .evaluate((swatch) => getComputedStyle(swatch).backgroundColor);
    assert.equal(legendColour, "rgb(0, 170, 85)");
    const others = await table()
      .locator("tr[data-run-id] .swatch")
      .evaluateAll((list) => list.map((swatch) => swatch.getAttribute("data-color")));
    assert.equal(new Set(others).size, RUNS, "still 20 distinct colours");
  });

  it("narrows the charts to the ticked runs when asked", async () => {
    const ticked = [ids[1]!, ids[4]!, ids[7]!];
    for (const id of ticked) await table().locator(`tr[data-run-id='${id}'] input[type=checkbox]`).check();
    await page.getByTestId("ticked-only").check();
    await page.waitForFunction(
      () =>
        document.querySelector("[data-testid=workspace] .ws-panel[data-metric='val/loss']")?.getAttribute("data-runs")?.split(",")
          .length === 3,
    );
    const shown = (await panel("val/loss").getAttribute("data-runs"))!.split(",").map(Number);
    assert.deepEqual(shown.sort(), [...ticked].sort());
    assert.match(await page.getByTestId("workspace-count").innerText(), /the 3 ticked runs/);
    await page.getByTestId("ticked-only").uncheck();
    await page.waitForFunction(
      () =>
        document.querySelector("[data-testid=workspace] .ws-panel[data-metric='val/loss']")?.getAttribute("data-runs")?.split(",")
          .length === 20,
    );
  });

  it("widens the table with the splitter (drag or keys) and hides the charts, remembered after a reload", async () => {
    const before = (await page.locator(".runs-pane").boundingBox())!.width;
    const bar = (await page.getByTestId("runs-splitter").boundingBox())!;
    await page.mouse.move(bar.x + bar.width / 2, bar.y + 50);
    await page.mouse.down();
    await page.mouse.move(bar.x + 250, bar.y + 50, { steps: 5 });
    await page.mouse.up();
    const dragged = (await page.locator(".runs-pane").boundingBox())!.width;
    assert.ok(dragged > before + 200, `the table pane went from ${before} to ${dragged} px`);
    await page.getByTestId("runs-splitter").focus();
    await page.keyboard.press("ArrowLeft");
    const keyed = (await page.locator(".runs-pane").boundingBox())!.width;
    assert.ok(keyed < dragged - 40, "an arrow key narrows it by 5%");
    await page.getByTestId("toggle-charts").click();
    assert.equal(await page.getByTestId("workspace").count(), 0, "the charts are gone");
    const full = (await page.locator(".runs-pane").boundingBox())!.width;
    assert.ok(full > 1300, `the table takes the whole width (${full} px)`);
    await page.screenshot({ path: `${SCREENSHOTS}82-charts-hidden.png` });
    await page.reload();
    await table().locator("tbody tr").first().waitFor();
    assert.equal(await page.getByTestId("workspace").count(), 0, "still hidden after a reload");
    await page.getByTestId("toggle-charts").click();
    await drawn("val/loss").waitFor();
    const restored = (await page.locator(".runs-pane").boundingBox())!.width;
    assert.ok(Math.abs(restored - keyed) < 2, "the split is remembered");
    await page.screenshot({ path: `${SCREENSHOTS}83-sweep-table.png` });
  });

  it("raised no page error", () => {
    assert.deepEqual(errors, []);
  });
});
