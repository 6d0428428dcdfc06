/**
 * What charts mark instead of drawing as values, end to end in headless Chromium against a real
 * server: NaN / ±Inf as marks in a labelled lane above the plot (none at its floor) on workspace
 * panels and the run page; no line or band across a resumed run's days-long gap on a time axis;
 * the y range clipped to the bulk of the data with the points outside counted; a panel saved as
 * PNG and as CSV; a live run's refresh reading only its new steps. The tests read the drawn
 * canvas's pixels. Screenshots go to test-output/ui-screenshots/ (60-…).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Locator, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, type MetricLine, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "marks";
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const DAY = 86_400_000;
// A run name a spreadsheet would run as a formula, with a comma and a quote to escape.
const NAN_RUN = '=nan, "run"';

const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png` });

const rgbOf = (hex: string) => [1, 3, 5].map((offset) => Number.parseInt(hex.slice(offset, offset + 2), 16));
const distance = (a: number[], b: number[]) => Math.max(...a.map((value, i) => Math.abs(value - b[i]!)));

/** The drawn canvas's pixels (RGB) at CSS positions of the chart. */
async function pixels(canvas: Locator, points: [number, number][]): Promise<number[][]> {
  return canvas.locator("canvas").evaluate((element: HTMLCanvasElement, at) => {
    const scale = element.width / element.clientWidth;
    const ctx = element.getContext("2d")!;
    return at.map(([x, y]) => {
      const [r, g, b, a] = ctx.getImageData(Math.round(x * scale), Math.round(y * scale), 1, 1).data;
      // Transparent canvas pixels are the card's white behind them.
      const alpha = a! / 255;
      return [r!, g!, b!].map((channel) => Math.round(channel * alpha + 255 * (1 - alpha)));
    });
  }, points);
}

/** The plot's box (left, top, width, height) in CSS pixels of the canvas. */
async function plotBox(canvas: Locator): Promise<[number, number, number, number]> {
  return (await canvas.getAttribute("data-plot"))!.split(" ").map(Number) as [number, number, number, number];
}

