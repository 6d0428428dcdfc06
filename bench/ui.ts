/**
 * npm run bench:ui — how fast the web UI shows data, in headless Chromium (Debian's package).
 * Seeds once (cached in .bench-cache/, reused while the seed version matches), through the Store:
 * one run with 200 metrics × 100,000 steps (20 M points), and a project with 5,000 runs. Then starts
 * the real server on it and opens, each time in a fresh browser context (no cache, laptop-sized
 * 1280×800 window):
 *   - the run page: time to the first chart drawn and to every chart in the window drawn;
 *   - the project page, with three chosen columns (two config keys, one summary metric): time to
 *     the first table rows, on the first page, deep in the list, sorted by a metric, and filtered.
 * Times run from the start of navigation (the page's time origin) to the frame in which it is seen.
 *
 * Then the workspace (issue 12, "Speed"): a project of 200 runs × 50 metrics × 10,000 steps
 * (bench/lib/workspace.ts, cached too), on its own server: the workspace page with 20 and then 200
 * visible runs, time to the first panel and to every panel in the window drawn, with where the time
 * went (bench/lib/workspace-page.ts); the batch read it draws from, timed server-side for 20 and 200
 * runs (bench/lib/batch-read.ts); and the server's peak RSS.
 * `--workspace` runs only this part.
 *
 * Then the sweep analysis and grouping (issue 23, items 1 and 2): a project of 1,000 runs × 10 config
 * keys × 20 metrics (bench/lib/sweep-page.ts, cached), the project page with its Analysis open: time
 * until the parallel coordinates' lines and the importance table are there; the sweep read alone;
 * and the workspace grouping all 1,000 runs by optimizer: time to its first panel. `--sweep` runs only this part.
 * Environment: BENCH_REPEATS (default 7 per view), BENCH_REQUESTS (default 20 per batch read),
 * BENCH_WINDOW_PANELS (default 9 panels in the window, as the workspace page shows them).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../test/helpers/browser.js";
import { spawnServer } from "../test/helpers/start-server.js";
import { measureBatchRead } from "./lib/batch-read.js";
import { peakRssMb, percentile, printFigures, type Figure } from "./lib/report.js";
import { freshBenchStore } from "./lib/seed.js";
import { benchSweep, SWEEP_KEYS, SWEEP_METRICS, SWEEP_RUNS } from "./lib/sweep-page.js";
import { measureWorkspacePage, PAGE_CASES } from "./lib/workspace-page.js";
import {
  finishWorkspaceRuns,
  seedWorkspace,
  WORKSPACE_CACHE,
  WORKSPACE_METRICS,
  WORKSPACE_RUNS,
  WORKSPACE_STEPS,
} from "./lib/workspace.js";

const SEED_VERSION = "ui-v1";
const CACHE = fileURLToPath(new URL(`../.bench-cache/${SEED_VERSION}/`, import.meta.url));
const METRICS = 200;
const STEPS = 100_000;
const RUNS = 5000;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const GROUPS = ["train", "val", "grad", "sys", "lr"];

interface Seeded {
  key: string;
  runId: number;
}

async function seed(): Promise<Seeded> {
  if (existsSync(`${CACHE}seeded.json`)) return JSON.parse(readFileSync(`${CACHE}seeded.json`, "utf8")) as Seeded;
  const started = Date.now();
  const { store, orgId, key, actor } = await freshBenchStore(CACHE);
  const { run } = await store.createRun(
    orgId,
    { projectName: "bench-ui-run", name: "wide", tags: ["bench"], config: { lr: 0.001, layers: 48 }, now: started },
    actor,
  );
  const names = Array.from({ length: METRICS }, (_, m) => `${GROUPS[m % GROUPS.length]}/metric_${String(m).padStart(3, "0")}`);
  const CHUNK = 5000;
  for (let from = 0; from < STEPS; from += CHUNK) {
    const steps = Array.from({ length: CHUNK }, (_, i) => from + i);
    const times = steps.map((step) => started + step * 100);
    const series = names.map((logName, m) => ({
      logName,
      steps,
      times,
      values: steps.map((step) => Math.exp(-step / (20_000 + m * 100)) + Math.sin(step / 500 + m) * 0.05),
    }));
    await store.appendMetricPoints(orgId, run.id, series, started);
    process.stdout.write(`\r  seeding the wide run: ${(from + CHUNK).toLocaleString("en-US")}/${STEPS.toLocaleString("en-US")} steps`);
  }
  for (let r = 0; r < RUNS; r++) {
    const config = { lr: [0.1, 0.01, 0.001][r % 3]!, batch_size: [32, 64, 128, 256][r % 4]!, optimizer: r % 2 ? "adam" : "sgd" };
    const { run: listed } = await store.createRun(
      orgId,
      { projectName: "bench-ui-table", name: `sweep-${r}`, tags: [`seed-${r % 5}`], config, now: started + r },
      actor,
    );
    const steps = Array.from({ length: 10 }, (_, s) => s);
    await store.appendMetricPoints(
      orgId,
      listed.id,
      [{ logName: "val/loss", steps, times: steps.map((s) => started + s), values: steps.map((s) => 1 / (s + 1 + (r % 13))) }],
      started,
    );
    if (r % 500 === 0) process.stdout.write(`\r  seeding the table project: ${r}/${RUNS} runs                `);
  }
  await store.close();
  const seeded = { key, runId: run.id };
  writeFileSync(`${CACHE}seeded.json`, JSON.stringify(seeded));
  console.log(`\r  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s                                   `);
  return seeded;
}

/**
 * Installed before the app loads: each animation frame, note when the first chart is drawn, when
 * every chart card in the window is drawn, and when the runs table has rows. Plain JavaScript
 * text, because a compiled function would carry the TypeScript loader's helpers into the page.
 */
