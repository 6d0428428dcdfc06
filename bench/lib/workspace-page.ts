/**
 * The browser side of the workspace benchmark (issue 12, "Speed"): the seeded workspace project
 * (bench/lib/workspace.ts) opened in headless Chromium, each load in a fresh browser context (no
 * cache) with a 1280×800 window, the visible-run cap stored as the workspace's "Show up to" button
 * leaves it (20, then 200). At 1280 px the workspace sits beside the project's runs table, in view
 * from its first frame (docs/decisions.md, "Web UI: the project workspace"); on a window too narrow
 * for that it sits below the table, and the page script scrolls it to the top of the window from
 * the first frame it exists until the panels in the window are drawn, as a user who opens the
 * project for its charts would.
 *
 * A panel counts as drawn in the frame its chart is drawn with a line for every shown run (its
 * `data-lines` reaches the run count of its `data-runs`), not with the first runs that arrive.
 * Times run from the start of navigation (the page's time origin). For where the time goes, each
 * load also reports from the Performance API's resource timings: when the runs list and the metric
 * names arrived, when the first batch read was sent, its time to first byte (the server's work,
 * with queueing), when the last batch response ended, and the drawing after it.
 */
import type { Browser } from "playwright-core";
import { percentile, type Figure } from "./report.js";
import type { WorkspaceSeed } from "./workspace.js";

/**
 * Installed before the app loads; plain JavaScript text, because a compiled function would carry
 * the TypeScript loader's helpers into the page.
 */
const WATCH_WORKSPACE = `
  const marks = (window.__ws = {});
  const complete = (panel) => {
    const canvas = panel.querySelector(".chart-canvas[data-drawn=true]");
    const runs = panel.dataset.runs ? panel.dataset.runs.split(",").length : 0;
    return canvas !== null && runs > 0 && Number(canvas.dataset.lines) >= runs;
  };
  const check = () => {
    const workspace = document.querySelector("[data-testid=workspace]");
    // Stacked only (web/src/components/workspace/workspace.css): beside the table there is nothing to scroll to.
    const stacked = !matchMedia("(min-width: 1100px)").matches;
    if (workspace && stacked && marks.allInWindow === undefined && Math.abs(workspace.getBoundingClientRect().top) > 1)
      workspace.scrollIntoView({ block: "start" });
    const panels = [...document.querySelectorAll("[data-testid=workspace] .ws-panel")];
    if (marks.firstPanel === undefined && panels.some(complete)) marks.firstPanel = performance.now();
    const inWindow = panels.filter((panel) => {
      const box = panel.getBoundingClientRect();
      return box.bottom > 0 && box.top < innerHeight;
    });
    if (marks.allInWindow === undefined && inWindow.length > 0 && inWindow.every(complete)) {
      marks.allInWindow = performance.now();
      marks.panelsInWindow = inWindow.length;
      marks.runsPerPanel = inWindow[0].dataset.runs.split(",").length;
    }
    requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
`;

/** Where one load's time went, from the page's resource timings (ms from navigation start). */
const TIMINGS = `(() => {
  const entries = performance.getEntriesByType("resource");
  const path = (entry) => new URL(entry.name).pathname;
  const last = (list) => (list.length > 0 ? Math.max(...list) : NaN);
  const end = (name) => last(entries.filter((e) => path(e) === name).map((e) => e.responseEnd));
  const batches = entries.filter((e) => path(e) === "/api/runs/metrics/batch");
  return {
    runsListed: end("/api/runs/list"),
    namesListed: end("/api/runs/metric-names"),
    batchRequests: batches.length,
    firstBatchSent: Math.min(...batches.map((e) => e.startTime)),
    batchFirstByte: Math.max(...batches.map((e) => e.responseStart - e.requestStart)),
    lastBatchEnd: Math.max(...batches.map((e) => e.responseEnd)),
    batchBytes: batches.reduce((sum, e) => sum + e.encodedBodySize, 0),
  };
})()`;

type Sample = Record<string, number>;