describe("chart marks", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  const ids: Record<string, number> = {};
  const errors: string[] = [];
  const batches: { body: { runIds: number[]; logNames: string[]; stepMin?: number }; text: Promise<string> }[] = [];
  const open = (path: string) => page.goto(new URL(path, test.url).toString());
  const panel = (id: string) => page.locator(`[data-testid=workspace] .ws-panel[data-panel='${id}']`);
  // A run's colour on the project page: the one its table swatch shows (the page colours its runs as a set).
  const colourOf = async (runId: number) =>
    (await page.locator(`[data-testid=runs-table] tr[data-run-id='${runId}'] .swatch`).getAttribute("data-color"))!;
  const drawn = async (id: string) => {
    await panel(id).scrollIntoViewIfNeeded();
    const canvas = panel(id).locator(".chart-canvas[data-drawn=true]");
    await canvas.waitFor();
    return canvas;
  };

  const seed = async (name: string, lines: MetricLine[], status: string | null = "COMPLETED") => {
    const run = await client.createRun({ projectName: PROJECT, runName: name });
    ids[name] = run.runId;
    for (let i = 0; i < lines.length; i += 1000)
      assert.equal((await ingest(client, "metrics", run, toNdjson(lines.slice(i, i + 1000)))).status, 200);
    if (status) await client.post("/api/runs/status/update", { runId: run.runId, status });
    return run;
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    const org = await makeOrg(test);
    client = org.client;
    // An accuracy with a NaN at step 50, +Inf at 100 and -Inf at 150.
    const kinds = new Map([
      [50, Number.NaN],
      [100, Infinity],
      [150, -Infinity],
    ]);
    await seed(
      NAN_RUN,
      Array.from({ length: 200 }, (_, step) => ({
        step,
        time: T0 + step * 1000,
        data: { "marks/acc": kinds.get(step) ?? 0.5 + step / 400 },
      })),
    );
    // 1,500 steps, stopped, resumed three days later for 1,500 more (downsampled: a min/max band).
    const segment = (from: number, start: number) =>
      Array.from({ length: 1500 }, (_, i) => ({
        step: from + i,
        time: start + i * 10_000,
        data: { "time/loss": 2 * Math.exp(-(from + i) / 800) + 0.1 * Math.sin(i / 7) },
      }));
    const resumed = await seed("resumed", segment(0, T0), null);
    assert.equal((await client.post("/api/runs/resume", { runId: resumed.runId })).status, 200);
    for (const [i, lines] of [segment(1500, T0 + 3 * DAY).slice(0, 1000), segment(1500, T0 + 3 * DAY).slice(1000)].entries())
      assert.equal((await ingest(client, "metrics", resumed, toNdjson(lines))).status, 200, `segment 2, part ${i}`);
    await client.post("/api/runs/status/update", { runId: resumed.runId, status: "COMPLETED" });
    // 500 steps near 1, with two spikes up and one down.
    const spikes = new Map([
      [100, 1e6],
      [300, 2e6],
      [400, -5e5],
    ]);
    await seed(
      "spiky",
      Array.from({ length: 500 }, (_, step) => ({
        step,
        time: T0 + step * 1000,
        data: { "marks/spiky": spikes.get(step) ?? 1 + 0.2 * Math.sin(step / 10) },
      })),
    );
    // RUNNING: the workspace refreshes it every 5 s.
    await seed(
      "live",
      Array.from({ length: 1000 }, (_, step) => ({ step, time: T0 + step * 1000, data: { "live/loss": 1 / (step + 1) } })),
      null,
    );
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    // Recorded as sent (an answer's text comes later, when the test needs it).
    page.on("request", (request) => {
      if (new URL(request.url()).pathname !== "/api/runs/metrics/batch") return;
      const text = request.response().then((response) => response?.text() ?? "");
      text.catch(() => {});
      batches.push({ body: JSON.parse(request.postData() ?? "{}"), text });
    });
    await open("/projects");
    await page.evaluate((key) => localStorage.setItem("stepwise.apiKey", key), org.key);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("draws NaN, +Inf and -Inf as marks in a labelled lane above the plot, in the run's colour, none at its floor", async () => {
    await open(`/projects/${PROJECT}`);
    const canvas = await drawn("marks/acc");
    const [left, top, width, height] = await plotBox(canvas);
    const marks = (await canvas.getAttribute("data-lane-marks"))!.split(";").map((mark) => mark.split(" "));
    assert.deepEqual(marks.map(([kind]) => kind).sort(), ["+Inf", "-Inf", "NaN"], "one mark per kind");
    const color = rgbOf(await colourOf(ids[NAN_RUN]!));
    for (const [kind, x, y] of marks) {
      assert.ok(Number(y) < top - 4, `${kind} in the lane above the plot (y ${y}, plot from ${top})`);
      assert.ok(Number(x) > left && Number(x) < left + width);
      const [pixel] = await pixels(canvas, [[Number(x), Number(y)]]);
      assert.ok(distance(pixel!, color) < 40, `${kind} drawn in the run's colour: ${pixel} vs ${color}`);
    }
    // The marks sit at their steps: NaN (50) left of +Inf (100) left of -Inf (150).
    const xOf = (kind: string) => Number(marks.find(([k]) => k === kind)![1]);
    assert.ok(xOf("NaN") < xOf("+Inf") && xOf("+Inf") < xOf("-Inf"));
    // Nothing in the run's colour along the plot's floor or ceiling at the marks' x (the old markers' places).
    const edges: [number, number][] = marks.flatMap(([, x]) =>
      [1, 3, 5, 7].flatMap((d): [number, number][] => [
        [Number(x), top + height - d],
        [Number(x), top + d],
      ]),
    );
    for (const pixel of await pixels(canvas, edges)) assert.ok(distance(pixel, color) > 60, `no mark at the plot's edge: ${pixel}`);
    await shot(page, "60-nonfinite-lane-workspace");

    // The run page's chart draws the same lane.
    await open(`/projects/${PROJECT}/runs/${ids[NAN_RUN]}`);
    const runCanvas = page.locator(".chart-card[data-metric='marks/acc'] .chart-canvas[data-drawn=true]");
    await runCanvas.waitFor();
    const runTop = (await plotBox(runCanvas))[1];
    const runMarks = (await runCanvas.getAttribute("data-lane-marks"))!.split(";");
    assert.equal(runMarks.length, 3);
    for (const mark of runMarks) assert.ok(Number(mark.split(" ")[2]) < runTop - 4, `in the lane: ${mark}`);
    await shot(page, "61-nonfinite-lane-run-page");
    assert.deepEqual(errors, []);
  });

  it("draws no line or band across a resumed run's three-day gap on a time axis", async () => {
    await open(`/projects/${PROJECT}`);
    await drawn("time/loss");
    await panel("time/loss").getByLabel("x axis").selectOption("wall");
    const canvas = panel("time/loss").locator(".chart-canvas[data-drawn=true]");
    await page.waitForFunction(
      () => document.querySelector(".ws-panel[data-panel='time/loss'] .chart-canvas")?.getAttribute("data-bands") === "2",
      undefined,
      { timeout: 10_000 },
    );
    const [left, top, width, height] = await plotBox(canvas);
    const color = await colourOf(ids.resumed!);
    const line = rgbOf(color);
    // The band is the run's colour at alpha 0x26 over white.
    const band = line.map((channel) => Math.round(channel * (0x26 / 255) + 255 * (1 - 0x26 / 255)));
    // Each segment takes ~4 hours of a ~3.2-day axis: the middle third of the plot is all gap.
    const column: [number, number][] = [];
    for (const share of [0.35, 0.5, 0.65]) for (let y = top + 1; y < top + height - 1; y++) column.push([left + width * share, y]);
    const inGap = await pixels(canvas, column);
    const crossing = inGap.filter((pixel) => distance(pixel, line) < 60 || distance(pixel, band) < 6);
    assert.equal(crossing.length, 0, `nothing of the run (${color}) drawn in the gap: ${JSON.stringify(crossing.slice(0, 5))}`);
    // The segments themselves are drawn: the run's colour near the plot's left and right ends.
    const ends: [number, number][] = [];
    for (const share of [0.01, 0.03, 0.97, 0.99]) for (let y = top + 1; y < top + height - 1; y++) ends.push([left + width * share, y]);
    const drawnEnds = await pixels(canvas, ends);
    const perEnd = drawnEnds.length / 4;
    for (let end = 0; end < 4; end++)
      assert.ok(
        drawnEnds.slice(end * perEnd, (end + 1) * perEnd).some((pixel) => distance(pixel, line) < 60),
        `a segment drawn at end ${end}`,
      );
    await shot(page, "62-resumed-gap-wall-time");

    // The run page against time: the line breaks there too.
    await open(`/projects/${PROJECT}/runs/${ids.resumed}`);
    await page.locator(".toolbar select").first().selectOption("time");
    const runCanvas = page.locator(".chart-card[data-metric='time/loss'] .chart-canvas[data-drawn=true]");
    await runCanvas.waitFor();
    const [runLeft, runTop, runWidth, runHeight] = await plotBox(runCanvas);
    const middle: [number, number][] = [];
    for (let y = runTop + 1; y < runTop + runHeight - 1; y++) middle.push([runLeft + runWidth / 2, y]);
    const crossed = (await pixels(runCanvas, middle)).filter((pixel) => distance(pixel, line) < 60);
    assert.equal(crossed.length, 0, "no line across the gap on the run page");
    await shot(page, "63-resumed-gap-run-page");
    await page.locator(".toolbar select").first().selectOption("step");
  });

  it("clips the y range to the bulk of the data on request and counts the points outside", async () => {
    await open(`/projects/${PROJECT}`);
    const canvas = await drawn("marks/spiky");
    const ticksOf = async (chart: Locator) =>
      (await chart.getAttribute("data-y-ticks"))!.split(" ").map((tick) => Number(tick.replaceAll(",", "")));
    const maxTick = async () => Math.max(...(await ticksOf(canvas)));
    assert.ok((await maxTick()) >= 1e6, "unclipped, the spikes set the range");
    assert.equal(await panel("marks/spiky").getByTestId("chart-outside").count(), 0);
    await panel("marks/spiky").getByTestId("panel-menu").click();
    await panel("marks/spiky").getByTestId("panel-clip").check();
    await page.waitForFunction(
      () => document.querySelector(".ws-panel[data-panel='marks/spiky'] .chart-canvas")?.getAttribute("data-outside") === "3",
    );
    const clipped = panel("marks/spiky").locator(".chart-canvas[data-drawn=true]");
    const ticks = await ticksOf(clipped);
    assert.ok(Math.max(...ticks) < 2 && Math.min(...ticks) > 0, `the bulk's range (0.8 to 1.2 and a margin): ${ticks}`);
    assert.equal(
      await panel("marks/spiky").getByTestId("chart-outside").innerText(),
      "3 points outside the clipped range (2 above, 1 below)",
    );
    // An arrow in the run's colour at the top edge above step 100.
    const [left, top, width] = await plotBox(clipped);
    const color = rgbOf(await colourOf(ids.spiky!));
    const atTop = await pixels(
      clipped,
      [2, 3, 4, 5, 6].map((d) => [left + (width * 100) / 499, top + d]),
    );
    assert.ok(
      atTop.some((pixel) => distance(pixel, color) < 40),
      `an arrow at the top edge: ${JSON.stringify(atTop)}`,
    );
    await shot(page, "64-clipped-y");
    await panel("marks/spiky").getByTestId("panel-menu").click(); // closed again
    // The option is the panel's, kept with the layout.
    await page.reload();
    assert.equal(await panel("marks/spiky").getByTestId("panel-clip").isChecked(), true);
  });

  it("saves a panel as PNG (title, chart, legend) and its drawn points as CSV", async () => {
    await open(`/projects/${PROJECT}`);
    const canvas = await drawn("marks/acc");
    await panel("marks/acc").getByTestId("panel-menu").click();
    const [png] = await Promise.all([page.waitForEvent("download"), panel("marks/acc").getByTestId("panel-png").click()]);
    assert.equal(png.suggestedFilename(), "marks_acc.png");
    await png.saveAs(`${SCREENSHOTS}66-exported-panel.png`);
    const image = readFileSync((await png.path())!);
    assert.deepEqual([...image.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG signature");
    const [pngWidth, pngHeight] = [image.readUInt32BE(16), image.readUInt32BE(20)];
    const size = await canvas.locator("canvas").evaluate((element: HTMLCanvasElement) => [element.width, element.height]);
    assert.equal(pngWidth, size[0]);
    assert.ok(pngHeight > size[1]! + 20, `the chart with its title and legend: ${pngHeight} > ${size[1]}`);

    const [csv] = await Promise.all([page.waitForEvent("download"), panel("marks/acc").getByTestId("panel-csv").click()]);
    assert.equal(csv.suggestedFilename(), "marks_acc.csv");
    const rows = readFileSync((await csv.path())!, "utf8").split("\r\n");
    assert.equal(rows[0], "run_name,run_id,metric,step,time,value");
    assert.equal(rows.at(-1), "", "ends with a line break");
    assert.equal(rows.length, 1 + 200 + 1, "every drawn point");
    const id = ids[NAN_RUN];
    const name = `"'=nan, ""run"""`; // quoted, quotes doubled, the formula defused
    assert.equal(rows[1], `${name},${id},marks/acc,0,2026-01-05T09:00:00.000Z,0.5`);
    assert.equal(rows[51], `${name},${id},marks/acc,50,2026-01-05T09:00:50.000Z,NaN`);
    assert.equal(rows[101], `${name},${id},marks/acc,100,2026-01-05T09:01:40.000Z,Inf`);
    assert.equal(rows[151], `${name},${id},marks/acc,150,2026-01-05T09:02:30.000Z,-Inf`);
    assert.deepEqual(errors, []);
  });

  it("refreshes a live run by reading only its new steps", async () => {
    await open(`/projects/${PROJECT}`);
    const canvas = await drawn("live/loss");
    assert.equal(await canvas.getAttribute("data-points"), "1000");
    const live = ids.live!;
    const readsOfLive = () => batches.filter((batch) => batch.body.runIds.includes(live) && batch.body.logNames.includes("live/loss"));
    const before = readsOfLive().length;
    const run = { runId: live, projectName: PROJECT };
    const lines = Array.from({ length: 10 }, (_, i) => ({ step: 1000 + i, time: T0 + (1000 + i) * 1000, data: { "live/loss": 5 } }));
    assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
    // The refreshes until one brings step 1009 (a refresh every 5 s).
    const deadline = Date.now() + 20_000;
    const answers: string[] = [];
    while (!answers.some((text) => text.includes("1009"))) {
      assert.ok(Date.now() < deadline, "a refresh brought the new steps");
      await page.waitForTimeout(250);
      answers.splice(
        0,
        answers.length,
        ...(await Promise.all(
          readsOfLive()
            .slice(before)
            .map((read) => read.text),
        )),
      );
    }
    const ticks = readsOfLive().slice(before);
    for (const [i, tick] of ticks.entries()) {
      assert.equal(tick.body.stepMin, 999, "from the last step loaded");
      const answer = JSON.parse(answers[i]!) as { series: { runId: number; steps: number[] }[] };
      for (const series of answer.series.filter((one) => one.runId === live))
        assert.ok(series.steps.length <= 11 && series.steps.every((step) => step >= 999), `only new steps: ${series.steps}`);
      assert.ok(answers[i]!.length < 2000, `a small answer: ${answers[i]!.length} bytes`);
    }
    // Appended: every point drawn, the 1,000 loaded and the 10 new.
    await page.waitForFunction(
      () => document.querySelector(".ws-panel[data-panel='live/loss'] .chart-canvas")?.getAttribute("data-points") === "1010",
    );
    await shot(page, "65-live-append");
    assert.deepEqual(errors, []);
  });
});
