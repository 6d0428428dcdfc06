/**
 * npm run bench:ingest — HTTP ingest throughput against the targets of the ingest issues.
 * Starts the real server (bin/stepwise) on a temporary data directory, drives it from a separate
 * load process (10,000-point batches of 100 metrics per step over keep-alive), samples the
 * server's peak RSS and CPU, then measures the raw ceiling of the store: the same batches written
 * directly through Store.appendMetricPoints, without HTTP, in this process.
 * At each number of clients (8, then 24) the same load goes alternately to a null sink
 * (bench/lib/null-sink.mjs: reads each body and JSON.parses its lines, nothing else) and to
 * Stepwise, and the ratio of the two is printed: the machine's own limit, measured in the same run.
 * On SQLite it also samples the server's main thread (running, blocked on disk, idle) during the
 * Stepwise phase, and in a short extra phase under strace counts commits (fsyncs of the WAL) and
 * write calls per commit.
 * Environment: BENCH_SECONDS (default 20, per phase), BENCH_CLIENTS (8,24), BENCH_ROUNDS (1: null
 * sink and Stepwise alternate this many times at each number of clients), BENCH_PROFILE_DIR (see below).
 * `-- --database-url postgres://…/db` runs both on PostgreSQL: in a fresh database made on that
 * server for the run and dropped afterwards; it then also measures the PostgreSQL ceiling for the
 * chunk rows these batches write (bench/pg-chunk-writes.ts) and reports HTTP as a share of it, and
 * counts the statements the store sends per batch. `--processes N` (PostgreSQL only) starts N
 * server processes on the one database, the clients spread over them, and reports the total.
 */
import { execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
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

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CLIENT_COUNTS = (process.env.BENCH_CLIENTS ?? "8,24").split(",").map(Number);
const CLIENTS = CLIENT_COUNTS[0]!;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
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

/** The null sink as a server process (bench/lib/null-sink.mjs); its key and runs are whatever the load sends. */
async function spawnNullSink(): Promise<ServerProcess> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./lib/null-sink.mjs", import.meta.url))]);
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const url = await new Promise<string>((resolve) =>
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    }),
  );
  return { url, child, stdout: () => out, exited };
}

/** A thread's scheduler state (R running, S sleeping, D waiting for the disk) and CPU seconds, from /proc. */
function threadStat(pid: number, tid: number): { state: string; cpu: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return { state: fields[0]!, cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
  } catch {
    return undefined;
  }
}

/** The server's CPU seconds so far: its main thread, and every other thread (the SQLite writer, libuv's pool, V8's GC helpers). */
function cpuByThread(pid: number): { main: number; others: number } {
  const main = threadStat(pid, pid)?.cpu ?? 0;
  let all = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) all += threadStat(pid, Number(tid))?.cpu ?? 0;
  } catch {}
  return { main, others: all - main };
}

/**
 * Commits and write calls under strace for `seconds` while the load runs (SQLite): each commit
 * fsyncs the WAL (synchronous=FULL), and each checkpoint fsyncs the WAL once and the database once,
 * so commits = WAL fsyncs − database fsyncs.
 */
