/**
 * Charts that never mislead, end to end in headless Chromium against a real server: small values
 * keep their digits, non-finite points stay visible at any point budget, a diverged series says so
 * wherever its run is listed, and a live page survives a server restart. Screenshots go to
 * test-output/ui-screenshots/.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { loadConfig } from "../../src/config.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { launchBrowser } from "../helpers/browser.js";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, makeTestStoreLocation, startTestServer, type TestServer, type TestStoreLocation } from "../helpers/start-server.js";

const SCREENSHOTS = fileURLToPath(new URL("../../test-output/ui-screenshots/", import.meta.url));
const PROJECT = "honest";

async function newPage(browser: Browser, url: string, key: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(new URL("/projects", url).toString());
  await page.evaluate((apiKey) => localStorage.setItem("stepwise.apiKey", apiKey), key);
  return page;
}

const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage });

describe("charts that never mislead", () => {
  let test: TestServer;
  let browser: Browser;
  let page: Page;
  let client: ApiClient;
  const ids: Record<string, number> = {};
  const errors: string[] = [];
  const open = (path: string) => page.goto(new URL(path, test.url).toString());

  const seed = async (name: string, lines: { step: number; data: Record<string, number> }[]) => {
    const run = await client.createRun({ projectName: PROJECT, runName: name });
    ids[name] = run.runId;
    for (let i = 0; i < lines.length; i += 1000) {
      assert.equal((await ingest(client, "metrics", run, toNdjson(lines.slice(i, i + 1000)))).status, 200);
    }
    await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    const org = await makeOrg(test);
    client = org.client;
    // A learning rate stepping down 1e-4 → 1e-5 → 1e-6.
    await seed(
      "lr-schedule",
      Array.from({ length: 300 }, (_, step) => ({ step, data: { "train/lr": 10 ** -(4 + Math.floor(step / 100)) } })),
    );
    // 3,000 steps with one +Inf at step 1500.
    await seed(
      "spike",
      Array.from({ length: 3000 }, (_, step) => ({ step, data: { loss: step === 1500 ? Infinity : 1 + Math.sin(step / 50) } })),
    );
    // Healthy until step 1879, NaN at 1880.
    await seed(
      "diverged",
      Array.from({ length: 1881 }, (_, step) => ({ step, data: { loss: step === 1880 ? NaN : 2 / (step + 1) } })),
    );
    browser = await launchBrowser();
    page = await newPage(browser, test.url, org.key);
    page.on("pageerror", (error) => errors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("reads a 1e-4 … 1e-6 learning rate with its digits on the ticks and on hover, never 0", async () => {
    await open(`/projects/${PROJECT}/runs/${ids["lr-schedule"]}`);
    const canvas = page.locator(".chart-card[data-metric='train/lr'] .chart-canvas[data-drawn=true]");
    await canvas.waitFor();
    const ticks = (await canvas.getAttribute("data-y-ticks"))!.split(" ");
    assert.equal(new Set(ticks).size, ticks.length, `distinct ticks: ${ticks}`);
    assert.ok(ticks.filter((tick) => tick === "0").length <= 1, `at most one 0 tick: ${ticks}`);
    assert.ok(
      ticks.some((tick) => /e-5$/.test(tick)),
      `ticks in exponent form: ${ticks}`,
    );
    // Hover near the end (step ~270, lr 1e-6), then near the start (lr 1e-4).
    const box = (await page.locator(".chart-card[data-metric='train/lr'] .u-over").boundingBox())!;
    const legendValue = page.locator(".chart-card[data-metric='train/lr'] .u-legend .u-series").nth(1).locator(".u-value");
    await page.mouse.move(box.x + box.width * 0.92, box.y + box.height / 2);
    await page.waitForFunction(
      () =>
        document.querySelectorAll(".chart-card[data-metric='train/lr'] .u-legend .u-series")[1]?.querySelector(".u-value")?.textContent ===
        "1e-6",
    );
    // 10 ** -4 is 0.00009999999999999999: with five significant digits it reads 1e-4.
    await page.mouse.move(box.x + box.width * 0.05, box.y + box.height / 2);
    await page.waitForFunction(
      () =>
        document.querySelectorAll(".chart-card[data-metric='train/lr'] .u-legend .u-series")[1]?.querySelector(".u-value")?.textContent ===
        "1e-4",
    );
    assert.equal(await legendValue.innerText(), "1e-4");
    assert.match(await page.locator(".chart-card[data-metric='train/lr'] [data-testid=series-end]").innerText(), /last 1e-6 @ 299/);
    await shot(page, "20-small-values");
  });

  it("shows the +Inf at step 1500 of a 3,000-step series drawn at 1,000 points, in the run view and the comparison", async () => {
    await open(`/projects/${PROJECT}/runs/${ids.spike}`);
    const canvas = page.locator(".chart-card[data-metric='loss'] .chart-canvas[data-drawn=true]");
    await canvas.waitFor();
    assert.ok(Number(await canvas.getAttribute("data-points")) <= 1000, "sampled to the 1,000-point budget");
    assert.equal(await canvas.getAttribute("data-nonfinite"), "1", "the +Inf is kept");
    await shot(page, "21-inf-marker");

    await open(`/projects/${PROJECT}/compare?runIds=${ids.spike},${ids.diverged}&metric=loss`);
    const compared = page.locator(".chart-card[data-metric='loss'] .chart-canvas[data-drawn=true]");
    await compared.waitFor();
    assert.equal(await compared.getAttribute("data-nonfinite"), "2", "both runs' markers: the +Inf and the final NaN");
  });

  it("draws a metric whose points all sit at one step (MLflow's log_metric without a step) against time, every point", async () => {
    const experiment = await client.post("/api/2.0/mlflow/experiments/create", { name: "one-step" });
    const created = await client.post("/api/2.0/mlflow/runs/create", { experiment_id: experiment.body.experiment_id });
    const runId = created.body.run.info.run_id;
    const metrics = [
      ...Array.from({ length: 200 }, (_, i) => ({ key: "loss", value: 1 / (i + 1), timestamp: 1_700_000_000_000 + i * 1000, step: 0 })),
      // A system metric counts its own samples as steps: it is drawn against time too.
      ...Array.from({ length: 50 }, (_, i) => ({ key: "sys/cpu", value: 50 + i, timestamp: 1_700_000_000_000 + i * 4000, step: i })),
    ];
    assert.equal((await client.post("/api/2.0/mlflow/runs/log-batch", { run_id: runId, metrics })).status, 200);
    const stepwiseRun = (await client.get("/api/runs/list", { projectName: "one-step" })).body.runs[0];
    await open(`/projects/one-step/runs/${stepwiseRun.id}`);
    const card = page.locator(".chart-card[data-metric='loss']");
    await card.locator(".chart-canvas[data-drawn=true]").waitFor();
    assert.match(await card.locator("[data-testid=one-step]").innerText(), /all at step 0: drawn against time/);
    const system = page.locator(".chart-card[data-metric='sys/cpu']");
    await system.locator(".chart-canvas[data-drawn=true]").waitFor();
    assert.match(await system.locator("[data-testid=one-step]").innerText(), /a system metric: drawn against time/);
    // Hovering the middle of the chart shows a value from the middle of the series, not the last one logged.
    await card.scrollIntoViewIfNeeded(); // below the system metric's chart
    const box = (await card.locator(".u-over").boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    const legend = card.locator(".u-legend .u-series").nth(1).locator(".u-value");
    await page.waitForFunction((element) => element !== null && !Number.isNaN(Number(element.textContent)), await legend.elementHandle());
    const value = Number(await legend.innerText());
    assert.ok(value > 1 / 150 && value < 1 / 50, `a middle value: ${value}`);
    await shot(page, "23-one-step-against-time");
    // The run goes on logging at step 0: the live page draws the new points (a spike to 8) without a reload.
    const more = Array.from({ length: 20 }, (_, i) => ({ key: "loss", value: 8, timestamp: 1_700_000_200_000 + i * 1000, step: 0 }));
    assert.equal((await client.post("/api/2.0/mlflow/runs/log-batch", { run_id: runId, metrics: more })).status, 200);
    await page.waitForFunction(
      () => {
        const ticks = document.querySelector(".chart-card[data-metric='loss'] .chart-canvas")?.getAttribute("data-y-ticks") ?? "";
        return ticks.split(" ").some((tick) => Number(tick) >= 5);
      },
      undefined,
      { timeout: 20_000 },
    );
  });

  it("says a series ended in NaN in the run header, chart head, runs table, comparison and leaderboard", async () => {
    await open(`/projects/${PROJECT}/runs/${ids.diverged}`);
    const note = page.getByTestId("diverged");
    await note.waitFor();
    assert.match(await note.innerText(), /loss: last NaN @ 1,880 \(last finite 0\.0010638 @ 1,879\)/);
    const head = page.locator(".chart-card[data-metric='loss'] [data-testid=series-end]");
    await page.locator(".chart-card[data-metric='loss'] .chart-canvas[data-drawn=true]").waitFor();
    assert.match(await head.innerText(), /^last NaN @ 1,880 · last finite 0\.0010638 @ 1,879/);
    await shot(page, "22-diverged-run");

    await page.evaluate(
      (key) => localStorage.setItem(key, JSON.stringify([{ source: "summary", key: "loss" }])),
      `stepwise.columns.${PROJECT}`,
    );
    await open(`/projects/${PROJECT}?sort=summary_metrics.loss`);
    const cell = page.locator(`[data-testid=runs-table] tr[data-run-id='${ids.diverged}'] [data-diverged]`);
    await cell.waitFor();
    assert.equal(await cell.innerText(), "NaN @ 1,880");
    const order = await page.locator("[data-testid=runs-table] tbody tr").evaluateAll((rows) => rows.map((row) => row.dataset.runId));
    assert.ok(
      order.indexOf(String(ids.diverged)) < order.indexOf(String(ids.spike)),
      "sorted ascending by the last finite value: the diverged run's 0.00106 before the spike's ~0.7",
    );
    await shot(page, "23-runs-table-diverged");

    await open(`/projects/${PROJECT}/compare?runIds=${ids.spike},${ids.diverged}&metric=loss`);
    await page.locator("[data-testid=compare-stats] [data-diverged]").waitFor();
    assert.equal(await page.locator("[data-testid=compare-stats] [data-diverged]").innerText(), "NaN @ 1,880");
    await shot(page, "24-compare-diverged");

    await open(`/projects/${PROJECT}/leaderboard?metric=loss`);
    const mark = page.locator("[data-testid=leaderboard] [data-diverged]");
    await mark.waitFor();
    assert.match(await mark.innerText(), /ended NaN @ 1,880/);
    await shot(page, "25-leaderboard-diverged");
  });

  it("moves a project's last activity and a RUNNING run's row as data arrives, with full times on hover", async () => {
    const live = await client.createRun({ projectName: "ticking", runName: "still-running" });
    assert.equal((await ingest(client, "metrics", live, toNdjson([{ step: 0, data: { loss: 0.5 } }]))).status, 200);
    await open("/projects");
    const activity = page.locator("[data-testid=projects-table] tr", { hasText: "ticking" }).getByTestId("last-activity").locator("time");
    await activity.waitFor();
    const before = (await activity.getAttribute("title"))!;
    assert.match(before, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, "the absolute time and its zone on hover");
    await page.waitForTimeout(1100); // the project's activity has a resolution of one second: a second must pass
    assert.equal((await ingest(client, "metrics", live, toNdjson([{ step: 1, data: { loss: 0.25 } }]))).status, 200);
    await page.waitForFunction(
      (previous) =>
        [...document.querySelectorAll("[data-testid=projects-table] tr")]
          .find((row) => row.textContent?.includes("ticking"))
          ?.querySelector("[data-testid=last-activity] time")
          ?.getAttribute("title") !== previous,
      before,
      { timeout: 15_000 },
    );

    await page.evaluate(
      (key) => localStorage.setItem(key, JSON.stringify([{ source: "summary", key: "loss" }])),
      "stepwise.columns.ticking",
    );
    await open("/projects/ticking");
    const cell = page.locator("[data-testid=runs-table] tbody tr td.number").last();
    await page.waitForFunction(
      () => document.querySelector("[data-testid=runs-table] tbody tr td.number:last-child")?.textContent === "0.25",
    );
    assert.equal((await ingest(client, "metrics", live, toNdjson([{ step: 2, data: { loss: 0.125 } }]))).status, 200);
    await page.waitForFunction(
      () => document.querySelector("[data-testid=runs-table] tbody tr td.number:last-child")?.textContent === "0.125",
      undefined,
      { timeout: 15_000 },
    );
    assert.equal(await cell.innerText(), "0.125");
    await shot(page, "28-runs-table-live");
    assert.deepEqual(errors, []);
  });
});

describe("a live run page across a server restart", () => {
  let location: TestStoreLocation;
  let server: RunningServer;
  let port = 0;
  let browser: Browser;
  let client: ApiClient;
  let key: string;
  const start = async () => {
    const config = loadConfig({ ...location.flags, "--port": String(port), "--log-level": "silent", "--stale-after": "0" }, {});
    server = await startServer(config);
    port = Number(new URL(server.url).port);
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    location = await makeTestStoreLocation();
    await start();
    ({ key } = await createOrganizationWithKey(server.store, "live", { now: () => Date.now() }));
    client = new ApiClient(server.url, key);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await location?.remove();
  });

  const names = Array.from({ length: 150 }, (_, i) => `layer${String(i).padStart(3, "0")}/grad_norm`);
  const steps = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      step: from + i,
      data: Object.fromEntries(names.map((name, m) => [name, Math.cos((from + i) / (m + 5))])),
    }));

  it("polls only on-screen charts with one request per refresh, keeps the charts through an outage and resumes on its own", async () => {
    const run = await client.createRun({ projectName: "live", runName: "wide-live" });
    assert.equal((await ingest(client, "metrics", run, toNdjson(steps(0, 50)))).status, 200);
    const page = await newPage(browser, server.url, key);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    let requests: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().includes("/api/")) requests.push(new URL(request.url()).pathname);
    };
    page.on("request", onRequest);
    await page.goto(`${server.url}/projects/live/runs/${run.runId}`);
    const first = page.locator(`.chart-card[data-metric='${names[0]}'] .chart-canvas`);
    await page.locator(`.chart-card[data-metric='${names[0]}'] .chart-canvas[data-drawn=true]`).waitFor();
    await page.waitForTimeout(500); // a window for requests that should not come: nothing to await
    // The charts on screen at first come in together: one request, not one per chart, and no
    // second one for cards a chart's first frame moved into view.
    const firstReads = requests.filter((path) => path === "/api/runs/metrics");
    assert.equal(firstReads.length, 1, `the first charts in ${firstReads.length} requests: ${requests.join(" ")}`);

    // 9 s of a live 150-metric run, new steps arriving: count what the page asks for.
    requests = [];
    const watched = performance.now();
    for (let i = 0; i < 3; i++) {
      assert.equal((await ingest(client, "metrics", run, toNdjson(steps(50 + i * 10, 10)))).status, 200);
      await page.waitForTimeout(3000); // watching the live page for 9 s is the point
    }
    page.off("request", onRequest);
    // 9 s plus the three ingests: on a loaded machine they take long enough for one more 3 s refresh.
    const seconds = (performance.now() - watched) / 1000;
    const refreshes = Math.floor(seconds / 3) + 1;
    console.log(`# live 150-metric run: ${requests.length} API requests in ${seconds.toFixed(1)} s: ${requests.join(" ")}`);
    const metricReads = requests.filter((path) => path === "/api/runs/metrics").length;
    assert.ok(requests.length <= 3 * refreshes, `${requests.length} requests in ${seconds.toFixed(1)} s: ${requests.join(" ")}`);
    assert.ok(metricReads >= 1 && metricReads <= refreshes, `${metricReads} metric reads in ${seconds.toFixed(1)} s (one per refresh)`);
    await page.waitForFunction(
      (name) => document.querySelector(`.chart-card[data-metric='${name}'] .chart-canvas`)?.getAttribute("data-points") === "80",
      names[0],
      { timeout: 10_000 },
    );
    const offScreen = page.locator(`.chart-card[data-metric='${names[149]}'] .chart-canvas`);
    assert.equal(await offScreen.count(), 0, "a chart far below the window is never loaded");

    // The server goes away: the page keeps its charts and says it is reconnecting.
    await server.close();
    await page.getByTestId("reconnecting").waitFor({ timeout: 15_000 });
    assert.equal(await first.getAttribute("data-points"), "80", "the chart keeps what it drew");
    assert.equal(await page.locator(".error").count(), 0, "no bare 'Failed to fetch'");
    await shot(page, "26-live-reconnecting", false);

    // Back on the same port and data directory (or database), with new steps: the page resumes by itself.
    await start();
    assert.equal((await ingest(client, "metrics", run, toNdjson(steps(80, 20)))).status, 200);
    await page.getByTestId("reconnecting").waitFor({ state: "detached", timeout: 30_000 });
    await page.waitForFunction(
      (name) => document.querySelector(`.chart-card[data-metric='${name}'] .chart-canvas`)?.getAttribute("data-points") === "100",
      names[0],
      { timeout: 30_000 },
    );
    assert.match(await page.getByTestId("last-update").innerText(), /just now|s ago/);
    await shot(page, "27-live-recovered", false);
    assert.deepEqual(errors, []);
  });
});
