/**
 * The server side of the workspace benchmark: POST /api/runs/metrics/batch over the seeded
 * workspace project (bench/lib/workspace.ts), timed from this process over loopback keep-alive to
 * the last byte of the body (JSON parsing is the page's work, measured by the browser part). Each
 * case is held to the page target it is a part of, so the figures show how much of the
 * page's budget the server takes. While the largest case runs, a second client pings
 * /api/health to show that a batch does not hold the server (it yields after every series).
 */
import { bucketsForRuns } from "../../src/domain/metric-batch.js";
import { percentile, type Figure } from "./report.js";
import type { WorkspaceSeed } from "./workspace.js";

export interface BatchCase {
  label: string;
  runs: number;
  metrics: number;
  /** The page target (ms) this read is a part of, if any. */
  target?: number;
}

/**
 * Panels in a 1280×800 window: 9, as the workspace page shows them there (3 × 3, measured by
 * bench/lib/workspace-page.ts; BENCH_WINDOW_PANELS). Each case reads at the bucket count the
 * workspace asks for with that many runs (bucketsForRuns: 250 for 20 runs, 62 for 200).
 */
export const WINDOW_PANELS = Number(process.env.BENCH_WINDOW_PANELS ?? 9);

export function batchCases(panels = WINDOW_PANELS): BatchCase[] {
  return [
    { label: "20 runs × 1 (first panel)", runs: 20, metrics: 1, target: 1000 },
    { label: `20 runs × ${panels} (window)`, runs: 20, metrics: panels, target: 2000 },
    { label: "20 runs × 50 (every panel)", runs: 20, metrics: 50 },
    { label: "200 runs × 1", runs: 200, metrics: 1 },
    { label: `200 runs × ${panels} (window)`, runs: 200, metrics: panels, target: 3000 },
  ];
}

async function post(url: string, key: string, body: unknown): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const response = await fetch(`${url}/api/runs/metrics/batch`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const bytes = (await response.arrayBuffer()).byteLength;
  const ms = performance.now() - t0;
  if (response.status !== 200) throw new Error(`batch read answered ${response.status}`);
  return { ms, bytes };
}

/** p50, p99 (with the case's target), response size, and the latency of other requests during the last case. */
export async function measureBatchRead(url: string, seed: WorkspaceSeed, requests: number, cases = batchCases()): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const [index, c] of cases.entries()) {
    const body = {
      projectName: seed.projectName,
      runIds: seed.runIds.slice(0, c.runs),
      logNames: seed.logNames.slice(0, c.metrics),
      buckets: bucketsForRuns(c.runs),
    };
    for (let i = 0; i < 3; i++) await post(url, seed.key, body); // warm-up: JIT and page cache, as a server in use would be
    const last = index === cases.length - 1;
    const pings: number[] = [];
    let reading = true;
    const pinger = (async () => {
      while (last && reading) {
        const t0 = performance.now();
        await (await fetch(`${url}/api/health`)).arrayBuffer();
        pings.push(performance.now() - t0);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < requests; i++) {
      const result = await post(url, seed.key, body);
      samples.push(result.ms);
      bytes = result.bytes;
    }
    reading = false;
    await pinger;
    samples.sort((a, b) => a - b);
    const target = c.target === undefined ? undefined : ({ bound: "max", value: c.target } as const);
    figures.push({ name: `batch ${c.label} p50`, value: percentile(samples, 50), unit: "ms", target });
    figures.push({ name: `batch ${c.label} p99`, value: percentile(samples, 99), unit: "ms", target });
    figures.push({ name: `batch ${c.label} size`, value: bytes / 1e6, unit: "MB" });
    if (last) {
      pings.sort((a, b) => a - b);
      figures.push({ name: "  /api/health meanwhile p50", value: percentile(pings, 50), unit: "ms" });
      figures.push({ name: "  /api/health meanwhile max", value: pings.at(-1) ?? NaN, unit: "ms" });
    }
  }
  return figures;
}
