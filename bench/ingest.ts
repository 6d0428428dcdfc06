/**
 * npm run bench:ingest — HTTP ingest throughput against the targets of the ingest issue.
 * Starts the real server (bin/stepwise) on a temporary data directory, drives it from a separate
 * load process (8 clients, 10,000-point batches of 100 metrics per step, 30 s), samples the
 * server's peak RSS, then measures the raw ceiling of the store: the same batches written
 * directly through Store.appendMetricPoints, without HTTP, in this process.
 * Environment: BENCH_SECONDS (default 30), BENCH_CLIENTS (8).
 */
import { execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decodeMetrics } from "../src/ingest/decode.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import { ApiClient } from "../test/helpers/client.js";
import { makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { peakRssMb, percentile, printFigures } from "./lib/report.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const METRICS = 100;
const STEPS_PER_BATCH = 100;

async function measureHttp() {
  const dataDir = makeTempDir("stepwise-bench-");
  const server = await spawnServer(dataDir, ["--log-level", "error"]);
  try {
    const key = /sw_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
    const client = new ApiClient(server.url, key);
    const runIds = [];
    for (let c = 0; c < CLIENTS; c++) runIds.push((await client.createRun({ projectName: "bench", runName: `client-${c}` })).runId);

    const load = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./lib/ingest-load.ts", import.meta.url)), server.url, key, "bench", runIds.join(","), String(SECONDS), String(METRICS), String(STEPS_PER_BATCH)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    load.stdout.on("data", (chunk: Buffer) => (output += chunk));
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(server.child.pid!) ?? 0)), 250);
    await new Promise((resolve) => load.once("exit", resolve));
    clearInterval(sampler);
    peak = Math.max(peak, peakRssMb(server.child.pid!) ?? 0);
    const result = JSON.parse(output) as { points: number; elapsed: number; latencies: number[] };
    const sorted = result.latencies.sort((a, b) => a - b);
    return { pointsPerSecond: result.points / result.elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), peakRss: peak, requests: sorted.length };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The same batches through the Store interface directly: the ceiling HTTP can approach. */
async function measureRawStore(seconds: number) {
  const dataDir = makeTempDir("stepwise-bench-raw-");
  const store = SqliteStore.open(dataDir);
  try {
    const { organization } = await import("../src/services/accounts.js").then((m) => m.createOrganizationWithKey(store, "bench", { now: () => Date.now() }));
    const runIds = [];
    for (let c = 0; c < CLIENTS; c++) {
      const actor = { userId: null, apiKeyId: null };
      runIds.push((await store.createRun(organization.id, { projectName: "bench", name: `raw-${c}`, tags: [], now: Date.now() }, actor)).run.id);
    }
    const templates = Array.from({ length: 16 }, (_, variant) => {
      const data: Record<string, number> = {};
      for (let m = 0; m < METRICS; m++) data[`group${m % 10}/metric_${m}`] = Math.sin(variant * 0.37 + m) * 10;
      return JSON.stringify(data);
    });
    const deadline = Date.now() + seconds * 1000;
    const started = Date.now();
    let points = 0;
    for (let batch = 0; Date.now() < deadline; batch++) {
      for (const runId of runIds) {
        const lines = [];
        for (let k = 0; k < STEPS_PER_BATCH; k++) {
          const step = batch * STEPS_PER_BATCH + k;
          lines.push(`{"time":${started + step},"step":${step},"data":${templates[step % 16]}}`);
        }
        const { series } = decodeMetrics(lines.join("\n")); // decoded outside the timed store call below
        const t0 = performance.now();
        points += (await store.appendMetricPoints(organization.id, runId, series, Date.now()))!;
        storeTime += performance.now() - t0;
      }
    }
    return points / (storeTime / 1000);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
let storeTime = 0;

execFileSync("npm", ["run", "build"], { stdio: "ignore" });
console.log(`Ingest benchmark: ${CLIENTS} clients, ${METRICS * STEPS_PER_BATCH}-point batches (${METRICS} metrics × ${STEPS_PER_BATCH} steps), ${SECONDS} s`);
const http = await measureHttp();
const raw = await measureRawStore(Math.min(SECONDS, 15));
const met = printFigures("Results", [
  { name: "HTTP ingest throughput", value: http.pointsPerSecond, unit: "points/s", target: { bound: "min", value: 500_000 } },
  { name: "request latency p50", value: http.p50, unit: "ms" },
  { name: "request latency p99", value: http.p99, unit: "ms", target: { bound: "max", value: 250 } },
  { name: "server peak RSS", value: http.peakRss, unit: "MB", target: { bound: "max", value: 300 } },
  { name: "raw store ceiling (no HTTP)", value: raw, unit: "points/s" },
  { name: "ratio HTTP / raw store", value: http.pointsPerSecond / raw, unit: "", target: { bound: "min", value: 0.6 } },
  { name: "requests", value: http.requests, unit: "" },
]);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