const WATCH_PAGE = `
  const marks = (window.__marks = {});
  const drawn = (card) => card.querySelector(".chart-canvas[data-drawn=true]") !== null;
  const check = () => {
    const cards = [...document.querySelectorAll(".chart-card")];
    if (marks.firstChart === undefined && cards.some(drawn)) marks.firstChart = performance.now();
    const visible = cards.filter((card) => {
      const box = card.getBoundingClientRect();
      return box.bottom > 0 && box.top < window.innerHeight;
    });
    if (marks.allVisibleCharts === undefined && visible.length > 0 && visible.every(drawn)) {
      marks.allVisibleCharts = performance.now();
      marks.visibleCharts = visible.length;
    }
    if (marks.tableRows === undefined && document.querySelector("[data-testid=runs-table] tbody tr")) marks.tableRows = performance.now();
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

type Mark = "firstChart" | "allVisibleCharts" | "tableRows";

/** Chosen runs-table columns, as the column picker remembers them. */
const COLUMNS = JSON.stringify([
  { source: "config", key: "lr" },
  { source: "config", key: "optimizer" },
  { source: "summary", key: "val/loss" },
]);

async function measure(browser: Browser, url: string, key: string, until: Mark): Promise<Record<string, number>> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(`localStorage.setItem("stepwise.apiKey", ${JSON.stringify(key)});`);
  await context.addInitScript(`localStorage.setItem("stepwise.columns.bench-ui-table", ${JSON.stringify(COLUMNS)});`);
  await context.addInitScript(WATCH_PAGE);
  const page = await context.newPage();
  try {
    await page.goto(url);
    // A function, not a string: the app's Content Security Policy refuses eval in the page.
    await page.waitForFunction((mark) => (window as { __marks?: Record<string, number> }).__marks?.[mark] !== undefined, until, {
      timeout: 60_000,
    });
    return (await page.evaluate("({ ...window.__marks })")) as Record<string, number>;
  } finally {
    await context.close();
  }
}

async function series(browser: Browser, url: string, key: string, until: Mark, marks: Mark[]): Promise<Record<string, number[]>> {
  await measure(browser, url, key, until); // warm-up: server JIT and page cache, as a server in use would be
  const samples: Record<string, number[]> = {};
  for (let i = 0; i < REPEATS; i++) {
    const result = await measure(browser, url, key, until);
    for (const mark of [...marks, "visibleCharts"]) if (result[mark] !== undefined) (samples[mark] ??= []).push(result[mark]!);
  }
  for (const values of Object.values(samples)) values.sort((a, b) => a - b);
  return samples;
}

/** The run page and the runs table of a 5,000-run project. */
async function benchRunAndTable(): Promise<boolean> {
  console.log(
    `UI benchmark: a run with ${METRICS} metrics × ${STEPS.toLocaleString("en-US")} steps; a project with ${RUNS.toLocaleString("en-US")} runs; ${REPEATS} page loads per view`,
  );
  const { key, runId } = await seed();
  const server = await spawnServer(CACHE, ["--log-level", "error", "--stale-after", "0"]);
  const browser = await launchBrowser();
  const figures: Figure[] = [];
  try {
    const run = await series(browser, `${server.url}/projects/bench-ui-run/runs/${runId}`, key, "allVisibleCharts", [
      "firstChart",
      "allVisibleCharts",
    ]);
    console.log(`  charts in the 1280×800 window: ${run.visibleCharts?.[0]} of ${METRICS}`);
    figures.push({
      name: "run page: first chart p50",
      value: percentile(run.firstChart!, 50),
      unit: "ms",
      target: { bound: "max", value: 1000 },
    });
    figures.push({ name: "run page: first chart max", value: run.firstChart!.at(-1)!, unit: "ms" });
    figures.push({
      name: "run page: all in window p50",
      value: percentile(run.allVisibleCharts!, 50),
      unit: "ms",
      target: { bound: "max", value: 2000 },
    });
    figures.push({ name: "run page: all in window max", value: run.allVisibleCharts!.at(-1)!, unit: "ms" });
    const tableViews = [
      ["page 1", ""],
      ["offset 4950", "?offset=4950"],
      ["by val/loss", "?sort=summary_metrics.val/loss"],
      [
        "filtered",
        `?filter=${encodeURIComponent(JSON.stringify({ "config.lr": { $lte: 0.01 }, "summaryMetrics.val/loss": { $lt: 0.1 } }))}`,
      ],
    ] as const;
    for (const [label, query] of tableViews) {
      const table = await series(browser, `${server.url}/projects/bench-ui-table${query}`, key, "tableRows", ["tableRows"]);
      figures.push({
        name: `table ${label}: rows p50`,
        value: percentile(table.tableRows!, 50),
        unit: "ms",
        target: { bound: "max", value: 1000 },
      });
      figures.push({ name: `table ${label}: rows max`, value: table.tableRows!.at(-1)!, unit: "ms" });
    }
    figures.push({ name: "server peak RSS", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" });
  } finally {
    await browser.close();
    server.child.kill("SIGTERM");
    await server.exited;
  }
  return printFigures("Results (from navigation start, fresh browser context each load)", figures);
}

/**
 * The workspace project: the page in the browser (20 runs, then 200), then the batch read it draws
 * from, timed server-side; the server's peak RSS after the page loads and after everything.
 */
async function benchWorkspace(): Promise<boolean> {
  console.log(
    `\nWorkspace benchmark: a project of ${WORKSPACE_RUNS} runs × ${WORKSPACE_METRICS} metrics × ${WORKSPACE_STEPS.toLocaleString("en-US")} steps; ${REPEATS} page loads per cap, ${REQUESTS} requests per batch read`,
  );
  const seed = await seedWorkspace();
  const server = await spawnServer(WORKSPACE_CACHE, ["--log-level", "error", "--stale-after", "0"]);
  const page: Figure[] = [];
  const batch: Figure[] = [];
  try {
    await finishWorkspaceRuns(server.url, seed);
    const browser = await launchBrowser();
    try {
      for (const c of PAGE_CASES) page.push(...(await measureWorkspacePage(browser, server.url, seed, REPEATS, c)));
    } finally {
      await browser.close();
    }
    page.push({ name: "server peak RSS (page loads)", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" });
    batch.push(...(await measureBatchRead(server.url, seed, REQUESTS)));
    batch.push({ name: "server peak RSS (all)", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" });
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
  const pageMet = printFigures("Results (workspace page from navigation start, fresh browser context each load, 1280×800)", page);
  const batchMet = printFigures(
    "Results (batch read: loopback keep-alive, to the last byte; targets are the page targets it is part of)",
    batch,
  );
  return pageMet && batchMet;
}

/** The sweep analysis of a 1,000-run project (bench/lib/sweep-page.ts). */
async function benchSweepAnalysis(): Promise<boolean> {
  console.log(
    `\nSweep analysis benchmark: a project of ${SWEEP_RUNS.toLocaleString("en-US")} runs × ${SWEEP_KEYS} config keys × ${SWEEP_METRICS} metrics; ${REPEATS} page loads, ${REQUESTS} sweep reads`,
  );
  const browser = await launchBrowser();
  try {
    return printFigures(
      "Results (project page from navigation start, fresh browser context each load, 1280×800)",
      await benchSweep(browser, REPEATS, REQUESTS),
    );
  } finally {
    await browser.close();
  }
}

execFileSync("npm", ["run", "build"], { stdio: "ignore" });
const only = process.argv.find((argument) => argument === "--workspace" || argument === "--sweep");
const met = [
  only !== undefined || (await benchRunAndTable()),
  only === "--sweep" || (await benchWorkspace()),
  only === "--workspace" || (await benchSweepAnalysis()),
].every(Boolean);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
