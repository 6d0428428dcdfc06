/**
 * The smaller things of the web UI, end to end in headless Chromium against a real server: long
 * names and tag lists, logs of a failed run (opened at the end, ANSI colours, aligned columns), file
 * captions and the step slider, browser history, select-all, an unknown run in a comparison, dark
 * mode, the model graph's edges, and diverged runs marked in the runs table. Screenshots go to
 * test-output/ui-screenshots/.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { contrast, DARK_RUN_PALETTE } from "../../web/src/lib/run-color.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "details";
const ESC = "\u001b";
const LONG_NAME = `sweep-${"very-long-run-name-".repeat(8)}end`;
const LONG_TAGS = Array.from({ length: 25 }, (_, i) => `tag-number-${i}`);
const LOG_LINES = 450;
const BULK_RUNS = 52;
const CONFIG_KEYS = Array.from({ length: 16 }, (_, i) => `hyperparameter_${i}`);

type Run = { runId: number; projectName: string };
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

/** Registers image files on a run and uploads a 1×1 PNG for each. */
async function uploadImages(
  client: ApiClient,
  run: Run,
  files: { logName: string; step: number; fileName: string; caption: string | null }[],
) {
  const registered = await client.raw(
    "POST",
    "/files",
    JSON.stringify({
      files: files.map((file) => ({ ...file, fileType: "image/png", fileSize: PNG.length, time: 1_700_000_000_000 + file.step })),
    }),
    { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": PROJECT },
  );
  assert.equal(registered.status, 200);
  for (const entries of Object.values(registered.body as Record<string, Record<string, string>[]>))
    for (const entry of entries)
      for (const url of Object.values(entry)) {
        const upload = await fetch(url, { method: "PUT", body: PNG, headers: { "content-type": "image/png" } });
        await upload.arrayBuffer();
        assert.equal(upload.status, 200);
      }
}

async function seed(client: ApiClient) {
  const failed: Run = await client.createRun({ runName: LONG_NAME, projectName: PROJECT, tags: LONG_TAGS, config: '{"lr": 0.1}' });
  const logs = Array.from({ length: LOG_LINES }, (_, i) =>
    JSON.stringify({
      time: 1_700_000_000_000 + i * 1000,
      lineNumber: i + 1,
      logType: i >= LOG_LINES - 3 ? "ERROR" : "INFO",
      message:
        i === LOG_LINES - 1
          ? `${ESC}[1;31mRuntimeError${ESC}[0m: CUDA out of memory <b>not bold</b>`
          : i === LOG_LINES - 2
            ? `${ESC}[33mTraceback${ESC}[39m (most recent call last) ${ESC}[38;5;208morange${ESC}[0m`
            : `epoch ${i} done`,
    }),
  ).join("\n");
  assert.equal((await ingest(client, "logs", failed, logs)).status, 200);
  assert.equal((await client.post("/api/runs/status/update", { runId: failed.runId, status: "FAILED" })).status, 200);
  const loss = (scale: number) => toNdjson(Array.from({ length: 5 }, (_, step) => ({ step, data: { loss: scale / (step + 1) } })));
  assert.equal((await ingest(client, "metrics", failed, loss(0.5))).status, 200);
  // Enough runs for two pages, each with many config keys (columns).
  const config = JSON.stringify(Object.fromEntries(CONFIG_KEYS.map((key, i) => [key, `value-${i}-of-a-wide-column`])));
  const bulk: Run[] = [];
  for (let i = 0; i < BULK_RUNS; i++) {
    const run: Run = await client.createRun({ runName: `bulk-${String(i).padStart(2, "0")}`, projectName: PROJECT, config });
    assert.equal((await ingest(client, "metrics", run, loss(1 + i))).status, 200);
    if (i % 2 === 0) await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    bulk.push(run);
  }
  // bulk-03 diverges: its loss ends in NaN at step 5.
  assert.equal((await ingest(client, "metrics", bulk[3]!, toNdjson([{ step: 5, data: { loss: Number.NaN } }]))).status, 200);
  await uploadImages(client, failed, [
    ...[0, 10, 20].map((step) => ({ logName: "samples", step, fileName: `sample-${step}.png`, caption: `prediction at step ${step}` })),
    { logName: "figure", step: 5, fileName: "figure.png", caption: "<i>a lone figure</i>" },
    { logName: "plain", step: 5, fileName: "plain.png", caption: null },
  ]);
  const graph = {
    format: "torch",
    nodes: {
      input: { type: "Input", depth: 0, order: 0, node_type: "IO", edges: [["input", "conv1"]] },
      conv1: { type: "Conv2d", depth: 1, order: 1, params: { weight: [64, 3, 7, 7] }, edges: [["conv1", "relu"]] },
      relu: {
        type: "ReLU",
        depth: 1,
        order: 2,
        edges: [
          ["relu", "conv2"],
          ["relu", "add"],
        ],
      },
      conv2: { type: "Conv2d", depth: 1, order: 3, edges: [["conv2", "add"]] },
      add: { type: "Add", depth: 1, order: 4, node_id: "n-add", edges: [["n-add", "fc"]] },
      fc: { type: "Linear", depth: 1, order: 5 },
      unconnected: { type: "Dropout", depth: 1, order: 6 },
    },
  };
  assert.equal((await client.post("/api/runs/modelGraph/create", { runId: failed.runId, graph })).status, 200);
  return { failed, bulk };
}

describe("web UI details in headless Chromium", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  let key: string;
  let runs: Awaited<ReturnType<typeof seed>>;
  const errors: string[] = [];
  const open = (path: string) => page.goto(new URL(path, test.url).toString());
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
  const fitsWindow = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    client = org.client;
    key = org.key;
    runs = await seed(client);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await open("/projects");
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), org.key);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("opens a FAILED run's logs at the end, with ANSI colours as styled text and aligned columns", async () => {
    await open(`/projects/${PROJECT}/runs/${runs.failed.runId}?tab=logs`);
    const lines = page.locator("[data-testid=log-lines] li");
    await page.getByText("RuntimeError").waitFor();
    assert.match(await page.getByTestId("pager-range").innerText(), /^401–450 of 450 lines/);
    const last = lines.last();
    assert.ok(await last.isVisible(), "scrolled to the last line");
    const inView = await last.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.bottom <= window.innerHeight && box.top >= 0;
    });
    assert.ok(inView, "the last line is in the viewport");
    // Colours are spans with classes; the escape codes and the markup stay out of the DOM as such.
    const error = last.locator(".message .ansi-fg-1.ansi-bold");
    assert.equal(await error.innerText(), "RuntimeError");
    assert.equal(await last.locator(".message b").count(), 0, "markup in a message is text");
    assert.match(await last.locator(".message").innerText(), /<b>not bold<\/b>/);
    assert.doesNotMatch(await page.getByTestId("log-lines").innerText(), /\u001b|\[31m|\[0m/);
    const orange = lines.nth(-2).locator(".message span", { hasText: "orange" });
    assert.equal(await orange.evaluate((element) => getComputedStyle(element).color), "rgb(255, 135, 0)");
    assert.equal(await lines.nth(-2).locator(".ansi-fg-3").innerText(), "Traceback");
    // Every message starts at the same x, whatever the widths of line number and type.
    const starts = await page.$$eval("[data-testid=log-lines] li .message", (elements) =>
      elements.map((element) => Math.round(element.getBoundingClientRect().left)),
    );
    assert.equal(new Set(starts).size, 1, `messages start at ${[...new Set(starts)]}`);
    await shot("30-logs-failed-ansi");
    // A search matches the text a line shows, across its colour codes.
    await page.getByPlaceholder("text in the message").fill("RuntimeError: CUDA");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=log-lines] li").length === 1);
    assert.equal(await lines.first().locator(".ansi-fg-1").innerText(), "RuntimeError");
  });

  it("cuts long run names and tag lists (whole on hover), pins the name column, and fits the leaderboard at 1280 px", async () => {
    await page.evaluate(
      ([key, columns]) => localStorage.setItem(key!, columns!),
      [`stepwise.columns.${PROJECT}`, JSON.stringify(CONFIG_KEYS.map((key) => ({ source: "config", key })))],
    );
    await open(`/projects/${PROJECT}?search=sweep`);
    const row = page.locator(`[data-testid=runs-table] tr[data-run-id='${runs.failed.runId}']`);
    await row.waitFor();
    const name = row.getByRole("link", { name: LONG_NAME });
    assert.equal(await name.getAttribute("title"), LONG_NAME, "the full name on hover");
    assert.ok(await name.evaluate((element) => element.scrollWidth > element.clientWidth), "the name is cut");
    const tags = row.locator(".tags-cell");
    assert.equal(await tags.getAttribute("title"), LONG_TAGS.join(", "));
    assert.ok((await tags.boundingBox())!.width < 300, "the tags are cut");
    assert.ok(await fitsWindow(), "the page is no wider than the window");
    await shot("31-runs-long-names");

    // Sixteen config columns: the table scrolls sideways inside its box and the name stays in view.
    await open(`/projects/${PROJECT}`);
    await page.locator("th[data-column='config.hyperparameter_15']").waitFor();
    const scroller = page.locator(".table-scroll").first();
    assert.ok(await scroller.evaluate((element) => element.scrollWidth > element.clientWidth + 500), "many columns overflow");
    await scroller.evaluate((element) => {
      element.scrollLeft = element.scrollWidth;
    });
    // The checkbox, colour and eye, status and name stay in view, side by side from the left edge.
    const firstRow = page.locator("[data-testid=runs-table] tbody tr").first();
    const firstName = firstRow.locator("td.pinned");
    const [selectBox, statusBox, nameBox, scrollerBox] = [
      (await firstRow.locator("td.pin-select").boundingBox())!,
      (await firstRow.locator("td.pin-status").boundingBox())!,
      (await firstName.boundingBox())!,
      (await scroller.boundingBox())!,
    ];
    assert.ok(
      Math.abs(selectBox.x - scrollerBox.x) < 2,
      `the checkbox column is pinned at the left edge (${selectBox.x} vs ${scrollerBox.x})`,
    );
    assert.ok(
      Math.abs(nameBox.x - (statusBox.x + statusBox.width)) < 2,
      `the name column is pinned right after the status (${nameBox.x} vs ${statusBox.x + statusBox.width})`,
    );
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest("td")?.classList.contains("pinned"),
      [nameBox.x + 10, nameBox.y + nameBox.height / 2],
    );
    assert.ok(hit, "the pinned name is drawn above the columns scrolled under it");
    assert.ok(await fitsWindow());
    await shot("32-runs-pinned-name");

    await open(`/projects/${PROJECT}/leaderboard?metric=loss`);
    const value = page.getByTestId("leaderboard-value").first();
    await value.waitFor();
    assert.match(await page.locator("[data-testid=leaderboard] tbody tr").first().innerText(), /sweep-very-long/);
    const box = (await value.boundingBox())!;
    assert.ok(box.x + box.width <= 1280, `the value column is in the window (right edge ${box.x + box.width})`);
    assert.ok(await fitsWindow());
    await shot("33-leaderboard-long-names");
  });

  it("selects all runs of the page, and pages and filters as history entries (Back works)", async () => {
    await open(`/projects/${PROJECT}`);
    const boxes = page.locator("[data-testid=runs-table] tbody input[type=checkbox]");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 50);
    await page.getByTestId("select-all").check();
    assert.equal(await page.locator("[data-testid=runs-table] tbody input[type=checkbox]:checked").count(), 50);
    assert.match(await page.getByTestId("compare-selected").innerText(), /Compare \(50\)/);
    await boxes.first().uncheck();
    assert.equal(await page.getByTestId("select-all").evaluate((element) => (element as HTMLInputElement).indeterminate), true);
    await page.getByTestId("select-all").check();
    await page.getByTestId("select-all").uncheck();
    assert.equal(await page.locator("[data-testid=runs-table] tbody input[type=checkbox]:checked").count(), 0);

    await page.getByRole("button", { name: "Next →" }).first().click();
    await page.waitForFunction(() => /offset=50/.test(location.search));
    await page
      .getByTestId("pager-range")
      .filter({ hasText: /^51–53 of 53/ })
      .waitFor();
    await page.getByLabel("completed").check();
    await page.waitForFunction(() => /status=COMPLETED/.test(location.search));
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 26);
    await page.goBack();
    await page.waitForFunction(() => /offset=50/.test(location.search) && !/status=/.test(location.search));
    await page
      .getByTestId("pager-range")
      .filter({ hasText: /^51–53 of 53/ })
      .waitFor();
    assert.equal(await page.getByLabel("completed").isChecked(), false);
    await page.goBack();
    await page.waitForFunction(() => !/offset=/.test(location.search));
    await page
      .getByTestId("pager-range")
      .filter({ hasText: /^1–50 of 53/ })
      .waitFor();
    await page.goForward();
    await page
      .getByTestId("pager-range")
      .filter({ hasText: /^51–53 of 53/ })
      .waitFor();
  });

  it("says so when a comparison names an unknown run, and compares the others", async () => {
    const [a, b] = runs.bulk;
    await open(`/projects/${PROJECT}/compare?runIds=${a!.runId},999999,${b!.runId}&metric=loss`);
    const note = page.getByTestId("unknown-runs");
    await note.waitFor();
    assert.equal(await note.innerText(), `No run 999999 in project ${PROJECT}: comparing the other 2 runs.`);
    await page.locator(".chart-card[data-metric='loss'] .chart-canvas[data-drawn=true]").waitFor();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=compare-stats] tbody tr").length === 2);
    await shot("34-compare-unknown-run");

    await open(`/projects/${PROJECT}/compare?runIds=999998,999999`);
    await note.waitFor();
    assert.equal(await note.innerText(), `No runs 999998, 999999 in project ${PROJECT}.`);
    assert.equal(await page.getByText(/Loading/).count(), 0, "nothing left loading");
  });

  it("shows file captions, and a step slider for the images of one log name", async () => {
    await open(`/projects/${PROJECT}/runs/${runs.failed.runId}?tab=files`);
    const series = page.locator(".image-series[data-log-name=samples]");
    await series.waitFor();
    assert.equal(await series.locator("img").count(), 1, "one step at a time");
    assert.equal(await series.getByTestId("slider-step").innerText(), "20", "the last step first");
    assert.equal(await series.locator("figcaption").innerText(), "prediction at step 20");
    const slider = page.getByLabel("Step of samples");
    await slider.focus();
    await page.keyboard.press("Home");
    await series.locator("figcaption", { hasText: "prediction at step 0" }).waitFor();
    assert.equal(await series.getByTestId("slider-step").innerText(), "0");
    await page.keyboard.press("ArrowRight");
    await series.locator("figcaption", { hasText: "prediction at step 10" }).waitFor();
    assert.equal(await series.locator("img").getAttribute("alt"), "prediction at step 10");
    // A single image has no slider; a caption is text, never markup.
    const lone = page.locator(".file-card", { hasText: "figure.png" });
    assert.equal(await lone.locator("input[type=range]").count(), 0);
    assert.equal(await lone.locator("figcaption").innerText(), "<i>a lone figure</i>");
    assert.equal(await lone.locator("figcaption i").count(), 0);
    assert.equal(await page.locator(".file-card", { hasText: "plain.png" }).locator("figcaption").count(), 0);
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>("[data-testid=files] img")].every((image) => image.naturalWidth === 1),
    );
    await shot("35-files-captions-slider");
  });

  it("draws the model graph's edges as a layered diagram, above the module tree", async () => {
    await open(`/projects/${PROJECT}/runs/${runs.failed.runId}?tab=model`);
    const diagram = page.getByTestId("model-diagram");
    await diagram.waitFor();
    assert.equal(await diagram.locator(".graph-node").count(), 6, "the connected nodes");
    assert.equal(await diagram.locator(".graph-edge").count(), 6);
    assert.equal(await diagram.locator(".graph-edge[data-from=add][data-to=fc]").count(), 1, "an edge named by node_id");
    const top = async (key: string) => (await diagram.locator(`.graph-node[data-key=${key}]`).boundingBox())!.y;
    assert.ok((await top("input")) < (await top("conv1")));
    assert.ok((await top("conv2")) < (await top("add")), "the skip connection does not pull `add` up");
    assert.ok((await top("add")) < (await top("fc")));
    assert.match(await page.getByTestId("model-graph").innerText(), /unconnected/, "the tree still lists every module");
    assert.ok(await fitsWindow());
    await shot("36-model-graph-edges");
  });

  it("follows the system's dark mode, charts included, and switches back when the preference changes", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "dark" });
    const dark = await context.newPage();
    dark.on("pageerror", (error) => errors.push(error.message));
    await dark.goto(new URL("/projects", test.url).toString());
    await dark.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), key);
    await dark.goto(new URL(`/projects/${PROJECT}`, test.url).toString());
    await dark.locator("[data-testid=runs-table] tbody tr").first().waitFor();
    const colours = () =>
      dark.evaluate(() => {
        const table = getComputedStyle(document.querySelector("[data-testid=runs-table]")!);
        return { page: getComputedStyle(document.documentElement).backgroundColor, table: table.backgroundColor, text: table.color };
      });
    assert.deepEqual(await colours(), { page: "rgb(17, 24, 39)", table: "rgb(31, 41, 55)", text: "rgb(229, 231, 235)" });
    // Each run in its colour lightened for the dark surface (the table's swatches, as its lines).
    const swatches = await dark
      .locator("[data-testid=runs-table] tr[data-run-id]")
      .evaluateAll((rows) =>
        rows.map((row) => [Number(row.getAttribute("data-run-id")), row.querySelector(".swatch")!.getAttribute("data-color")!]),
      );
    assert.ok(swatches.length > 0);
    for (const [runId, color] of swatches as [number, string][]) {
      assert.ok((DARK_RUN_PALETTE as readonly string[]).includes(color), `run ${runId} in ${color}, a dark-scheme colour`);
      assert.ok(contrast(color, "#1f2937") >= 3, `${color} readable on the dark surface`);
    }
    await dark.screenshot({ path: `${SCREENSHOTS}37-dark-runs.png`, fullPage: true });

    // The chart's axis labels are drawn light on the dark page: count bright pixels left of the plot.
    await dark.goto(new URL(`/projects/${PROJECT}/runs/${runs.failed.runId}`, test.url).toString());
    const canvas = dark.locator(".chart-card[data-metric='loss'] .chart-canvas[data-drawn=true] canvas");
    await canvas.waitFor();
    const axisPixels = () =>
      dark.evaluate(() => {
        const element = document.querySelector<HTMLCanvasElement>(".chart-card[data-metric='loss'] canvas")!;
        const over = document.querySelector(".chart-card[data-metric='loss'] .u-over")!;
        const width = Math.floor((over.getBoundingClientRect().left - element.getBoundingClientRect().left) * devicePixelRatio);
        const { data } = element.getContext("2d")!.getImageData(0, 0, width, element.height);
        let light = 0;
        let darkText = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3]! < 200) continue;
          const level = (data[i]! + data[i + 1]! + data[i + 2]!) / 3;
          if (level > 170) light++;
          else if (level < 90) darkText++;
        }
        return { light, dark: darkText };
      });
    const inDark = await axisPixels();
    assert.ok(inDark.light > 20 && inDark.dark === 0, `light axis labels in dark mode: ${JSON.stringify(inDark)}`);
    await dark.screenshot({ path: `${SCREENSHOTS}38-dark-run-chart.png`, fullPage: true });
    await dark.emulateMedia({ colorScheme: "light" });
    await dark.waitForFunction(() => getComputedStyle(document.documentElement).backgroundColor === "rgb(243, 244, 246)");
    // The chart is rebuilt in the new colours: wait for it (at most 5 s).
    let inLight = await axisPixels();
    for (let tries = 0; tries < 50 && !(inLight.dark > 20 && inLight.light === 0); tries++) {
      await dark.waitForTimeout(100);
      inLight = await axisPixels();
    }
    assert.ok(inLight.dark > 20 && inLight.light === 0, `dark axis labels in light mode: ${JSON.stringify(inLight)}`);
    await context.close();
  });

  it("marks a run whose series ended non-finite in the runs table, the comparison and the leaderboard", async () => {
    await page.evaluate((key) => localStorage.removeItem(key), `stepwise.columns.${PROJECT}`);
    await open(`/projects/${PROJECT}`);
    const diverged = runs.bulk[3]!.runId;
    const mark = page.locator(`[data-testid=runs-table] tr[data-run-id='${diverged}'] [data-testid=diverged-run]`);
    await mark.waitFor();
    assert.equal(await mark.innerText(), "⚠ NaN");
    assert.equal(await mark.getAttribute("title"), "Ended non-finite: loss NaN @ 5");
    assert.equal(await page.getByTestId("diverged-run").count(), 1, "only the diverged run is marked");
    assert.ok(await mark.isVisible(), "beside the name, in view");
    await shot("39-runs-diverged-mark");

    await open(`/projects/${PROJECT}/compare?runIds=${diverged},${runs.bulk[4]!.runId}&metric=loss`);
    const cell = page.locator("[data-testid=compare-stats] [data-diverged]");
    await cell.waitFor();
    assert.equal(await cell.innerText(), "NaN @ 5");
    await open(`/projects/${PROJECT}/leaderboard?metric=loss`);
    const row = page.locator("[data-testid=leaderboard] tbody tr", { hasText: "bulk-03" });
    await row.locator("[data-diverged]").waitFor();
    assert.match(await row.innerText(), /ended NaN @ 5/);
  });

  it("has no uncaught errors in the page", () => {
    assert.deepEqual(errors, []);
  });
});