async function traceWrites(pid: number, seconds: number) {
  const out = join(makeTempDir("stepwise-bench-strace-"), "trace");
  const strace = spawn("strace", ["-f", "-qq", "-y", "-e", "trace=pwrite64,write,fsync,fdatasync", "-o", out, "-p", String(pid)], {
    stdio: "ignore",
  });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  strace.kill("SIGINT");
  await new Promise((resolve) => strace.once("exit", resolve));
  const lines = readFileSync(out, "utf8").split("\n");
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  const walSyncs = count(/f(data)?sync\(\d+<[^>]*-wal>/);
  const dbSyncs = count(/f(data)?sync\(\d+<[^>]*\.db>/);
  const commits = Math.max(1, walSyncs - dbSyncs);
  return {
    commitsPerSecond: commits / seconds,
    writesPerCommit: count(/^\d+\s+p?write(64)?\(\d+<[^>]*(\.db|-wal)>/) / commits,
    walWritesPerCommit: count(/^\d+\s+p?write(64)?\(\d+<[^>]*-wal>/) / commits,
    checkpointsPerSecond: dbSyncs / seconds,
  };
}

type Target = "stepwise" | "null";

async function measureHttp(target: Target, clients: number, seconds = SECONDS, trace = false) {
  const dataDir = makeTempDir("stepwise-bench-");
  const database = target === "stepwise" && DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "ingest") : undefined;
  const serve = (args: string[]) =>
    spawnServer(
      dataDir,
      ["--log-level", "error", ...(database ? ["--database-url", database.url] : []), ...args],
      PROFILE_DIR ? { NODE_OPTIONS: `--import ${fileURLToPath(new URL("./lib/cpu-profile.mjs", import.meta.url))}` } : {},
    );
  // The first process makes the bootstrap organization and prints its key; the others find it.
  const servers: ServerProcess[] = [];
  try {
    if (target === "null") servers.push(await spawnNullSink());
    else for (let p = 0; p < PROCESSES; p++) servers.push(await serve([]));
    const key = target === "null" ? "sw_null" : /sw_[A-Za-z0-9_-]+/.exec(servers[0]!.stdout())![0];
    const client = new ApiClient(servers[0]!.url, key);
    const runIds = [];
    for (let c = 0; c < clients; c++)
      runIds.push(target === "null" ? c + 1 : (await client.createRun({ projectName: "bench", runName: `client-${c}` })).runId);

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
        String(seconds),
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
    const threadsAtStart = cpuByThread(serverPids[0]!);
    // The main thread's state every 5 ms: running, blocked on the disk (fsync, reads), or idle.
    const states = new Map<string, number>();
    const stateSampler = setInterval(() => {
      const state = threadStat(serverPids[0]!, serverPids[0]!)?.state;
      if (state) states.set(state, (states.get(state) ?? 0) + 1);
    }, 5);
    const traced = trace ? traceWrites(serverPids[0]!, Math.max(1, seconds - 2)) : undefined;
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
    clearInterval(stateSampler);
    await sample();
    const threads = cpuByThread(serverPids[0]!);
    await admin?.end();
    const sampled = [...states.values()].reduce((a, b) => a + b, 0);
    const share = (state: string) => (states.get(state) ?? 0) / sampled;
    const result = JSON.parse(output) as { points: number; elapsed: number; latencies: number[] };
    const sorted = result.latencies.sort((a, b) => a - b);
    return {
      pointsPerSecond: result.points / result.elapsed,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      peakRss: peak,
      requests: sorted.length,
      mainThread: { running: share("R"), disk: share("D"), idle: share("S") },
      writes: await traced,
      cpuPerMillion: {
        mainThread: ((threads.main - threadsAtStart.main) * 1e6) / result.points,
        otherThreads: ((threads.others - threadsAtStart.others) * 1e6) / result.points,
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
  `Ingest benchmark (${DATABASE_SERVER_URL ? `PostgreSQL, ${PROCESSES} server process${PROCESSES > 1 ? "es" : ""}` : "SQLite"}): ${CLIENT_COUNTS.join(" and ")} clients, ${METRICS * STEPS_PER_BATCH}-point batches (${METRICS} metrics × ${STEPS_PER_BATCH} steps), ${SECONDS} s per phase, null sink and Stepwise alternating ${ROUNDS}×`,
);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
type Http = Awaited<ReturnType<typeof measureHttp>>;
const phases: { clients: number; sink: Http[]; stepwise: Http[] }[] = [];
for (const clients of CLIENT_COUNTS) {
  const phase = { clients, sink: [] as Http[], stepwise: [] as Http[] };
  for (let round = 0; round < ROUNDS; round++) {
    phase.sink.push(await measureHttp("null", clients));
    phase.stepwise.push(await measureHttp("stepwise", clients));
    const [sink, stepwise] = [phase.sink.at(-1)!, phase.stepwise.at(-1)!];
    console.log(
      `  ${clients} clients, round ${round + 1}: null sink ${Math.round(sink.pointsPerSecond).toLocaleString("en-US")}, Stepwise ${Math.round(stepwise.pointsPerSecond).toLocaleString("en-US")} points/s (ratio ${(stepwise.pointsPerSecond / sink.pointsPerSecond).toFixed(2)}; load average ${load()})`,
    );
  }
  phases.push(phase);
}
// Commits and write calls per commit, in a short extra phase under strace (it slows what it traces).
const traced = DATABASE_SERVER_URL ? undefined : await measureHttp("stepwise", CLIENTS, 8, true).catch(() => undefined);
const raw = await measureRawStore(Math.min(SECONDS, 10));
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
    }
  : undefined;

const mean = (runs: Http[], of: (run: Http) => number) => runs.reduce((sum, run) => sum + of(run), 0) / runs.length;
let met = true;
for (const { clients, sink, stepwise } of phases) {
  const first = clients === CLIENT_COUNTS[0];
  const http = (of: (run: Http) => number) => mean(stepwise, of);
  met =
    printFigures(`Results, ${clients} clients (mean of ${ROUNDS} round${ROUNDS > 1 ? "s" : ""})`, [
      { name: "null sink throughput", value: mean(sink, (run) => run.pointsPerSecond), unit: "points/s" },
      {
        name: "HTTP ingest throughput",
        value: http((run) => run.pointsPerSecond),
        unit: "points/s",
        ...(first ? { target: { bound: "min" as const, value: DATABASE_SERVER_URL ? 400_000 : 1_600_000 } } : {}),
      },
      {
        name: "ratio Stepwise / null sink",
        value: http((run) => run.pointsPerSecond) / mean(sink, (run) => run.pointsPerSecond),
        unit: "",
        ...(first && !DATABASE_SERVER_URL ? { target: { bound: "min" as const, value: 0.4 } } : {}),
      },
      { name: "request latency p50", value: http((run) => run.p50), unit: "ms" },
      {
        name: "request latency p99",
        value: http((run) => run.p99),
        unit: "ms",
        ...(first ? { target: { bound: "max" as const, value: DATABASE_SERVER_URL ? 300 : 250 } } : {}),
      },
      {
        name: "server peak RSS",
        value: Math.max(...stepwise.map((run) => run.peakRss)),
        unit: "MB",
        ...(first ? { target: { bound: "max" as const, value: 400 * 1.048576 } } : {}),
      },
      { name: "CPU per 1M points: Stepwise", value: http((run) => run.cpuPerMillion.servers), unit: "s" },
      { name: "  its main thread", value: http((run) => run.cpuPerMillion.mainThread), unit: "s" },
      { name: "  its other threads", value: http((run) => run.cpuPerMillion.otherThreads), unit: "s" },
      ...(DATABASE_SERVER_URL
        ? [
            { name: "CPU per 1M points: PostgreSQL", value: http((run) => run.cpuPerMillion.database), unit: "s" },
            {
              name: "CPU per 1M points: both",
              value: http((run) => run.cpuPerMillion.servers + run.cpuPerMillion.database),
              unit: "s",
              ...(first ? { target: { bound: "max" as const, value: 1.2 } } : {}),
            },
          ]
        : []),
      { name: "CPU per 1M points: null sink", value: mean(sink, (run) => run.cpuPerMillion.servers), unit: "s" },
      { name: "CPU per 1M points: load process", value: http((run) => run.cpuPerMillion.load), unit: "s" },
      { name: "main thread running", value: 100 * http((run) => run.mainThread.running), unit: "%" },
      { name: "main thread blocked on disk", value: 100 * http((run) => run.mainThread.disk), unit: "%" },
      { name: "main thread idle", value: 100 * http((run) => run.mainThread.idle), unit: "%" },
      { name: "requests", value: http((run) => run.requests), unit: "" },
    ]) && met;
}
met =
  printFigures("Store", [
    ...(traced?.writes
      ? [
          { name: `commits per second (strace, ${CLIENTS} clients)`, value: traced.writes.commitsPerSecond, unit: "" },
          { name: "  write calls per commit", value: traced.writes.writesPerCommit, unit: "" },
          { name: "  of which to the WAL", value: traced.writes.walWritesPerCommit, unit: "" },
          { name: "  checkpoints per second", value: traced.writes.checkpointsPerSecond, unit: "" },
          { name: "  throughput while traced", value: traced.pointsPerSecond, unit: "points/s" },
        ]
      : []),
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
        ]
      : []),
  ]) && met;
console.log(`\nLoad average at the end: ${load()} (${availableParallelism()} cores)`);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
