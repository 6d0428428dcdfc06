/**
 * npm run bench:ingest — HTTP ingest throughput against the targets of the ingest issue.
 * Starts the real server (bin/stepwise) on a temporary data directory, drives it from a separate
 * load process (8 clients, 10,000-point batches of 100 metrics per step, 30 s), samples the
 * server's peak RSS, then measures the raw ceiling of the store: the same batches written
 * directly through Store.appendMetricPoints, without HTTP, in this process.
 * Environment: BENCH_SECONDS (default 30), BENCH_CLIENTS (8), BENCH_PROFILE_DIR (see below).
 * `-- --database-url postgres://…/db` runs both on PostgreSQL: in a fresh database made on that
 * server for the run and dropped afterwards; it then also measures the PostgreSQL ceiling for the
 * chunk rows these batches write (bench/pg-chunk-writes.ts) and reports HTTP as a share of it, and
 * counts the statements the store sends per batch. `--processes N` (PostgreSQL only) starts N
 * server processes on the one database, the clients spread over them, and reports the total.
 */
import { execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { decodeMetrics } from "../src/ingest/decode.js";
import pg from "pg";
import { PostgresStore } from "../src/store/postgres/index.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import type { Store } from "../src/store/store.js";
import { ApiClient } from "../test/helpers/client.js";
import { makeTempDir, spawnServer, type ServerProcess } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { CpuTally, cpuSeconds, peakRssMb, percentile, printFigures } from "./lib/report.js";
import { chunkRowCeiling } from "./pg-chunk-writes.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
/** BENCH_PROFILE_DIR: the server writes a V8 CPU profile there when it stops (bench/lib/cpu-profile.mjs). */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const PROCESSES = (() => {
  const at = process.argv.indexOf("--processes");
  return at === -1 ? 1 : Number(process.argv[at + 1]);
})();
if (!Number.isInteger(PROCESSES) || PROCESSES < 1 || (PROCESSES > 1 && !DATABASE_SERVER_URL)) {
  console.error("--processes takes a positive integer, and more than one process needs --database-url");
  process.exit(2);
}
const METRICS = 100;
const STEPS_PER_BATCH = 100;

async function measureHttp() {
  const dataDir = makeTempDir("stepwise-bench-");
  const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "ingest") : undefined;
  const serve = (args: string[]) =>
    spawnServer(
      dataDir,
      ["--log-level", "error", ...(database ? ["--database-url", database.url] : []), ...args],
      PROFILE_DIR ? { NODE_OPTIONS: `--import ${fileURLToPath(new URL("./lib/cpu-profile.mjs", import.meta.url))}` } : {},
    );
  // The first process makes the bootstrap organization and prints its key; the others find it.
  const servers: ServerProcess[] = [];
  try {
    for (let p = 0; p < PROCESSES; p++) servers.push(await serve([]));
    const key = /sw_[A-Za-z0-9_-]+/.exec(servers[0]!.stdout())![0];
    const client = new ApiClient(servers[0]!.url, key);
    const runIds = [];
    for (let c = 0; c < CLIENTS; c++) runIds.push((await client.createRun({ projectName: "bench", runName: `client-${c}` })).runId);

    const load = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(new URL("./lib/ingest-load.ts", import.meta.url)),
        servers.map((server) => server.url).join(","),
        key,
        "bench",
        runIds.join(","),
        String(SECONDS),
        String(METRICS),
        String(STEPS_PER_BATCH),
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    load.stdout.on("data", (chunk: Buffer) => (output += chunk));
    let peak = 0;
    // Where the CPU goes: the servers, the database's backends (found in pg_stat_activity; this
    // machine runs PostgreSQL too) and the load process, sampled from /proc while the load runs.
    const cpu = { servers: new CpuTally(), database: new CpuTally(), load: new CpuTally() };
    const serverPids = servers.map((server) => server.child.pid!);
    const cpuAtStart = { servers: serverPids.map((pid) => cpuSeconds(pid) ?? 0).reduce((a, b) => a + b, 0) };
    const admin = database ? new pg.Client({ connectionString: database.url }) : undefined;
    await admin?.connect();
    const backends = async () =>
      admin
        ? (
            await admin.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
          ).rows.map((r) => r.pid)
        : [];
    const sample = async () => {
      for (const server of servers) peak = Math.max(peak, peakRssMb(server.child.pid!) ?? 0);
      cpu.servers.sample(serverPids);
      cpu.load.sample([load.pid!]);
      cpu.database.sample(await backends());
    };
    const sampler = setInterval(() => void sample().catch(() => {}), 250);
    await new Promise((resolve) => load.once("exit", resolve));
    clearInterval(sampler);
    await sample();
    await admin?.end();
    const result = JSON.parse(output) as { points: number; elapsed: number; latencies: number[] };
    const sorted = result.latencies.sort((a, b) => a - b);
    return {
      pointsPerSecond: result.points / result.elapsed,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      peakRss: peak,
      requests: sorted.length,
      cpuPerMillion: {
        servers: ((cpu.servers.total() - cpuAtStart.servers) * 1e6) / result.points,
        database: database ? (cpu.database.total() * 1e6) / result.points : NaN,
        load: (cpu.load.total() * 1e6) / result.points,
      },
    };
  } finally {
    for (const server of servers) server.child.kill("SIGTERM");
    await Promise.all(servers.map((server) => server.exited));
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

/** The same batches through the Store interface directly: the ceiling HTTP can approach. */
async function measureRawStore(seconds: number) {
  const dataDir = makeTempDir("stepwise-bench-raw-");
  const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "ingest") : undefined;
  const store: Store = database ? await PostgresStore.open(database.url) : SqliteStore.open(dataDir);
  try {
    const { organization } = await import("../src/services/accounts.js").then((m) =>
      m.createOrganizationWithKey(store, "bench", { now: () => Date.now() }),
    );
    const runIds = [];
    for (let c = 0; c < CLIENTS; c++) {
      const actor = { userId: null, apiKeyId: null };
      runIds.push(
        (await store.createRun(organization.id, { projectName: "bench", name: `raw-${c}`, tags: [], now: Date.now() }, actor)).run.id,
      );
    }
    const templates = Array.from({ length: 16 }, (_, variant) => {
      const data: Record<string, number> = {};
      for (let m = 0; m < METRICS; m++) data[`group${m % 10}/metric_${m}`] = Math.sin(variant * 0.37 + m) * 10;
      return JSON.stringify(data);
    });
    statementsBefore = statements;
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
        const body = lines.join("\n");
        const decodeStarted = performance.now();
        const { series } = await decodeMetrics(body); // timed apart from the store call below
        const t0 = performance.now();
        decodeTime += t0 - decodeStarted;
        points += (await store.appendMetricPoints(organization.id, runId, series, Date.now()))!;
        storeTime += performance.now() - t0;
        batches++;
      }
    }
    return {
      pointsPerSecond: points / (storeTime / 1000),
      decodeSecondsPerMillion: decodeTime / 1000 / (points / 1e6),
      statementsPerBatch: (statements - statementsBefore) / batches,
    };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}
