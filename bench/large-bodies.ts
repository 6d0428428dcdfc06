/**
 * npm run bench:large-bodies — ingest bodies at the 64 MiB limit must not stand the server still.
 * Starts the real server (bin/stepwise) on a temporary data directory, makes a ~63 MiB
 * /ingest/metrics body (~2.9M points: 100 metrics per step), sends it alone and then BENCH_CONCURRENT
 * copies at once (each to its own run), while /api/health is polled: its worst latency is how long
 * the event loop was blocked. Prints the time per body, what the concurrent copies were answered
 * (200, or 503 with Retry-After past the large-body budget), and the server's peak RSS.
 * `-- --database-url postgres://…` runs it on PostgreSQL, in a fresh database dropped afterwards.
 * Environment: BENCH_CONCURRENT (default 8).
 */
import { rmSync } from "node:fs";
import { ApiClient } from "../test/helpers/client.js";
import { makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { peakRssMb, printFigures, probeHealth, type Figure } from "./lib/report.js";

const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 8);
const METRICS = 100;
const MIB = 1024 * 1024;

function largeBody(): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let step = 0; bytes < 63 * MIB; step++) {
    const data: Record<string, number> = {};
    for (let m = 0; m < METRICS; m++) data[`layer_${m}/grad_norm`] = Math.sin(step + m) * 1e-3 + m;
    const line = JSON.stringify({ time: 1_700_000_000_000 + step, step, data });
    lines.push(line);
    bytes += line.length + 1;
  }
  return lines.join("\n");
}

const dataDir = makeTempDir("stepwise-bench-large-");
const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "large") : undefined;
const server = await spawnServer(dataDir, ["--log-level", "error", ...(database ? ["--database-url", database.url] : [])]);
try {
  const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
  const client = new ApiClient(server.url, key);
  const body = largeBody();
  const points = (body.match(/\n/g)!.length + 1) * METRICS;

  /** Sends `count` bodies at once; the worst /api/health latency meanwhile, each answer's status and time. */
  async function send(count: number, label: string): Promise<Figure[]> {
    const runs = [];
    for (let i = 0; i < count; i++) runs.push(await client.createRun({ projectName: "large", runName: `${label}-${i}` }));
    const health = probeHealth(server.url, 5);
    const started = performance.now();
    const answers = await Promise.all(
      runs.map(async (run) => {
        const response = await fetch(`${server.url}/ingest/metrics`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "x-run-id": String(run.runId), "x-project-name": run.projectName },
          body,
        });
        await response.arrayBuffer();
        return { status: response.status, retryAfter: response.headers.get("retry-after"), ms: performance.now() - started };
      }),
    );
    const stall = await health.stop();
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503 && a.retryAfter !== null);
    const other = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.retryAfter !== null));
    if (other.length > 0) throw new Error(`${label}: unexpected answers ${JSON.stringify(other)}`);
    return [
      { name: `${label}: accepted (200)`, value: accepted.length, unit: "bodies" },
      { name: `${label}: refused (503, Retry-After)`, value: refused.length, unit: "bodies" },
      { name: `${label}: slowest accepted body`, value: Math.max(...accepted.map((a) => a.ms)), unit: "ms" },
      { name: `${label}: loop blocked`, value: stall, unit: "ms", target: { bound: "max", value: 250 } },
    ];
  }

  const figures: Figure[] = [
    { name: "body", value: body.length / MIB, unit: "MiB" },
    { name: "points per body", value: points, unit: "points" },
    ...(await send(1, "one body")),
    ...(await send(CONCURRENT, `${CONCURRENT} at once`)),
  ];
  const rss = peakRssMb(server.child.pid!);
  if (rss !== undefined) figures.push({ name: "server peak RSS", value: rss, unit: "MB", target: { bound: "max", value: 1024 } });
  process.exitCode = printFigures(`Large ingest bodies (${database ? "PostgreSQL" : "SQLite"})`, figures) ? 0 : 1;
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
}
