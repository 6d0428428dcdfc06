/**
 * npm run bench:export — the 10M-point round trip of `stepwise export --format parquet`: fills a
 * data directory with BENCH_EXPORT_RUNS runs (default 10) × 10 metrics × 100,000 points whose
 * values are arbitrary 64-bit patterns read as doubles (subnormals, ±0, ±Inf, NaN, the extremes),
 * runs the real CLI (bin/stepwise, built), then reads metrics.parquet back with hyparquet a million
 * rows at a time and checks every row's run, metric, step, time and value bit for bit. Prints the
 * export's rate and memory; exits 1 on the first difference.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { SqliteStore } from "../src/store/sqlite/index.js";
import { BIN, makeTempDir } from "../test/helpers/start-server.js";
import { peakRssMb, printFigures } from "./lib/report.js";

const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 10);
const METRICS = 10;
const STEPS = 100_000;
const POINTS = RUNS * METRICS * STEPS;
const T0 = 1_700_000_000_000;

/** The value stored at (run, metric, step): 64 pseudo-random bits as a double (splitmix64). */
const bits = new BigUint64Array(1);
const asDouble = new Float64Array(bits.buffer);
function valueAt(run: number, metric: number, step: number): number {
  let z = (BigInt(run) * 1_000_003n + BigInt(metric) * 7_919n + BigInt(step) + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  bits[0] = z ^ (z >> 31n);
  // Every NaN pattern is one NaN to the store and to readers: the canonical one is compared.
  return Number.isNaN(asDouble[0]!) ? NaN : asDouble[0]!;
}

const dir = makeTempDir("stepwise-bench-export-");
const dataDir = join(dir, "data");
const out = join(dir, "out");
const store = SqliteStore.open(dataDir);
const org = await store.createOrganization("bench", 1);
const runIds: number[] = [];
for (let r = 0; r < RUNS; r++) {
  const { run } = await store.createRun(
    org.id,
    { projectName: "bench", name: `run-${r}`, tags: [], now: 1 },
    { userId: null, apiKeyId: null },
  );
  runIds.push(run.id);
  for (let m = 0; m < METRICS; m++) {
    const steps = Array.from({ length: STEPS }, (_, i) => i);
    const values = steps.map((step) => valueAt(r, m, step));
    await store.appendMetricPoints(org.id, run.id, [{ logName: `metric-${m}`, steps, values, times: steps.map((s) => T0 + s) }], 1);
  }
}
await store.close();

const started = performance.now();
const child = spawn(process.execPath, [BIN, "export", "--project", "bench", "--format", "parquet", "--to", out, "--data-dir", dataDir], {
  stdio: ["ignore", "inherit", "inherit"],
});
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid!) ?? 0)), 20);
const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
if (code !== 0) throw new Error(`export exited ${code}`);

const file = await asyncBufferFromFile(join(out, "metrics.parquet"));
const metadata = await parquetMetadataAsync(file);
if (Number(metadata.num_rows) !== POINTS) throw new Error(`${metadata.num_rows} rows, expected ${POINTS}`);
const readStarted = performance.now();
let row = 0;
for (let start = 0; start < POINTS; start += 1_000_000) {
  const rows = (await parquetReadObjects({ file, metadata, rowStart: start, rowEnd: Math.min(POINTS, start + 1_000_000) })) as {
    run_id: bigint;
    metric: string;
    step: bigint;
    time: Date;
    value: number;
  }[];
  for (const got of rows) {
    // Rows come run by run, metric by name, step by step.
    const r = Math.floor(row / (METRICS * STEPS));
    const m = Math.floor(row / STEPS) % METRICS;
    const step = row % STEPS;
    const expected = valueAt(r, m, step);
    if (
      got.run_id !== BigInt(runIds[r]!) ||
      got.metric !== `metric-${m}` ||
      got.step !== BigInt(step) ||
      got.time.getTime() !== T0 + step ||
      !Object.is(got.value, expected)
    )
      throw new Error(
        `row ${row} differs: ${JSON.stringify({ ...got, run_id: String(got.run_id), step: String(got.step) })} vs value ${expected}`,
      );
    row++;
  }
}
const readSeconds = (performance.now() - readStarted) / 1000;
rmSync(dir, { recursive: true, force: true });

printFigures(`stepwise export --format parquet: ${POINTS.toLocaleString("en-US")} points, read back and compared bit for bit`, [
  { name: "export wall time (whole CLI)", value: seconds, unit: "s" },
  { name: "points exported per second", value: POINTS / seconds, unit: "points/s" },
  { name: "peak RSS of the export", value: peak, unit: "MB" },
  { name: "rows compared (all equal)", value: row, unit: "rows" },
  { name: "read-back time (hyparquet)", value: readSeconds, unit: "s" },
]);
