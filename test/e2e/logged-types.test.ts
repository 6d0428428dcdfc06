/**
 * Every logged type has a view, end to end in headless Chromium against a real server: histograms,
 * tables, a string series, a graph and images logged through the API the way the pluto-ml client
 * sends them (its log-name registrations, then `/ingest/data` rows whose `data` is
 * `Histogram.to_dict()` / `Table.to_dict()` as JSON text, a string series un-wrapped, and images
 * through `POST /files`). The run page shows a tab per kind (a heatmap drawn on its canvas and the
 * distribution at a picked step; a table sorted by a header click, at a picked step; text by step;
 * images by step; a text file's start, bounded); a malformed histogram or table is an error note
 * for its entry, not a crash; a name registered with nothing stored says so; a series
 * longer than the first read is sampled to its last step. The workspace shows each shown run's
 * latest distribution and table, and each run's image at a step picked across the runs.
 * Screenshots go to test-output/ui-screenshots/ (60-…).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import type { Browser, Locator, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "logged";
/** A project whose 24 metric panels put the workspace's Logged data far below the pane's view. */
const CROWDED = "crowded";
const T0 = 1_700_000_000_000;
/** Longer than the run page reads whole (1,000 steps): sampled. */
const LONG_SERIES = 5000;

type Run = { runId: number; projectName: string };

/** CRC-32 of PNG chunks (ISO 3309). */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A solid-colour 8 × 8 PNG, so each step's image is told apart by its pixels. */
function solidPng([r, g, b]: [number, number, number]): Buffer {
  const size = 8;
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const raw = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) raw.set([r, g, b], y * (size * 3 + 1) + 1 + x * 3);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** pluto-ml's Histogram(...).to_dict() of 16 uniform bins: a bump whose centre moves with the step. */
function histogramOf(step: number, steps: number) {
  const centre = 2 + (11 * step) / Math.max(1, steps - 1);
  const freq = Array.from({ length: 16 }, (_, bin) => Math.round(100 * Math.exp(-((bin - centre) ** 2) / 4)));
  return { freq, maxFreq: Math.max(...freq), bins: { min: -1, max: 1, num: 16 }, shape: "uniform", type: "Histogram", v: 1 };
}

/** pluto-ml's Table(dataframe=...).to_dict(): columns with their dtypes, one row per sample. */
function tableOf(step: number) {
  const labels = ["cat", "dog", "bird", "a very long label that does not fit in its column and is shown whole on hover"];
  const table = labels.map((label, i) => [label, Number((((i + 1) * 0.37 + step / 100) % 1).toFixed(3)), i + step]);
  return {
    table,
    col: [
      { name: "label", dtype: "str" },
      { name: "score", dtype: "float" },
      { name: "index", dtype: "int" },
    ],
    type: "Table",
    v: 1,
  };
}

/** A data row as pluto-ml's sync process writes it: `data` is JSON text, a string series' raw text. */
const dataRow = (logName: string, dataType: string, step: number, data: unknown) =>
  JSON.stringify({ time: T0 + step, data: typeof data === "string" ? data : JSON.stringify(data), dataType, logName, step });

async function addLogNames(client: ApiClient, run: Run, logType: string, logName: string[]) {
  assert.equal((await client.post("/api/runs/logName/add", { runId: run.runId, logName, logType })).status, 200);
}

