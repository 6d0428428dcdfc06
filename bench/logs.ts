/**
 * npm run bench:logs — reads of console lines and data rows that must stay bounded in time and bytes.
 * Starts the real server on a temporary data directory, writes one run with 1,000,000 console lines
 * (4 processes numbering their lines from 1, 1% of them ERROR) and one run with 1 MiB console lines
 * and ~4 MiB data rows, then times pages over HTTP. While a request runs, /api/health is polled:
 * its worst latency is how long the server's event loop was blocked by that request.
 * Environment: BENCH_REQUESTS (default 10 per read).
 */
import { rmSync } from "node:fs";
import { READ_PAGE_BYTES } from "../src/domain/paging.js";
import { ApiClient } from "../test/helpers/client.js";
import { ingest } from "../test/helpers/ingest.js";
import { makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { peakRssMb, percentile, printFigures, probeHealth, type Figure } from "./lib/report.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10);
const PROCESSES = 4;
const LINES_PER_PROCESS = 250_000;
const T0 = 1_700_000_000_000;
const MIB = 1024 * 1024;

const dataDir = makeTempDir("stepwise-bench-logs-");
const server = await spawnServer(dataDir);
const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
const client = new ApiClient(server.url, key);

async function send(route: "logs" | "data", run: { runId: number; projectName: string }, lines: string[]): Promise<void> {
  const response = await ingest(client, route, run, lines.join("\n"));
  if (response.status !== 200) throw new Error(`ingest ${route}: ${response.status} ${JSON.stringify(response.body)}`);
}

/** Times `REQUESTS` GETs of one read; the worst /api/health latency seen while they ran. */
async function timeRead(name: string, path: string, query: Record<string, string | number>): Promise<Figure[]> {
  const times: number[] = [];
  let bytes = 0;
  const health = probeHealth(server.url);
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(client.url(path, query), { headers: { authorization: `Bearer ${key}` } });
    bytes = (await response.arrayBuffer()).byteLength;
    if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
    times.push(performance.now() - started);
  }
  const stall = await health.stop();
  times.sort((a, b) => a - b);
  return [
    { name: `${name} p50`, value: percentile(times, 50), unit: "ms" },
    { name: `${name}, loop blocked`, value: stall, unit: "ms", target: { bound: "max", value: 100 } },
    { name: `${name}, response`, value: bytes / MIB, unit: "MiB", target: { bound: "max", value: (2 * READ_PAGE_BYTES) / MIB } },
  ];
}

try {
  const long = await client.createRun({ projectName: "bench" });
  for (let p = 0; p < PROCESSES; p++) {
    for (let start = 1; start <= LINES_PER_PROCESS; start += 50_000) {
      const lines = Array.from({ length: 50_000 }, (_, k) => {
        const n = start + k;
        const logType = n % 100 === 0 ? "ERROR" : "INFO";
        return JSON.stringify({ time: T0 + n * PROCESSES + p, message: `process ${p} step ${n} loss=0.1234`, lineNumber: n, logType });
      });
      await send("logs", long, lines);
    }
  }
  const big = await client.createRun({ projectName: "bench" });
  const bigLines = Array.from({ length: 24 }, (_, i) =>
    JSON.stringify({ time: T0 + i, message: "x".repeat(MIB), lineNumber: i, logType: "INFO" }),
  );
  await send("logs", big, bigLines);
  const rows = Array.from({ length: 8 }, (_, step) =>
    JSON.stringify({ time: T0, step, logName: "table", dataType: "TABLE", data: "y".repeat(4 * MIB - 200) }),
  );
  await send("data", big, rows);

  const total = PROCESSES * LINES_PER_PROCESS;
  const longRun = { runId: long.runId, projectName: "bench" };
  const bigRun = { runId: big.runId, projectName: "bench" };
  const figures = [
    ...(await timeRead("logs 10k, first page", "/api/runs/logs", { ...longRun, limit: 10_000 })),
    ...(await timeRead("logs 10k, middle", "/api/runs/logs", { ...longRun, limit: 10_000, offset: total / 2 })),
    ...(await timeRead("logs 1k, last page", "/api/runs/logs", { ...longRun, offset: total - 1000 })),
    ...(await timeRead("logs ERROR, middle", "/api/runs/logs", { ...longRun, logType: "ERROR", offset: total / 200 })),
    ...(await timeRead("logs of 1 MiB lines", "/api/runs/logs", bigRun)),
    ...(await timeRead("data of 4 MiB rows", "/api/runs/data", bigRun)),
    { name: "server peak RSS", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" },
  ];
  const met = printFigures(
    `Log and data reads: ${total.toLocaleString("en-US")} console lines; pages of ${READ_PAGE_BYTES / MIB} MiB of text`,
    figures,
  );
  process.exitCode = met ? 0 : 1;
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