let storeTime = 0;
let decodeTime = 0;
let batches = 0;
// Every statement the store sends (BEGIN and COMMIT included) is one round trip: counted here, per batch.
let statements = 0;
let statementsBefore = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

execFileSync("npm", ["run", "build"], { stdio: "ignore" });
console.log(
  `Ingest benchmark (${DATABASE_SERVER_URL ? `PostgreSQL, ${PROCESSES} server process${PROCESSES > 1 ? "es" : ""}` : "SQLite"}): ${CLIENTS} clients, ${METRICS * STEPS_PER_BATCH}-point batches (${METRICS} metrics × ${STEPS_PER_BATCH} steps), ${SECONDS} s`,
);
const http = await measureHttp();
const raw = await measureRawStore(Math.min(SECONDS, 15));
// The same chunk rows without HTTP: one row of STEPS_PER_BATCH points per metric per batch, in the
// store's multi-row INSERTs (64 rows), from 4 connections; and full 512-point rows for reference.
const ceiling = DATABASE_SERVER_URL
  ? {
      batchRows: await chunkRowCeiling({
        adminUrl: DATABASE_SERVER_URL,
        points: 3_000_000,
        pointsPerChunk: STEPS_PER_BATCH,
        rowsPerStatement: 64,
        connections: 4,
      }),
      fullRows: await chunkRowCeiling({
        adminUrl: DATABASE_SERVER_URL,
        points: 3_000_000,
        pointsPerChunk: 512,
        rowsPerStatement: 16,
        connections: 4,
      }),
    }
  : undefined;
const met = printFigures("Results", [
  {
    name: "HTTP ingest throughput",
    value: http.pointsPerSecond,
    unit: "points/s",
    target: { bound: "min", value: DATABASE_SERVER_URL ? 400_000 : 500_000 },
  },
  { name: "request latency p50", value: http.p50, unit: "ms" },
  { name: "CPU per 1M points: Stepwise", value: http.cpuPerMillion.servers, unit: "s" },
  ...(DATABASE_SERVER_URL ? [{ name: "CPU per 1M points: PostgreSQL", value: http.cpuPerMillion.database, unit: "s" }] : []),
  { name: "CPU per 1M points: load process", value: http.cpuPerMillion.load, unit: "s" },
  { name: "request latency p99", value: http.p99, unit: "ms", target: { bound: "max", value: DATABASE_SERVER_URL ? 300 : 250 } },
  { name: "server peak RSS", value: http.peakRss, unit: "MB", target: { bound: "max", value: 300 } },
  {
    name: DATABASE_SERVER_URL ? "raw store, one caller (no HTTP)" : "raw store ceiling (no HTTP)",
    value: raw.pointsPerSecond,
    unit: "points/s",
  },
  { name: "NDJSON decoding per 1M points (no HTTP)", value: raw.decodeSecondsPerMillion, unit: "s" },
  ...(DATABASE_SERVER_URL
    ? [
        { name: "statements per batch (raw store)", value: raw.statementsPerBatch, unit: "" },
        { name: `chunk rows of ${STEPS_PER_BATCH} points, no HTTP`, value: ceiling!.batchRows.pointsPerSecond, unit: "points/s" },
        { name: "  its CPU per 1M points: PostgreSQL", value: ceiling!.batchRows.cpuPerMillion.database, unit: "s" },
        { name: "  its CPU per 1M points: writer", value: ceiling!.batchRows.cpuPerMillion.writer, unit: "s" },
        {
          name: "ratio HTTP / chunk-row ceiling",
          value: http.pointsPerSecond / ceiling!.batchRows.pointsPerSecond,
          unit: "",
          target: { bound: "min" as const, value: 0.6 },
        },
        { name: "chunk rows of 512 points, no HTTP", value: ceiling!.fullRows.pointsPerSecond, unit: "points/s" },
      ]
    : [
        {
          name: "ratio HTTP / raw store",
          value: http.pointsPerSecond / raw.pointsPerSecond,
          unit: "",
          target: { bound: "min" as const, value: 0.6 },
        },
      ]),
  { name: "requests", value: http.requests, unit: "" },
]);
console.log(
  `\nLoad average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")} (${availableParallelism()} cores)`,
);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