/** A file through POST /files and its upload URL, as pluto-ml's sync process sends one (a bare extension as its type). */
async function uploadFile(client: ApiClient, run: Run, logName: string, step: number, fileName: string, fileType: string, bytes: Buffer) {
  const registered = await client.raw(
    "POST",
    "/files",
    JSON.stringify({ files: [{ fileName, fileType, fileSize: bytes.length, logName, step, time: T0 + step }] }),
    { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": PROJECT },
  );
  assert.equal(registered.status, 200);
  const url = Object.values(registered.body[logName][0] as Record<string, string>)[0]!;
  const upload = await fetch(url, { method: "PUT", body: new Uint8Array(bytes) });
  await upload.arrayBuffer();
  assert.equal(upload.status, 200);
}

const uploadImage = (client: ApiClient, run: Run, logName: string, step: number, png: Buffer) =>
  uploadFile(client, run, logName, step, `${logName}-${step}.png`, "png", png);

/** A text file longer than the preview's 64 KiB: its first line is shown, its last is not. */
const NOTES = Buffer.from(Array.from({ length: 7000 }, (_, i) => `line ${String(i).padStart(4, "0")}\n`).join(""));

const RED: [number, number, number] = [220, 30, 30];
const GREEN: [number, number, number] = [30, 200, 60];
const BLUE: [number, number, number] = [30, 60, 220];

describe("every logged type has a view", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let alpha: Run;
  let beta: Run;
  let crowded: Run;
  const errors: string[] = [];
  const detailsReads: string[] = [];
  const dataReads: URL[] = [];
  const open = (path: string) => page.goto(new URL(path, test.url).toString());
  const shot = (target: Page | Locator, name: string) => target.screenshot({ path: `${SCREENSHOTS}${name}.png` });
  const card = (scope: string, logName: string) => page.locator(`${scope} .logged-card[data-log-name='${logName}']`);
  const slider = (within: Locator) => within.locator(".step-slider input[type=range]");
  const cells = (table: Locator, column: number) =>
    table.locator("tbody tr").evaluateAll((rows, c) => rows.map((row) => row.querySelectorAll("td")[c]!.textContent), column);
  /** The colour of a shown image's centre, once it has loaded (same origin: the canvas is readable). */
  const pixelOf = async (image: Locator) => {
    await image.evaluate((img: HTMLImageElement) => img.decode());
    return image.evaluate((img: HTMLImageElement) => {
      const canvas = document.createElement("canvas");
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const context = canvas.getContext("2d")!;
      context.drawImage(img, 0, 0);
      return [...context.getImageData(4, 4, 1, 1).data.slice(0, 3)];
    });
  };
  const inkedPixels = (canvas: Locator) =>
    canvas.evaluate((element: HTMLCanvasElement) => {
      const { data } = element.getContext("2d")!.getImageData(0, 0, element.width, element.height);
      let inked = 0;
      // The blank colour is rgb(239, 246, 255); drawn cells are darker.
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 200) inked++;
      return inked;
    });

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer();
    const org = await makeOrg(test);
    const client = org.client;
    alpha = await client.createRun({ projectName: PROJECT, runName: "alpha" });
    beta = await client.createRun({ projectName: PROJECT, runName: "beta" });
    for (const run of [alpha, beta]) {
      // pluto-ml registers each new name first (a string series as DATA), then sends its rows.
      await addLogNames(client, run, "HISTOGRAM", ["weights/hist"]);
      await addLogNames(client, run, "TABLE", ["eval/predictions"]);
      await addLogNames(client, run, "DATA", ["phase"]);
      await addLogNames(client, run, "IMAGE", ["samples"]);
    }
    const alphaRows = [
      ...Array.from({ length: 30 }, (_, step) => dataRow("weights/hist", "HISTOGRAM", step, histogramOf(step, 30))),
      dataRow("eval/predictions", "TABLE", 0, tableOf(0)),
      dataRow("eval/predictions", "TABLE", 10, tableOf(10)),
      ...["warmup", "warmup", "train", "train", "eval", "done"].map((phase, step) => dataRow("phase", "string-series", step, phase)),
      dataRow("model/graph", "GRAPH", 0, { nodes: { conv1: { type: "Conv2d" } }, edges: {} }),
      // Not a histogram pluto-ml would send: 3 edges for 4 counts.
      dataRow("broken/hist", "HISTOGRAM", 4, { freq: [1, 2, 3, 4], bins: [0, 1, 2], shape: "generic" }),
      dataRow("broken/table", "TABLE", 2, { table: "not rows" }),
    ];
    assert.equal((await ingest(client, "data", alpha, alphaRows.join("\n"))).status, 200);
    const betaRows = [
      ...Array.from({ length: LONG_SERIES }, (_, step) => dataRow("weights/hist", "HISTOGRAM", step, histogramOf(step, LONG_SERIES))),
      dataRow("eval/predictions", "TABLE", 3, tableOf(3)),
      dataRow("phase", "string-series", 0, "warmup"),
    ];
    assert.equal((await ingest(client, "data", beta, betaRows.join("\n"))).status, 200);
    await uploadImage(client, alpha, "samples", 0, solidPng(RED));
    await uploadImage(client, alpha, "samples", 5, solidPng(GREEN));
    await uploadImage(client, beta, "samples", 2, solidPng(BLUE));
    await uploadFile(client, alpha, "notes", 0, "notes.txt", "txt", NOTES);
    // pluto-ml's Audio and Video: listed as AUDIO and VIDEO by their file types; a player each.
    await addLogNames(client, alpha, "AUDIO", ["sounds"]);
    await addLogNames(client, alpha, "VIDEO", ["clips"]);
    await uploadFile(client, alpha, "sounds", 3, "sounds-3.wav", "wav", Buffer.from("RIFF----WAVEfmt "));
    await uploadFile(client, alpha, "clips", 3, "clips-3.mp4", "mp4", Buffer.from("....ftypisom"));
    // Registered, never stored: the name is listed with a word saying so.
    await addLogNames(client, alpha, "FILE", ["checkpoints"]);

    crowded = await client.createRun({ projectName: CROWDED, runName: "many-metrics" });
    const metricLines = Array.from({ length: 20 }, (_, step) => ({
      step,
      data: Object.fromEntries(Array.from({ length: 24 }, (_, m) => [`group${String(m).padStart(2, "0")}/m`, step + m])),
    }));
    assert.equal((await ingest(client, "metrics", crowded, toNdjson(metricLines))).status, 200);
    assert.equal((await ingest(client, "data", crowded, dataRow("weights/hist", "HISTOGRAM", 7, histogramOf(7, 10)))).status, 200);

    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/runs/details/")) detailsReads.push(path);
      if (path === "/api/runs/data") dataReads.push(new URL(request.url()));
    });
    await open("/projects");
    await page.evaluate((key) => localStorage.setItem("stepwise.apiKey", key), org.key);
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("shows a run's histograms as a drawn heatmap and the distribution at a picked step, and a malformed one as an error note", async () => {
    await open(`/projects/${PROJECT}/runs/${alpha.runId}`);
    await page.getByRole("tab", { name: "Lineage" }).waitFor();
    const tabs = await page.locator("nav.tabs [role=tab]").allInnerTexts();
    assert.deepEqual(tabs.slice(0, 8), ["Charts", "Logs", "Histograms", "Tables", "Text", "Media", "Other logs", "Files"]);
    await page.getByRole("tab", { name: "Histograms" }).click();
    const weights = card("[data-testid=logged-histograms]", "weights/hist");
    const canvas = weights.locator("canvas[data-drawn=true]");
    await canvas.waitFor();
    assert.equal(await canvas.getAttribute("data-columns"), "30", "one column per step");
    assert.ok((await inkedPixels(canvas)) > 500, "the heatmap has drawn cells");
    // The last step first; the slider's start shows step 0's counts.
    const distribution = weights.getByTestId("distribution");
    assert.equal(await weights.getByTestId("picked-step").innerText(), "29");
    assert.equal(await distribution.getAttribute("data-counts"), histogramOf(29, 30).freq.join(","));
    await slider(weights).focus();
    await page.keyboard.press("Home");
    assert.equal(await weights.getByTestId("picked-step").innerText(), "0");
    assert.equal(await distribution.getAttribute("data-counts"), histogramOf(0, 30).freq.join(","));
    assert.equal(await distribution.locator("rect").count(), 16);
    // Hovering the heatmap tells the cell; a click on a column picks its step (the middle one, 15).
    const box = (await canvas.boundingBox())!;
    await canvas.hover({ position: { x: box.width * (15.5 / 30), y: box.height - 2.5 } });
    assert.match(await weights.getByTestId("heatmap-readout").innerText(), /^step 15 · \[-1, -0\.95833\): .*% of its samples$/);
    await canvas.click({ position: { x: box.width * (15.5 / 30), y: box.height / 2 } });
    assert.equal(await weights.getByTestId("picked-step").innerText(), "15");
    assert.equal(await distribution.getAttribute("data-counts"), histogramOf(15, 30).freq.join(","));
    // The malformed entry: an error note naming why, the rest of the page unharmed.
    const broken = card("[data-testid=logged-histograms]", "broken/hist");
    assert.match(await broken.getByTestId("invalid-entries").innerText(), /step 4 could not be read: 3 bin edges for 4 counts/);
    await shot(page, "60-run-histograms");
    assert.deepEqual(errors, []);
  });

  it("samples a series longer than the first read to its last step, reading a bounded part of it", async () => {
    dataReads.length = 0;
    await open(`/projects/${PROJECT}/runs/${beta.runId}?tab=histograms`);
    const weights = card("[data-testid=logged-histograms]", "weights/hist");
    await weights.locator("canvas[data-drawn=true]").waitFor();
    assert.match(await weights.getByTestId("sampled-note").innerText(), /^1,500 of 5,000 steps read, the last one among them/);
    assert.equal(await weights.getByTestId("picked-step").innerText(), "4,999", "the newest step is read");
    // The first 1,000 rows; one-row probes for the count: doubling past the end (2,000, 4,000, 8,000),
    // then halving the last gap of 4,000 (12); 20 chunks of 25 rows.
    const rowsAsked = dataReads.reduce((sum, url) => sum + Number(url.searchParams.get("limit")), 0);
    assert.ok(dataReads.length <= 1 + 15 + 20, `${dataReads.length} data reads`);
    assert.ok(rowsAsked <= 1000 + 15 + 20 * 25, `${rowsAsked} rows asked for, of 5,000`);
    assert.equal(await weights.locator("canvas").getAttribute("data-columns"), "300", "sampled to 300 columns");
    assert.equal(
      await weights.getByTestId("distribution").getAttribute("data-counts"),
      histogramOf(LONG_SERIES - 1, LONG_SERIES).freq.join(","),
    );
  });

  it("shows a run's table as a grid sorted by a header click, at a picked step, long text whole on hover", async () => {
    await open(`/projects/${PROJECT}/runs/${alpha.runId}?tab=tables`);
    const predictions = card("[data-testid=logged-tables]", "eval/predictions");
    const table = predictions.getByTestId("logged-table");
    await table.waitFor();
    assert.equal(await predictions.getByTestId("picked-step").innerText(), "10");
    const atTen = tableOf(10).table;
    assert.deepEqual(
      await cells(table, 0),
      atTen.map((row) => row[0]),
    );
    await table.getByRole("button", { name: "score" }).click();
    const ascending = [...atTen].sort((a, b) => (a[1] as number) - (b[1] as number));
    assert.deepEqual(
      await cells(table, 0),
      ascending.map((row) => row[0]),
    );
    assert.equal(await table.locator("th[aria-sort=ascending]").innerText(), "score ▲");
    await table.getByRole("button", { name: /score/ }).click();
    assert.deepEqual(
      await cells(table, 0),
      [...ascending].reverse().map((row) => row[0]),
    );
    // The long label: cut with an ellipsis, its whole text the cell's title.
    const long = table.locator("td", { hasText: "a very long label" });
    await long.scrollIntoViewIfNeeded();
    assert.equal(await long.getAttribute("title"), tableOf(10).table[3]![0]);
    assert.ok(await long.evaluate((td) => td.scrollWidth > td.clientWidth), "the long text is cut, not the column widened");
    await shot(page, "61-run-tables");
    // The step picker: the table logged at step 0, still sorted by score, descending.
    await slider(predictions).focus();
    await page.keyboard.press("Home");
    assert.equal(await predictions.getByTestId("picked-step").innerText(), "0");
    const atZero = [...tableOf(0).table].sort((a, b) => (b[1] as number) - (a[1] as number));
    assert.deepEqual(
      await cells(table, 1),
      atZero.map((row) => String(row[1])),
    );
    assert.deepEqual(
      await cells(table, 2),
      atZero.map((row) => String(row[2])),
    );
  });

  it("shows a string series as text by step, and a data type without a view as its text", async () => {
    await open(`/projects/${PROJECT}/runs/${alpha.runId}?tab=text`);
    const phase = card("[data-testid=logged-text]", "phase");
    await phase.getByTestId("text-series").waitFor();
    assert.deepEqual(await phase.locator(".text-value").allInnerTexts(), ["warmup", "warmup", "train", "train", "eval", "done"]);
    assert.deepEqual(await phase.locator(".text-step").allInnerTexts(), ["step 0", "step 1", "step 2", "step 3", "step 4", "step 5"]);
    const graph = card("[data-testid=logged-text]", "model/graph");
    await graph.locator("summary").click();
    assert.match(await graph.locator("summary").innerText(), /^GRAPH · .* \(no view for this data type: its text\)$/);
    assert.match(await graph.locator("pre").innerText(), /"Conv2d"/);
    // A text file: its start previewed, bounded to 64 KiB, the rest left to the download.
    const notes = card("[data-testid=logged-text]", "notes").getByTestId("text-preview");
    await notes.locator("pre").waitFor();
    const preview = await notes.locator("pre").innerText();
    assert.ok(preview.startsWith("line 0000\nline 0001\n"), preview.slice(0, 40));
    assert.ok(!preview.includes("line 6999"), "the end of the file is past the preview");
    assert.equal(preview.length, 64 * 1024);
    assert.match(await notes.innerText(), /The first 65\.5 KB of 70\.0 KB; download for the rest/);
    await shot(page, "62-run-text");
  });

  it("lists a name with no view or nothing stored, never leaving it out", async () => {
    await open(`/projects/${PROJECT}/runs/${alpha.runId}?tab=other-logs`);
    const checkpoints = card("[data-testid=logged-other-logs]", "checkpoints");
    assert.match(await checkpoints.locator("h3").innerText(), /checkpoints\s+FILE/);
    assert.equal(
      await checkpoints.getByTestId("nothing-stored").innerText(),
      "The run names checkpoints, but nothing is stored under it yet.",
    );
  });

  it("shows a run's images by step", async () => {
    await open(`/projects/${PROJECT}/runs/${alpha.runId}?tab=media`);
    const samples = card("[data-testid=logged-media]", "samples");
    const image = samples.locator("img");
    await page.waitForFunction(
      () => (document.querySelector("[data-testid=logged-media] img") as HTMLImageElement | null)?.naturalWidth === 8,
    );
    assert.equal(await samples.getByTestId("picked-step").innerText(), "5");
    assert.match((await image.getAttribute("src"))!, /samples-5\.png/);
    assert.deepEqual(await pixelOf(image), GREEN);
    await slider(samples).focus();
    await page.keyboard.press("Home");
    assert.match((await image.getAttribute("src"))!, /samples-0\.png/);
    assert.deepEqual(await pixelOf(image), RED, "step 0's image is shown");
    const sound = card("[data-testid=logged-media]", "sounds").locator("audio[controls]");
    assert.match((await sound.getAttribute("src"))!, /sounds-3\.wav/);
    const clip = card("[data-testid=logged-media]", "clips").locator("video[controls]");
    assert.match((await clip.getAttribute("src"))!, /clips-3\.mp4/);
    await shot(page, "63-run-media");
    assert.deepEqual(errors, []);
  });

  it("shows each shown run's latest histogram and table in the workspace, and its image at a step picked across the runs", async () => {
    await open(`/projects/${PROJECT}`);
    const logged = page.getByTestId("workspace-logged");
    await logged.waitFor();
    const sections = await logged.locator("details[data-section]").evaluateAll((list) => list.map((d) => d.getAttribute("data-section")));
    assert.deepEqual(sections, ["logged-media", "logged-histograms", "logged-tables", "logged-text", "logged-other-logs"]);
    // Histograms: each run's newest distribution (beta's found past its first 50 rows), in its colour.
    const weights = card("[data-testid=workspace-logged]", "weights/hist");
    const ofRun = (scope: Locator, run: Run) => scope.locator(`.logged-run[data-run-id='${run.runId}']`);
    await ofRun(weights, beta).getByTestId("distribution").waitFor();
    assert.equal(await ofRun(weights, alpha).getByTestId("distribution").getAttribute("data-counts"), histogramOf(29, 30).freq.join(","));
    assert.equal(
      await ofRun(weights, beta).getByTestId("distribution").getAttribute("data-counts"),
      histogramOf(LONG_SERIES - 1, LONG_SERIES).freq.join(","),
    );
    assert.match(await ofRun(weights, beta).innerText(), /step 4,999/);
    // Tables: each run's newest table, sortable.
    const predictions = card("[data-testid=workspace-logged]", "eval/predictions");
    const betaTable = ofRun(predictions, beta).getByTestId("logged-table");
    await betaTable.waitFor();
    assert.deepEqual(
      await cells(betaTable, 0),
      tableOf(3).table.map((row) => row[0]),
    );
    assert.deepEqual(
      await cells(ofRun(predictions, alpha).getByTestId("logged-table"), 0),
      tableOf(10).table.map((row) => row[0]),
    );
    await betaTable.getByRole("button", { name: "label" }).click();
    assert.deepEqual(await cells(betaTable, 0), [
      "a very long label that does not fit in its column and is shown whole on hover",
      "bird",
      "cat",
      "dog",
    ]);
    // Media: the steps of both runs; at step 5 alpha shows its step-5 image and beta its latest by then (step 2).
    const samples = card("[data-testid=workspace-logged]", "samples");
    await page.waitForFunction(() =>
      [...document.querySelectorAll("[data-testid=workspace-logged] .logged-card[data-log-name=samples] img")].every(
        (img) => (img as HTMLImageElement).naturalWidth === 8,
      ),
    );
    assert.equal(await samples.getByTestId("picked-step").innerText(), "5");
    assert.match((await ofRun(samples, alpha).locator("img").getAttribute("src"))!, /samples-5\.png/);
    assert.match((await ofRun(samples, beta).locator("img").getAttribute("src"))!, /samples-2\.png/);
    assert.match(await ofRun(samples, beta).innerText(), /its latest by then: step 2/);
    await slider(samples).focus();
    await page.keyboard.press("Home");
    assert.equal(await samples.getByTestId("picked-step").innerText(), "0");
    assert.match((await ofRun(samples, alpha).locator("img").getAttribute("src"))!, /samples-0\.png/);
    assert.deepEqual(await pixelOf(ofRun(samples, alpha).locator("img")), RED);
    assert.match(await ofRun(samples, beta).innerText(), /nothing by step 0/);
    await page.keyboard.press("End");
    // The workspace pane scrolls on its own: a tall window holds the whole section for the picture.
    await page.setViewportSize({ width: 1280, height: 2200 });
    await logged.evaluate((element) => element.scrollIntoView({ block: "start" }));
    await shot(page, "64-workspace-logged");
    assert.deepEqual(errors, []);
  });

  it("reads the workspace's logged data only once that section nears view, so the first charts do not wait on it", async () => {
    detailsReads.length = 0;
    await open(`/projects/${CROWDED}`);
    const firstPanel = page.locator("[data-testid=workspace] .ws-panel .chart-canvas[data-drawn=true]").first();
    await firstPanel.waitFor();
    const pending = page.getByTestId("workspace-logged-pending");
    await pending.waitFor({ state: "attached" });
    await page.waitForTimeout(300); // a window for a read that should not come: nothing to await
    assert.deepEqual(detailsReads, [], "no run details read while Logged data is out of view");
    // Scrolled to the end of the workspace pane: the section reads its runs and shows the histogram.
    await page.locator(".workspace-pane").evaluate((pane) => {
      pane.scrollTop = pane.scrollHeight;
    });
    const weights = card("[data-testid=workspace-logged]", "weights/hist");
    await weights.getByTestId("distribution").waitFor();
    assert.deepEqual(detailsReads, [`/api/runs/details/${crowded.runId}`]);
    assert.equal(await weights.getByTestId("distribution").getAttribute("data-counts"), histogramOf(7, 10).freq.join(","));
  });
});
