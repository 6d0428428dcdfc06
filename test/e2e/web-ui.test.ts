/**
 * The web UI end to end: a real server with a real database, seeded over the public API, driven in
 * headless Chromium (Debian's package) the way a person uses it. Each view is saved as a screenshot
 * in test-output/ui-screenshots/ (the path is printed).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { ApiClient } from "../helpers/client.js";
import { launchBrowser } from "../helpers/browser.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const PROJECT = "vision";

type Run = { runId: number; projectName: string };

async function seedRun(client: ApiClient, name: string, lr: number, extra: Record<string, unknown> = {}): Promise<Run> {
  const run = await client.createRun({
    runName: name,
    projectName: PROJECT,
    tags: ["resnet"],
    config: JSON.stringify({ lr, optimizer: { name: "adam", beta: 0.9 }, epochs: 10 }),
    systemMetadata: '{"gpu": "A100"}',
    ...extra,
  });
  const lines = Array.from({ length: 100 }, (_, step) => ({
    step,
    data: {
      "train/loss": 2 * Math.exp(-step / (30 * lr * 10)) + 0.01,
      "train/acc": 1 - Math.exp(-step / 25),
      "val/loss": step === 40 ? NaN : step === 41 ? Infinity : 2.5 * Math.exp(-step / 40),
    },
  }));
  assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
  return run;
}

async function seed(client: ApiClient) {
  const baseline = await seedRun(client, "resnet-baseline", 0.1);
  const lower = await seedRun(client, "resnet-lr-0.01", 0.01);
  await client.post("/api/runs/status/update", { runId: baseline.runId, status: "COMPLETED" });
  await client.post("/api/runs/status/update", { runId: lower.runId, status: "FAILED" });
  const logLines = Array.from({ length: 30 }, (_, i) =>
    JSON.stringify({
      time: 1_700_000_000_000 + i,
      lineNumber: i,
      logType: i % 10 === 9 ? "ERROR" : "INFO",
      message: i % 10 === 9 ? `checkpoint failed ${i}` : `epoch ${i} done`,
    }),
  ).join("\n");
  assert.equal((await ingest(client, "logs", baseline, logLines)).status, 200);
  const registered = await client.raw(
    "POST",
    "/files",
    JSON.stringify({
      files: [
        { fileName: "sample.png", fileType: "image/png", fileSize: PNG.length, logName: "samples", step: 3, time: 1_700_000_000_000 },
      ],
    }),
    {
      "content-type": "application/json",
      "x-run-id": String(baseline.runId),
      "x-project-name": PROJECT,
    },
  );
  assert.equal(registered.status, 200);
  const uploadUrl = Object.values(registered.body.samples[0] as Record<string, string>)[0]!;
  const upload = await fetch(uploadUrl, { method: "PUT", body: PNG, headers: { "content-type": "image/png" } });
  await upload.arrayBuffer();
  assert.equal(upload.status, 200);
  const graph = {
    format: "torch",
    nodes: {
      net: { type: "ResNet", depth: 0, order: 0 },
      conv1: { type: "Conv2d", depth: 1, order: 1, params: { weight: [64, 3, 7, 7] } },
      fc: { type: "Linear", depth: 1, order: 2 },
    },
  };
  assert.equal((await client.post("/api/runs/modelGraph/create", { runId: baseline.runId, graph })).status, 200);
  const fork = await client.createRun({ runName: "resnet-finetune", projectName: PROJECT, forkRunId: baseline.runId, forkStep: 50 });
  return { baseline, lower, fork: { runId: fork.runId as number, projectName: PROJECT } };
}

describe("web UI in headless Chromium", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let key: string;
  let client: ApiClient;
  let runs: Awaited<ReturnType<typeof seed>>;
  const errors: string[] = [];

  // Every view is saved, and must fit the 1280 px window without sideways scrolling.
  const shot = async (name: string) => {
    await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `${name}: the page is wider than the window`,
    );
  };
  const open = (path: string) => page.goto(new URL(path, test.url).toString());

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    console.log(`# screenshots of every view: ${SCREENSHOTS}`);
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    ({ key, client } = await makeOrg(test));
    runs = await seed(client);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    // A Content-Security-Policy violation is only a console message: count it as an error too.
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) errors.push(message.text());
    });
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("serves the app at / and its deep links, and keeps API 404s as JSON", async () => {
    for (const path of ["/", "/projects", `/projects/${PROJECT}/runs/1`, `/projects/${PROJECT}/compare?runIds=1,2`]) {
      const response = await fetch(new URL(path, test.url));
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type") ?? "", /text\/html/, path);
      assert.match(await response.text(), /<div id="app">/, path);
    }
    const missing = await fetch(new URL("/api/nothing", test.url));
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(await missing.json()), ["error"]);
  });

  it("rejects a wrong key with a clear message, then signs in", async () => {
    await open("/");
    await page.getByLabel("API key").fill("sw_not_a_real_key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This API key was rejected").waitFor();
    assert.equal(await page.getByTestId("key-rejected").count(), 0, "one message, not two");
    await shot("01-sign-in-rejected");
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
  });

  it("says a path it has no page for is not found, with a way back, and the server says 404", async () => {
    const response = await open("/nonsense/path");
    assert.equal(response?.status(), 404);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    assert.match(await page.getByTestId("not-found").innerText(), /No page at \/nonsense\/path/);
    await page.getByTestId("not-found").getByRole("link", { name: "Go to projects" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
  });

  it("lists projects with run counts", async () => {
    const row = page.locator("[data-testid=projects-table] tbody tr", { hasText: PROJECT });
    await row.waitFor();
    assert.match(await row.innerText(), /vision\s+3\s/);
    await shot("02-projects");
  });

  it("shows the runs table with search, status filter, a config column, sort and selection for comparing", async () => {
    await page.getByRole("link", { name: PROJECT }).click();
    const rows = page.locator("[data-testid=runs-table] tbody tr");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 3);
    assert.match(await rows.first().innerText(), /resnet-finetune/, "newest first");

    await page.getByPlaceholder("Search names").fill("lr-0.01");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 1);
    assert.match(page.url(), /search=lr-0.01/, "the search is in the URL");
    await page.getByPlaceholder("Search names").fill("");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    // The search's one row would satisfy "one row" before the filtered list arrives: wait for all three first.
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 3);
    await page.getByLabel("completed").check();
    await page.waitForFunction(() => {
      const shown = document.querySelectorAll("[data-testid=runs-table] tbody tr");
      return shown.length === 1 && shown[0]!.textContent!.includes("resnet-baseline");
    });
    await page.getByLabel("completed").uncheck();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=runs-table] tbody tr").length === 3);

    await page.getByText("Columns").click();
    await page
      .locator("[data-testid=column-choices] label", { hasText: /Config\s+lr$/ })
      .locator("input")
      .check();
    await page
      .locator("[data-testid=column-choices] label", { hasText: /Metric\s+train\/acc$/ })
      .locator("input")
      .check();
    await page.locator("th[data-column='config.lr']").waitFor();
    await page.locator("th[data-column='config.lr'] button").click(); // ascending lr
    await page.waitForFunction(() => /sort=config.lr/.test(location.search));
    await page.waitForFunction(() => document.querySelector("[data-testid=runs-table] tbody tr")?.textContent?.includes("0.01"));
    assert.match(await rows.first().innerText(), /resnet-lr-0\.01/);
    await page.waitForFunction(() => document.querySelector("[data-testid=runs-table] tbody tr")?.textContent?.includes("0.98"));
    await shot("03-runs-table");

    await rows.filter({ hasText: "resnet-baseline" }).getByRole("checkbox").check();
    await rows.filter({ hasText: "resnet-lr-0.01" }).getByRole("checkbox").check();
    await page.getByTestId("compare-selected").click();
    await page.waitForURL(/\/compare\?runIds=/);
  });

  it("compares runs: an overlaid chart, statistics per run, and only the config keys that differ", async () => {
    await page.locator(".chart-canvas[data-drawn=true] canvas").waitFor();
    const stats = page.locator("[data-testid=compare-stats] tbody tr");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=compare-stats] tbody tr").length === 2);
    // Without ?metric= it opens on the validation loss, not the alphabetically first metric (train/acc).
    assert.equal(await page.getByTestId("compare-metric").inputValue(), "val/loss");
    // 98 finite points of 100: step 40 is NaN, step 41 +Infinity.
    assert.match(await stats.first().innerText(), /resnet-(baseline|lr-0\.01)\s+\w+\s+98\s/);
    const diff = await page.getByTestId("config-diff").innerText();
    assert.match(diff, /lr/);
    assert.doesNotMatch(diff, /optimizer\.name/, "equal keys are hidden by default");
    // The chart's series come in one batch read, not one read per run.
    const reads: string[] = [];
    const record = (request: { url: () => string }) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/runs/metrics") || path.startsWith("/api/runs/details")) reads.push(path);
    };
    page.on("request", record);
    await page.reload();
    await page.locator(".chart-canvas[data-drawn=true] canvas").waitFor();
    page.off("request", record);
    // ... and which runs exist comes from the comparison, not from one read per run.
    assert.deepEqual(reads, ["/api/runs/metrics/batch"]);
    await shot("04-compare");
  });

  it("opens a run page by its URL: header, charts per group with non-finite markers, and zoom re-fetches", async () => {
    const url = (await client.get(`/api/runs/statistics`, { runId: runs.baseline.runId, projectName: PROJECT })).body.url as string;
    await page.goto(url);
    await page.getByRole("heading", { name: "resnet-baseline" }).waitFor();
    await page.locator(".chart-card[data-metric='train/loss'] .chart-canvas[data-drawn=true]").waitFor();
    await page.locator(".chart-card[data-metric='val/loss'] .chart-canvas[data-drawn=true]").waitFor();
    assert.equal(await page.locator(".chart-card[data-metric='val/loss'] .chart-canvas").getAttribute("data-nonfinite"), "2");
    assert.deepEqual(await page.locator(".chart-group > summary").allInnerTexts(), ["train 2", "val 1"]);

    const chart = page.locator(".chart-card[data-metric='train/loss'] .u-over");
    const box = (await chart.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.25, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => document.querySelector(".chart-card[data-metric='train/loss']")?.getAttribute("data-zoomed"));
    const [from, to] = (await page.locator(".chart-card[data-metric='train/loss']").getAttribute("data-zoomed"))!.split("-").map(Number);
    assert.ok(from! > 10 && to! < 60 && from! < to!, `zoomed to ${from}-${to}`);
    assert.equal(
      Number(await page.locator(".chart-card[data-metric='train/loss'] .chart-canvas").getAttribute("data-points")),
      to! - from! + 1,
      "every step of the window",
    );
    await shot("05-run-charts");
  });

  it("saves tag and notes edits", async () => {
    await page.getByLabel("New tag").fill("keeper");
    await page.getByLabel("New tag").press("Enter");
    await page.getByTestId("tags").getByText("keeper").waitFor();
    await page.getByLabel("Notes").fill("best so far");
    await page.getByRole("button", { name: "Save notes" }).click();
    await page.getByText("Notes saved").waitFor();
    const details = (await client.get(`/api/runs/details/${runs.baseline.runId}`)).body;
    assert.deepEqual(details.tags, ["resnet", "keeper"]);
    assert.equal(details.notes, "best so far");
  });

  it("lists console logs with a type filter and search", async () => {
    await page.getByRole("tab", { name: "Charts" }).focus();
    await page.keyboard.press("ArrowRight"); // keyboard: the next tab
    await page.waitForURL(/tab=logs/);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=log-lines] li").length === 30);
    await page.getByLabel("Type").selectOption("ERROR");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=log-lines] li").length === 3);
    await page.getByLabel("Type").selectOption("");
    await page.getByPlaceholder("text in the message").fill("epoch 1");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=log-lines] li").length === 10); // epoch 1, 10..18 (19 is an error)
    await shot("06-run-logs");
  });

  it("shows files with an image preview and a working download link", async () => {
    await page.getByRole("tab", { name: "Files" }).click();
    const image = page.locator("[data-testid=files] img");
    await image.waitFor();
    await page.waitForFunction(() => (document.querySelector("[data-testid=files] img") as HTMLImageElement | null)?.naturalWidth === 1);
    const href = await page.getByRole("link", { name: "sample.png" }).getAttribute("href");
    const download = await fetch(href!);
    assert.equal(download.status, 200);
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), PNG);
    await shot("07-run-files");
  });

  it("shows config and metadata as a searchable tree, the status history, the model graph and the lineage", async () => {
    await page.getByRole("tab", { name: "Config" }).click();
    await page.getByText("adam").waitFor();
    await page.getByLabel("Search config").fill("beta");
    await page.waitForFunction(() => !document.querySelector("[aria-label=Config]")?.textContent?.includes("epochs"));
    assert.match(await page.locator("[aria-label='System metadata']").innerText(), /gpu: A100/);
    await shot("08-run-config");

    await page.getByRole("tab", { name: "Status history" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=status-history] li").length === 2);
    assert.match(await page.getByTestId("status-history").innerText(), /RUNNING\s*→\s*COMPLETED/);
    await page.getByRole("tab", { name: "Model graph" }).click();
    await page.getByText("Conv2d").waitFor();
    assert.match(await page.getByTestId("model-graph").innerText(), /9,408 params/);
    await shot("09-run-model-graph");
    await page.getByRole("tab", { name: "Lineage" }).click();
    await page.getByTestId("lineage").getByRole("link", { name: "resnet-finetune" }).click();
    await page.getByRole("heading", { name: "resnet-finetune" }).waitFor();
    await page.getByRole("tab", { name: "Lineage" }).click();
    assert.match(
      await page.getByTestId("lineage-chain").innerText(),
      /resnet-baseline[\s\S]*resnet-finetune[\s\S]*forked from resnet-baseline at step 50/,
    );
    await shot("10-run-lineage");
  });

  it("updates a RUNNING run's charts and logs while the page is open", async () => {
    await page.getByRole("tab", { name: "Charts" }).click();
    const canvas = page.locator(".chart-card[data-metric='train/loss'] .chart-canvas");
    await page.locator(".chart-card[data-metric='train/loss'] .chart-canvas[data-drawn=true]").waitFor();
    assert.equal(await canvas.getAttribute("data-points"), "51", "the parent's steps 0..50");
    const more = Array.from({ length: 20 }, (_, i) => ({ step: 51 + i, data: { "train/loss": 0.5 - i * 0.01 } }));
    assert.equal((await ingest(client, "metrics", runs.fork, toNdjson(more))).status, 200);
    await page.waitForFunction(
      () => document.querySelector(".chart-card[data-metric='train/loss'] .chart-canvas")?.getAttribute("data-points") === "71",
      undefined,
      { timeout: 15_000 },
    );

    await page.getByRole("tab", { name: "Logs" }).click();
    await page.getByText("No log lines").waitFor();
    const line = JSON.stringify({ time: 1_700_000_000_000, lineNumber: 0, logType: "INFO", message: "fine-tuning started" });
    assert.equal((await ingest(client, "logs", runs.fork, line)).status, 200);
    await page.getByTestId("log-lines").getByText("fine-tuning started").waitFor({ timeout: 15_000 });
  });

  it("ranks runs on the leaderboard by metric, aggregation and direction", async () => {
    await open(`/projects/${PROJECT}/leaderboard?metric=train/acc&aggregation=MAX&direction=DESC`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=leaderboard] tbody tr").length === 3);
    const first = await page.locator("[data-testid=leaderboard] tbody tr").first().innerText();
    assert.match(first, /^1\s+resnet-(baseline|lr-0\.01)\s+0\.98/);
    await page.getByTestId("leaderboard-metric").selectOption("val/loss");
    await page.waitForFunction(() => /metric=val%2Floss|metric=val\/loss/.test(location.search));
    await shot("11-leaderboard");
    // A hand-edited URL with an unknown aggregation ranks by the default instead of failing the request.
    await open(`/projects/${PROJECT}/leaderboard?metric=train/acc&aggregation=MEDIAN&direction=UP`);
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=leaderboard] tbody tr").length === 3);
    assert.equal(await page.getByLabel("Aggregation").inputValue(), "LAST");
    // A metric no run has says so, instead of an empty table.
    await open(`/projects/${PROJECT}/leaderboard?metric=no/such/metric`);
    assert.match(await page.getByTestId("leaderboard-empty").innerText(), /No run of this project has a value of “no\/such\/metric”/);
    assert.equal(await page.getByTestId("leaderboard").count(), 0);
    // A search no run matches says so in the workspace too, not that the runs have no metrics.
    await open(`/projects/${PROJECT}?search=no-run-is-named-this`);
    await page.getByTestId("workspace-no-runs").waitFor();
  });

  it("shows the alerts a run's client sent on its page, newest first, as text", async () => {
    const runId = runs.baseline.runId;
    for (const [title, level] of [
      ["loss spiked", "WARN"],
      ["<b>diverged</b>", "ERROR"],
    ])
      assert.equal(
        (await client.post("/api/runs/alert", { runId, alert: { title, body: "loss: NaN at step 90\nlr 0.1", level, timestamp: null } }))
          .status,
        200,
      );
    await open(`/projects/${PROJECT}/runs/${runId}?tab=alerts`);
    const alerts = page.getByTestId("run-alerts");
    await alerts.waitFor();
    await shot("13-run-alerts");
    const items = await alerts.locator("li").allInnerTexts();
    assert.equal(items.length, 2);
    assert.match(items[0]!, /ERROR\s+<b>diverged<\/b>[\s\S]*loss: NaN at step 90\nlr 0\.1/);
    assert.match(items[1]!, /WARN\s+loss spiked/);
    assert.equal(await alerts.locator("b").count(), 0, "a title is text, never markup");
  });

  it("sends a person with a revoked or wrong key back to sign-in, saying why", async () => {
    await page.evaluate(() => localStorage.setItem("stepwise.apiKey", "sw_revoked_or_wrong"));
    await open("/projects");
    await page.getByTestId("key-rejected").waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem("stepwise.apiKey")), null, "the rejected key is removed");
    await shot("12-key-rejected");
    assert.deepEqual(errors, [], "no uncaught errors in the page");
  });

  // Last: the fork made here would change the counts the tests above read.
  it("shows a fork of a fork's whole chain by name, oldest first, each with its fork step", async () => {
    await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), key);
    const grandchild = await client.createRun({
      runName: "resnet-finetune-again",
      projectName: PROJECT,
      forkRunId: runs.fork.runId,
      forkStep: 40,
    });
    await open(`/projects/${PROJECT}/runs/${grandchild.runId}?tab=lineage`);
    const chain = page.getByTestId("lineage-chain");
    await chain.waitFor();
    assert.deepEqual(
      (await chain.locator("li").allInnerTexts()).map((text) => text.replace(/\s+/g, " ").trim()),
      [
        "resnet-baseline VIS-1 COMPLETED",
        "resnet-finetune VIS-3 RUNNING · forked from resnet-baseline at step 50",
        "resnet-finetune-again VIS-4 RUNNING · forked from resnet-finetune at step 40",
      ],
    );
    // Its charts mark the step it was forked at: the points before it are its parent's.
    await page.getByRole("tab", { name: "Charts" }).click();
    const canvas = page.locator(".chart-card[data-metric='train/acc'] .chart-canvas[data-drawn=true]");
    await canvas.waitFor();
    assert.equal(await canvas.getAttribute("data-rules"), "forked at 40");
    await shot("14-fork-charts");
  });
});
