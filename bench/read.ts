/**
 * npm run bench:read — read latency against the targets of the reads issue.
 * Seeds a data directory once (cached in .bench-cache/, reused while the seed version matches):
 * 2,000 runs × 10 metrics × 1,000 steps, plus one run with a single 5,000,000-point metric,
 * written through the Store directly (seeding is not what is measured). Then starts the real
 * server on it and times repeated requests over keep-alive HTTP from this process.
 * Environment: BENCH_REQUESTS (default 60 per endpoint).
 * `-- --database-url postgres://…/db` runs the server on PostgreSQL instead: the seeded data
 * directory is copied (`stepwise copy`, IDs and keys unchanged) into a fresh database made on that
 * server for the run and dropped afterwards. BENCH_PROFILE_DIR: the server writes a V8 CPU profile
 * there when it stops (bench/lib/cpu-profile.mjs).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ApiClient } from "../test/helpers/client.js";
import pg from "pg";
import { BIN, spawnServer } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { peakRssMb, percentile, printFigures, type Figure } from "./lib/report.js";
import { freshBenchStore } from "./lib/seed.js";

const SEED_VERSION = "read-v1";
const CACHE = fileURLToPath(new URL(`../.bench-cache/${SEED_VERSION}/`, import.meta.url));
const RUNS = 2000;
const METRICS = [
  "train/loss",
  "train/acc",
  "train/grad_norm",
  "train/lr",
  "val/loss",
  "val/acc",
  "val/f1",
  "sys/gpu_util",
  "sys/mem",
  "throughput",
];
const STEPS = 1000;
const LONG_POINTS = 5_000_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60);
const TAGS = ["baseline", "ablation", "sweep", "prod", "debug"];

/** A fresh database on the server of DATABASE_SERVER_URL holding a copy of the seeded data directory, dropped by `drop`. */
async function copiedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { url, drop } = await freshDatabase(DATABASE_SERVER_URL!, "read");
  const started = Date.now();
  const copy = spawnSync(process.execPath, [BIN, "copy", "--from", CACHE, "--to", url], { encoding: "utf8" });
  if (copy.status !== 0) {
    await drop();
    throw new Error(`stepwise copy exited ${copy.status}:\n${copy.stdout}${copy.stderr}`);
  }
  // Fresh statistics for the planner, as autovacuum would have gathered on a database in use, and
  // the copy's written pages flushed now rather than by a checkpoint in the middle of the timings.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client
    .query("VACUUM ANALYZE")
    .then(() => client.query("CHECKPOINT"))
    .finally(() => client.end());
  console.log(`  copied to PostgreSQL and analyzed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { url, drop };
}

async function seed(): Promise<string> {
  if (existsSync(`${CACHE}key.txt`)) return (await import("node:fs")).readFileSync(`${CACHE}key.txt`, "utf8").trim();
  const started = Date.now();
  const { store, orgId, key, actor } = await freshBenchStore(CACHE);
  for (let r = 0; r < RUNS; r++) {
    const config = {
      lr: [0.1, 0.01, 0.001, 0.0001][r % 4]!,
      batch_size: [32, 64, 128][r % 3]!,
      optimizer: r % 2 ? "adam" : "sgd",
      model: { depth: 10 + (r % 40) },
    };
    const { run } = await store.createRun(
      orgId,
      { projectName: "bench-read", name: `run-${r}`, tags: [TAGS[r % TAGS.length]!, `seed-${r % 7}`], config, now: started + r },
      actor,
    );
    const steps = Array.from({ length: STEPS }, (_, s) => s);
    const series = METRICS.map((logName, m) => ({
      logName,
      steps,
      values: steps.map((s) => Math.exp(-s / (200 + r)) * (1 + m) + Math.sin(s + r) * 0.01),
      times: steps.map((s) => started + s * 1000),
    }));
    await store.appendMetricPoints(orgId, run.id, series, started);
    if (r % 200 === 0) process.stdout.write(`\r  seeding runs ${r}/${RUNS}`);
  }
  const { run: long } = await store.createRun(orgId, { projectName: "bench-long", name: "long", tags: [], now: started }, actor);
  for (let from = 0; from < LONG_POINTS; from += 10_000) {
    const steps = Array.from({ length: 10_000 }, (_, i) => from + i);
    await store.appendMetricPoints(
      orgId,
      long.id,
      [
        {
          logName: "loss",
          steps,
          values: steps.map((s) => Math.exp(-s / 1e6) + Math.sin(s / 1000) * 0.1),
          times: steps.map((s) => started + s),
        },
      ],
      started,
    );
    if (from % 500_000 === 0) process.stdout.write(`\r  seeding long series ${from}/${LONG_POINTS}   `);
  }
  await store.close();
  writeFileSync(`${CACHE}key.txt`, key);
  writeFileSync(`${CACHE}long-run.txt`, String(long.id));
  console.log(`\r  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s                    `);
  return key;
}

async function time(client: ApiClient, path: string, query: Record<string, string | number>): Promise<{ p50: number; p99: number }> {
  const run = async () => {
    const t0 = performance.now();
    const response = await client.get(path, query);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 10; i++) await run(); // warm-up: JIT and page cache, as a server in use would be
  const samples = [];
  for (let i = 0; i < REQUESTS; i++) samples.push(await run());
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

execFileSync("npm", ["run", "build"], { stdio: "ignore" });
console.log(
  `Read benchmark (${DATABASE_SERVER_URL ? "PostgreSQL" : "SQLite"}): ${RUNS} runs × ${METRICS.length} metrics × ${STEPS} steps + one ${LONG_POINTS.toLocaleString("en-US")}-point series; ${REQUESTS} requests per endpoint`,
);
const key = await seed();
const longRunId = Number((await import("node:fs")).readFileSync(`${CACHE}long-run.txt`, "utf8"));
const database = DATABASE_SERVER_URL ? await copiedDatabase() : undefined;
const server = await spawnServer(
  CACHE,
  ["--log-level", "error", "--stale-after", "0", ...(database ? ["--database-url", database.url] : [])],
  process.env.BENCH_PROFILE_DIR ? { NODE_OPTIONS: `--import ${fileURLToPath(new URL("./lib/cpu-profile.mjs", import.meta.url))}` } : {},
);
const client = new ApiClient(server.url, key);
const figures: Figure[] = [];
try {
  const firstRuns = (
    await client.get("/api/runs/leaderboard", { projectName: "bench-read", logName: "val/loss", limit: 100 })
  ).body.runs.map((r: { runId: number }) => r.runId);
  const cases: [string, string, Record<string, string | number>, number, number][] = [
    [
      "/metrics 5M series, whole range",
      "/api/runs/metrics",
      { runId: longRunId, projectName: "bench-long", logName: "loss", limit: 1000 },
      50,
      60,
    ],
    [
      "/metrics 5M series, 10% window",
      "/api/runs/metrics",
      { runId: longRunId, projectName: "bench-long", logName: "loss", limit: 1000, stepMin: 2_000_000, stepMax: 2_499_999 },
      20,
      60,
    ],
    ["/statistics (10 metrics)", "/api/runs/statistics", { runId: firstRuns[0], projectName: "bench-read" }, 20, 60],
    ...["MIN", "MAX", "AVG", "LAST", "VARIANCE"].map(
      (aggregation) =>
        [
          `/leaderboard ${aggregation} over ${RUNS} runs`,
          "/api/runs/leaderboard",
          { projectName: "bench-read", logName: "val/loss", aggregation, limit: 20 },
          20,
          60,
        ] as [string, string, Record<string, string | number>, number, number],
    ),
    ["/compare 100 runs", "/api/runs/compare", { runIds: firstRuns.join(","), projectName: "bench-read", logName: "val/loss" }, 20, 60],
    [
      "/list config + summary + tags filter",
      "/api/runs/list",
      {
        projectName: "bench-read",
        limit: 50,
        filter: JSON.stringify({
          $and: [{ "config.lr": { $lte: 0.01 } }, { "summaryMetrics.val/loss": { $lt: 2 } }, { tags: { $in: ["baseline", "sweep"] } }],
        }),
      },
      20,
      60,
    ],
    ["/list 50 runs with divergedMetrics", "/api/runs/list", { projectName: "bench-read", limit: 50, includeDiverged: "true" }, 20, 60],
    ["/metric-names", "/api/runs/metric-names", { projectName: "bench-read" }, 20, 60],
  ];
  for (const [name, path, query, p50Target, p99Target] of cases) {
    try {
      const { p50, p99 } = await time(client, path, query);
      figures.push({ name: `${name} p50`, value: p50, unit: "ms", target: { bound: "max", value: p50Target } });
      figures.push({ name: `${name} p99`, value: p99, unit: "ms", target: { bound: "max", value: p99Target } });
    } catch (error) {
      console.log(`  ${name}: FAILED — ${(error as Error).message}`);
    }
  }
  figures.push({ name: "server peak RSS", value: peakRssMb(server.child.pid!) ?? NaN, unit: "MB" });
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  await database?.drop();
}
const met = printFigures("Results (client-observed latency over loopback keep-alive)", figures);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
