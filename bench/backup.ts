/**
 * npm run bench:backup — `stepwise backup` of a large embedded store while a server ingests into it.
 * Builds (once; cached in BENCH_BACKUP_DIR, default $TMPDIR/stepwise-bench-backup-<GB>gb) a data
 * directory of about BENCH_BACKUP_GB gigabytes (default 5) of metric points, written through the
 * Store (building is not what is measured); each run's ingest grows it, and past 1.5 times the size
 * it is built anew. Then starts the real server on it, drives it with the
 * load process of bench:ingest (BENCH_CLIENTS clients, default 4, 10,000-point batches), measures
 * ingest for BENCH_BEFORE seconds (default 15), runs the backup CLI, and reports the backup's time
 * and MB/s and the ingest rate before and during it, read from the server's own
 * stepwise_points_ingested_total (GET /metrics). The backup is then restored and its row counts
 * compared with the verification the backup printed.
 */
import Database from "better-sqlite3";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeMetrics } from "../src/ingest/decode.js";
import { DATABASE_FILE } from "../src/store/sqlite/index.js";
import { ApiClient } from "../test/helpers/client.js";
import { BIN, makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { printFigures } from "./lib/report.js";
import { freshBenchStore } from "./lib/seed.js";

const GIGABYTES = Number(process.env.BENCH_BACKUP_GB ?? 5);
const CACHE = process.env.BENCH_BACKUP_DIR ?? join(tmpdir(), `stepwise-bench-backup-${GIGABYTES}gb`);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const BEFORE_SECONDS = Number(process.env.BENCH_BEFORE ?? 15);
const METRICS = 100;
const STEPS_PER_BATCH = 100;
const dataDir = join(CACHE, "data");
const keyFile = join(CACHE, "key");

/** A store of about GIGABYTES, built once: 8 runs of 100 metrics, 10,000-point batches through the Store. */
async function buildStore(): Promise<void> {
  // Each run ingests into the cached store (about 1 GB): past half again its size, it is built anew.
  if (existsSync(keyFile) && statSync(join(dataDir, DATABASE_FILE)).size < GIGABYTES * 1.5e9) return;
  rmSync(CACHE, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  const { store, orgId, key, actor } = await freshBenchStore(dataDir);
  const runIds: number[] = [];
  for (let r = 0; r < 8; r++)
    runIds.push((await store.createRun(orgId, { projectName: "bench", name: `seed-${r}`, tags: [], now: Date.now() }, actor)).run.id);
  const started = performance.now();
  const file = join(dataDir, DATABASE_FILE);
  let points = 0;
  for (let batch = 0; statSync(file).size < GIGABYTES * 1e9; batch++) {
    for (const runId of runIds) {
      const lines = [];
      for (let k = 0; k < STEPS_PER_BATCH; k++) {
        const step = batch * STEPS_PER_BATCH + k;
        const data: Record<string, number> = {};
        for (let m = 0; m < METRICS; m++) data[`group${m % 10}/metric_${m}`] = Math.sin(step * 0.01 + m) * 10 + (step % 7);
        lines.push(JSON.stringify({ time: step, step, data }));
      }
      const { series } = await decodeMetrics(lines.join("\n"));
      points += (await store.appendMetricPoints(orgId, runId, series, Date.now()))!;
    }
    if (batch % 200 === 0)
      console.error(`  building: ${(statSync(file).size / 1e9).toFixed(2)} GB, ${points.toLocaleString("en-US")} points`);
  }
  await store.close();
  writeFileSync(keyFile, key);
  console.error(`  built ${(statSync(file).size / 1e9).toFixed(2)} GB in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** The server's own count of points stored so far (GET /metrics). */
async function pointsIngested(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^stepwise_points_ingested_total\{protocol="stepwise"\} (\S+)$/m.exec(text);
  return Number(match![1]);
}

/** The rate of ingest over a span: points the server counted, per second. */
async function rateOver(url: string, span: () => Promise<unknown>): Promise<{ pointsPerSecond: number; seconds: number }> {
  const before = await pointsIngested(url);
  const started = performance.now();
  await span();
  const seconds = (performance.now() - started) / 1000;
  return { pointsPerSecond: ((await pointsIngested(url)) - before) / seconds, seconds };
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

execFileSync("npm", ["run", "build:server"], { stdio: "ignore" });
console.log(
  `Backup benchmark: a ~${GIGABYTES} GB store (cached in ${CACHE}), ${CLIENTS} ingest clients, ${METRICS * STEPS_PER_BATCH}-point batches`,
);
await buildStore();
const server = await spawnServer(dataDir, ["--log-level", "error"]);
const out = makeTempDir("stepwise-bench-backup-out-");
try {
  const client = new ApiClient(server.url, readFileSync(keyFile, "utf8"));
  const runIds = [];
  for (let c = 0; c < CLIENTS; c++) runIds.push((await client.createRun({ projectName: "bench", runName: `load-${c}` })).runId);
  const load = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./lib/ingest-load.ts", import.meta.url)),
      server.url,
      readFileSync(keyFile, "utf8"),
      "bench",
      runIds.join(","),
      "3600",
      String(METRICS),
      String(STEPS_PER_BATCH),
    ],
    { stdio: "ignore" },
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 2000)); // warm-up
    const before = await rateOver(server.url, () => new Promise((resolve) => setTimeout(resolve, BEFORE_SECONDS * 1000)));
    const sourceBytes = statSync(join(dataDir, DATABASE_FILE)).size;
    const backupFile = join(out, "bench.backup");
    let backup: Awaited<ReturnType<typeof run>> | undefined;
    const during = await rateOver(server.url, async () => {
      backup = await run(["backup", "--to", backupFile, "--data-dir", dataDir]);
    });
    if (backup?.code !== 0) throw new Error(`backup failed:\n${backup?.stderr}${backup?.stdout}`);
    load.kill("SIGTERM");
    const backupBytes = statSync(backupFile).size;
    const restoreStarted = performance.now();
    const restore = await run(["restore", "--from", backupFile, "--data-dir", join(out, "restored")]);
    const restoreSeconds = (performance.now() - restoreStarted) / 1000;
    if (restore.code !== 0) throw new Error(`restore failed:\n${restore.stderr}`);
    const counts = (text: string) => text.slice(text.indexOf("rows per table"), text.indexOf("\n\n"));
    const phase = (pattern: RegExp) => Number(pattern.exec(backup!.stderr)?.[1]);
    printFigures(`stepwise backup of a ${(sourceBytes / 1e9).toFixed(2)} GB store under ingest`, [
      { name: "backup wall time (copy + verify)", value: during.seconds, unit: "s" },
      { name: "  of which the copy", value: phase(/Copied in ([\d.]+) s/), unit: "s" },
      { name: "  of which the verification", value: phase(/Verified in ([\d.]+) s/), unit: "s" },
      { name: "backup throughput", value: sourceBytes / 1e6 / during.seconds, unit: "MB/s" },
      { name: "backup file", value: backupBytes / 1e6, unit: "MB" },
      { name: "ingest before the backup", value: before.pointsPerSecond, unit: "points/s" },
      { name: "ingest during the backup", value: during.pointsPerSecond, unit: "points/s" },
      { name: "during / before", value: (100 * during.pointsPerSecond) / before.pointsPerSecond, unit: "%" },
      { name: "restore wall time (verify + copy)", value: restoreSeconds, unit: "s" },
    ]);
    // What verification costs: the backup runs the full integrity check; the quick check skips index contents.
    const verify = new Database(backupFile, { readonly: true });
    const timed = (pragma: string) => {
      const started = performance.now();
      verify.pragma(pragma);
      return (performance.now() - started) / 1000;
    };
    printFigures("verifying the backup file", [
      { name: "PRAGMA quick_check", value: timed("quick_check"), unit: "s" },
      { name: "PRAGMA integrity_check", value: timed("integrity_check"), unit: "s" },
    ]);
    verify.close();
    const copyLines = backup.stderr.split("\n").filter((line) => /%/.test(line));
    console.log(
      `  progress lines printed: ${copyLines.length}; restore's counts ${counts(restore.stdout) === counts(backup.stdout) ? "equal" : "DIFFER from"} the backup's`,
    );
  } finally {
    load.kill("SIGTERM");
  }
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(out, { recursive: true, force: true });
}
