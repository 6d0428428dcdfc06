/**
 * The sweep analysis and grouping of bench:ui (issue 23, items 1 and 2): a project of 1,000 runs ×
 * 10 config keys × 20 metrics (cached in .bench-cache/ui-sweep-v1/). The project page opened with
 * its Analysis section open: time from navigation start to the frame in which the parallel
 * coordinates' lines are on their canvas and the importance table has its rows; the sweep read
 * alone, timed server-side; and the workspace showing all 1,000 runs grouped by optimizer: time to
 * the first panel drawn with its 3 group lines.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { spawnServer } from "../../test/helpers/start-server.js";
import { peakRssMb, percentile, type Figure } from "./report.js";
import { freshBenchStore } from "./seed.js";

const CACHE = fileURLToPath(new URL("../../.bench-cache/ui-sweep-v1/", import.meta.url));
export const SWEEP_RUNS = 1000;
export const SWEEP_KEYS = 10;
export const SWEEP_METRICS = 20;
const PROJECT = "bench-sweep";

/** A small deterministic PRNG (mulberry32), so the seeded sweep is the same on every machine. */
function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function seed(): Promise<string> {
  if (existsSync(`${CACHE}seeded.json`)) return (JSON.parse(readFileSync(`${CACHE}seeded.json`, "utf8")) as { key: string }).key;
  const started = Date.now();
  const { store, orgId, key, actor } = await freshBenchStore(CACHE);
  const random = seededRandom(23);
  const names = [
    "val/loss",
    "val/acc",
    "train/loss",
    "train/acc",
    ...Array.from({ length: SWEEP_METRICS - 4 }, (_, m) => `eval/metric_${m}`),
  ];
  const steps = Array.from({ length: 10 }, (_, s) => s);
  for (let r = 0; r < SWEEP_RUNS; r++) {
    const lr = 10 ** (-5 + 4 * random());
    // Ten keys of every kind: numbers (log-spread, integer, float), strings, a boolean, and a key missing from a quarter of the runs.
    const config = {
      lr,
      batch_size: [32, 64, 128, 256][r % 4]!,
      optimizer: ["adam", "sgd", "adamw"][r % 3]!,
      dropout: Math.round(random() * 50) / 100,
      weight_decay: [0, 1e-5, 1e-4, 1e-3][Math.floor(random() * 4)]!,
      warmup: random() < 0.5,
      layers: 2 + Math.floor(random() * 10),
      activation: ["relu", "gelu", "silu"][Math.floor(random() * 3)]!,
      seed: r % 10,
      ...(r % 4 === 0 ? {} : { scheduler: r % 2 ? "cosine" : "linear" }),
    };
    const quality = (Math.log10(lr) + 3) ** 2 + 0.1 * random();
    const series = names.map((logName, m) => ({
      logName,
      steps,
      times: steps.map((s) => started + s),
      values: steps.map((s) => (quality + m * 0.01) * (1 + 1 / (s + 1))),
    }));
    const { run } = await store.createRun(orgId, { projectName: PROJECT, name: `sweep-${r}`, tags: [], config, now: started + r }, actor);
    await store.appendMetricPoints(orgId, run.id, series, started);
  }
  await store.close();
  writeFileSync(`${CACHE}seeded.json`, JSON.stringify({ key }));
  console.log(`  seeded the sweep project in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return key;
}

/** Plain JavaScript (see WATCH_PAGE in bench/ui.ts): the frame in which lines and importance rows are both there. */
const WATCH_ANALYSIS = `
  const marks = (window.__marks = {});
  const check = () => {
    if (marks.parallel === undefined && document.querySelector("[data-testid=parallel-coordinates] canvas[data-lines='${SWEEP_RUNS}']")) marks.parallel = performance.now();
    if (marks.importance === undefined && document.querySelector("[data-testid=importance] tbody tr")) marks.importance = performance.now();
    if (marks.parallel === undefined || marks.importance === undefined) requestAnimationFrame(check);
    else marks.both = Math.max(marks.parallel, marks.importance);
  };
  requestAnimationFrame(check);
`;

/** The frame in which a workspace panel is drawn with the 3 optimizers' group lines, every run's series in. */
const WATCH_GROUPED = `
  const marks = (window.__marks = {});
  const check = () => {
    if (document.querySelector("[data-testid=workspace] .ws-panel[data-complete=true] .chart-canvas[data-drawn=true][data-lines='3']")) marks.both = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

/** localStorage of a browser that opened the project before: the Analysis section open, or the workspace at 1,000 runs grouped by optimizer. */
const ANALYSIS_OPEN = { [`stepwise.analysis.${PROJECT}`]: "true" };
const GROUPED = {
  [`stepwise.workspace.${PROJECT}`]: JSON.stringify({ cap: 1000, grouping: { keys: ["config.optimizer"], line: "mean", band: "minmax" } }),
};

async function measure(
  browser: Browser,
  url: string,
  key: string,
  stored: Record<string, string>,
  watch: string,
): Promise<Record<string, number>> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(
    `localStorage.setItem("stepwise.apiKey", ${JSON.stringify(key)}); for (const [k, v] of Object.entries(${JSON.stringify(stored)})) localStorage.setItem(k, v);`,
  );
  await context.addInitScript(watch);
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.waitForFunction(() => (window as { __marks?: Record<string, number> }).__marks?.both !== undefined, undefined, {
      timeout: 60_000,
    });
    return (await page.evaluate("({ ...window.__marks })")) as Record<string, number>;
  } finally {
    await context.close();
  }
}

/** The figures of the sweep analysis; `repeats` page loads after one warm-up, `requests` sweep reads. */
export async function benchSweep(browser: Browser, repeats: number, requests: number): Promise<Figure[]> {
  const key = await seed();
  const server = await spawnServer(CACHE, ["--log-level", "error", "--stale-after", "0"]);
  try {
    const url = `${server.url}/projects/${PROJECT}`;
    await measure(browser, url, key, ANALYSIS_OPEN, WATCH_ANALYSIS);
    const samples: Record<string, number[]> = { parallel: [], importance: [], both: [] };
    for (let i = 0; i < repeats; i++) {
      const marks = await measure(browser, url, key, ANALYSIS_OPEN, WATCH_ANALYSIS);
      for (const name of Object.keys(samples)) samples[name]!.push(marks[name]!);
    }
    for (const values of Object.values(samples)) values.sort((a, b) => a - b);
    await measure(browser, url, key, GROUPED, WATCH_GROUPED);
    const grouped: number[] = [];
    for (let i = 0; i < repeats; i++) grouped.push((await measure(browser, url, key, GROUPED, WATCH_GROUPED)).both!);
    grouped.sort((a, b) => a - b);
    const reads: number[] = [];
    let bytes = 0;
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/runs/sweep?projectName=${PROJECT}`, { headers: { authorization: `Bearer ${key}` } });
      bytes = (await response.arrayBuffer()).byteLength;
      reads.push(performance.now() - started);
    }
    reads.sort((a, b) => a - b);
    return [
      { name: "analysis: lines + importance p50", value: percentile(samples.both!, 50), unit: "ms", target: { bound: "max", value: 1500 } },
      { name: "analysis: lines + importance max", value: samples.both!.at(-1)!, unit: "ms" },
      { name: "analysis: lines drawn p50", value: percentile(samples.parallel!, 50), unit: "ms" },
      { name: "analysis: importance rows p50", value: percentile(samples.importance!, 50), unit: "ms" },
      {
        name: "grouped by optimizer, 1,000 runs: first panel p50",
        value: percentile(grouped, 50),
        unit: "ms",
        target: { bound: "max", value: 1500 },
      },
      { name: "grouped: first panel max", value: grouped.at(-1)!, unit: "ms" },
      { name: "sweep read (1,000 runs, no metric) p50", value: percentile(reads, 50), unit: "ms" },
      { name: "sweep read size", value: bytes / 1024, unit: "KB" },
      { name: "server peak RSS (sweep)", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" },
    ];
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}