async function load(browser: Browser, url: string, seed: WorkspaceSeed, cap: number): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(`localStorage.setItem("stepwise.apiKey", ${JSON.stringify(seed.key)});`);
  // The stored layout (web/src/lib/workspace.ts, parseLayout): no added panels, default options, the cap.
  const layout = JSON.stringify({ custom: [], options: [], collapsed: [], cap });
  await context.addInitScript(
    `localStorage.setItem(${JSON.stringify(`stepwise.workspace.${seed.projectName}`)}, ${JSON.stringify(layout)});`,
  );
  await context.addInitScript(WATCH_WORKSPACE);
  const page = await context.newPage();
  const asked = { runs: new Set<number>(), logNames: new Set<string>() };
  page.on("request", (request) => {
    if (new URL(request.url()).pathname !== "/api/runs/metrics/batch") return;
    const body = JSON.parse(request.postData() ?? "{}") as { runIds?: number[]; logNames?: string[] };
    for (const id of body.runIds ?? []) asked.runs.add(id);
    for (const name of body.logNames ?? []) asked.logNames.add(name);
  });
  try {
    await page.goto(`${url}/projects/${encodeURIComponent(seed.projectName)}`);
    // A function, not a string: the app's Content Security Policy refuses eval in the page.
    await page.waitForFunction(() => (window as { __ws?: Sample }).__ws?.allInWindow !== undefined, undefined, { timeout: 120_000 });
    const marks = (await page.evaluate("({ ...window.__ws })")) as Sample;
    const timings = (await page.evaluate(TIMINGS)) as Sample;
    return { ...marks, ...timings, askedRuns: asked.runs.size, askedMetrics: asked.logNames.size };
  } finally {
    await context.close();
  }
}

/** A warm-up load (server JIT and page cache, as a server in use would be), then `repeats` loads, each key sorted. */
async function loads(browser: Browser, url: string, seed: WorkspaceSeed, cap: number, repeats: number): Promise<Map<string, number[]>> {
  await load(browser, url, seed, cap);
  const samples = new Map<string, number[]>();
  for (let i = 0; i < repeats; i++) {
    const sample = await load(browser, url, seed, cap);
    sample.drawnAfterLastBatch = sample.allInWindow! - sample.lastBatchEnd!;
    for (const [key, value] of Object.entries(sample)) samples.set(key, [...(samples.get(key) ?? []), value]);
    process.stdout.write(`\r  workspace, ${cap} runs: load ${i + 1}/${repeats}`);
  }
  process.stdout.write("\r                                         \r");
  for (const values of samples.values()) values.sort((a, b) => a - b);
  return samples;
}

export interface PageCase {
  cap: number;
  /** Targets (ms, p50): the first panel and every panel in the window; undefined where the issue sets none. */
  firstPanel?: number;
  allInWindow: number;
}

export const PAGE_CASES: PageCase[] = [
  { cap: 20, firstPanel: 1000, allInWindow: 2000 },
  { cap: 200, allInWindow: 3000 },
];

/** p50 figures with the issue's targets, max of the headline ones, and the p50 breakdown of where the time went. */
export async function measureWorkspacePage(
  browser: Browser,
  url: string,
  seed: WorkspaceSeed,
  repeats: number,
  c: PageCase,
): Promise<Figure[]> {
  const s = await loads(browser, url, seed, c.cap, repeats);
  const p50 = (key: string) => percentile(s.get(key) ?? [], 50);
  const max = (key: string) => s.get(key)?.at(-1) ?? NaN;
  const label = `page ${c.cap} runs:`;
  const figures: Figure[] = [];
  const firstTarget = c.firstPanel === undefined ? undefined : ({ bound: "max", value: c.firstPanel } as const);
  figures.push({ name: `${label} first panel p50`, value: p50("firstPanel"), unit: "ms", target: firstTarget });
  figures.push({ name: `${label} first panel max`, value: max("firstPanel"), unit: "ms" });
  figures.push({
    name: `${label} all in window p50`,
    value: p50("allInWindow"),
    unit: "ms",
    target: { bound: "max", value: c.allInWindow },
  });
  figures.push({ name: `${label} all in window max`, value: max("allInWindow"), unit: "ms" });
  figures.push({ name: `  panels in window × runs`, value: p50("panelsInWindow"), unit: `× ${p50("runsPerPanel")}` });
  figures.push({ name: `  runs list arrived p50`, value: p50("runsListed"), unit: "ms" });
  figures.push({ name: `  metric names arrived p50`, value: p50("namesListed"), unit: "ms" });
  figures.push({ name: `  first batch read sent p50`, value: p50("firstBatchSent"), unit: "ms" });
  figures.push({ name: `  batch reads per load`, value: p50("batchRequests"), unit: "requests" });
  figures.push({ name: `  batch reads: metrics × runs`, value: p50("askedMetrics"), unit: `× ${p50("askedRuns")}` });
  figures.push({ name: `  batch time to first byte p50`, value: p50("batchFirstByte"), unit: "ms" });
  figures.push({ name: `  last batch response end p50`, value: p50("lastBatchEnd"), unit: "ms" });
  figures.push({ name: `  batch bytes (encoded) p50`, value: p50("batchBytes") / 1e6, unit: "MB" });
  figures.push({ name: `  drawn after last response p50`, value: p50("drawnAfterLastBatch"), unit: "ms" });
  return figures;
}
