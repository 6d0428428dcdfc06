/**
 * npm run bench:gc — the purge of deleted runs (`stepwise gc`'s work) on SQLite and the data directory.
 * Fills a store directly (no HTTP) with BENCH_GC_RUNS runs (default 100; the issue's size is 1000) of
 * one metric of BENCH_GC_POINTS points (default 100,000) and one 64 KiB file each, deletes them all,
 * then purges them with the purge service and reclaims the space, as `stepwise gc --older-than 0s`
 * does. Reports wall time, runs and points per second, the longest single run's purge (its write
 * transaction and its blob removal: how long ingest may wait behind it), and the bytes freed on disk.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { LocalBlobStore } from "../src/blobs/local.js";
import { systemClock } from "../src/domain/time.js";
import { purgeDeleted } from "../src/services/purge.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import { makeTempDir } from "../test/helpers/start-server.js";
import { printFigures } from "./lib/report.js";

const RUNS = Number(process.env.BENCH_GC_RUNS ?? 100);
const POINTS = Number(process.env.BENCH_GC_POINTS ?? 100_000);
const BATCH = 10_000;
const FILE_BYTES = 64 * 1024;

function bytesUnder(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

const dir = makeTempDir("stepwise-bench-gc-");
const store = SqliteStore.open(dir);
const blobs = new LocalBlobStore(join(dir, "files"));
const actor = { userId: null, apiKeyId: null };
const org = await store.createOrganization("bench", 1);
const runIds: number[] = [];
const filled = performance.now();
for (let r = 0; r < RUNS; r++) {
  const { run } = await store.createRun(org.id, { projectName: "bench", name: `run-${r}`, tags: [], now: 1 }, actor);
  runIds.push(run.id);
  for (let start = 0; start < POINTS; start += BATCH) {
    const steps = Array.from({ length: Math.min(BATCH, POINTS - start) }, (_, i) => start + i);
    await store.appendMetricPoints(org.id, run.id, [{ logName: "loss", steps, values: steps.map(Math.sin), times: steps }], 1);
  }
  const [file] = (await store.registerFiles(
    org.id,
    run.id,
    [{ logName: "img", fileName: "a.bin", fileType: "bin", fileSize: FILE_BYTES, time: 1, step: 0 }],
    1,
  ))!;
  const size = await blobs.write(
    { orgId: org.id, projectId: run.projectId, runId: run.id, fileId: file!.id },
    Readable.from([Buffer.alloc(FILE_BYTES, 1)]),
    FILE_BYTES,
  );
  await store.markFileUploaded(file!.id, size, 1);
  if ((r + 1) % 100 === 0) console.log(`  filled ${r + 1} runs (${((performance.now() - filled) / 1000).toFixed(0)} s)`);
}
for (let i = 0; i < runIds.length; i += 1000) await store.deleteRuns(org.id, runIds.slice(i, i + 1000), 2);
await store.reclaimSpace({ rewrite: false, budgetMs: 0 });
const diskBefore = bytesUnder(dir);

const started = performance.now();
let last = started;
let longestRunMs = 0;
const report = await purgeDeleted({ store, blobs, clock: systemClock }, systemClock.now(), () => {
  const now = performance.now();
  longestRunMs = Math.max(longestRunMs, now - last);
  last = now;
});
const purgeSeconds = (performance.now() - started) / 1000;
// BENCH_GC_VACUUM=rewrite: a VACUUM (gc --vacuum); else incremental vacuum for up to 30 s (gc's budget).
const space = await store.reclaimSpace({ rewrite: process.env.BENCH_GC_VACUUM === "rewrite", budgetMs: 30_000 });
const seconds = (performance.now() - started) / 1000;
const diskAfter = bytesUnder(dir);
await store.close();
blobs.close();
rmSync(dir, { recursive: true, force: true });
if (report.runs !== RUNS || report.points !== RUNS * POINTS) throw new Error(`purged ${report.runs} runs, ${report.points} points`);

printFigures(`gc of ${RUNS.toLocaleString("en-US")} deleted runs × ${POINTS.toLocaleString("en-US")} points (SQLite, data directory)`, [
  { name: "purge (rows and files)", value: purgeSeconds, unit: "s" },
  { name: `purge and ${process.env.BENCH_GC_VACUUM === "rewrite" ? "VACUUM" : "incremental vacuum (≤ 30 s)"}`, value: seconds, unit: "s" },
  { name: "runs per second", value: RUNS / purgeSeconds, unit: "runs/s" },
  { name: "points per second", value: report.points / purgeSeconds, unit: "points/s" },
  { name: "longest single run's purge", value: longestRunMs, unit: "ms", target: { bound: "max", value: 250 } },
  { name: "file bytes freed", value: report.fileBytes, unit: "bytes" },
  { name: "database bytes freed", value: space.bytesBefore - space.bytesAfter, unit: "bytes" },
  { name: "database bytes free inside", value: space.freeBytesLeft, unit: "bytes" },
  { name: "data directory before", value: diskBefore, unit: "bytes" },
  { name: "data directory after", value: diskAfter, unit: "bytes" },
]);
