/**
 * npm run bench:copy — `stepwise copy` of a large data directory into a new one.
 * Fills a store directly (no HTTP) with BENCH_COPY_RUNS runs (default 10) of 5 metrics × 100,000
 * points and 20,000 console lines each, then runs the real CLI (`bin/stepwise copy`, built) and
 * reports its wall time, rows per second and peak resident memory, which must not grow with the store.
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/index.js";
import { BIN, makeTempDir } from "../test/helpers/start-server.js";
import { peakRssMb, printFigures } from "./lib/report.js";

const RUNS = Number(process.env.BENCH_COPY_RUNS ?? 10);
const dir = makeTempDir("stepwise-bench-copy-");
const source = join(dir, "source");
const target = join(dir, "target");

const store = SqliteStore.open(source);
const org = await store.createOrganization("bench", 1);
for (let r = 0; r < RUNS; r++) {
  const { run } = await store.createRun(
    org.id,
    { projectName: "bench", name: `run-${r}`, tags: [], now: 1 },
    { userId: null, apiKeyId: null },
  );
  for (let metric = 0; metric < 5; metric++) {
    for (let batch = 0; batch < 10; batch++) {
      const steps = Array.from({ length: 10_000 }, (_, i) => batch * 10_000 + i);
      const series = { logName: `metric-${metric}`, steps, values: steps.map(Math.sin), times: steps };
      await store.appendMetricPoints(org.id, run.id, [series], 1);
    }
  }
  for (let batch = 0; batch < 20; batch++) {
    const lines = Array.from({ length: 1000 }, (_, i) => {
      const n = batch * 1000 + i;
      return { time: n, message: `step ${n}: loss=${Math.sin(n).toFixed(6)} lr=0.001`, lineNumber: n, logType: "INFO" as const, step: n };
    });
    await store.appendConsoleLines(org.id, run.id, lines, 1);
  }
}
await store.close();

const started = performance.now();
const child = spawn(process.execPath, [BIN, "copy", "--from", source, "--to", target], { stdio: ["ignore", "pipe", "inherit"] });
let out = "";
child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid!) ?? 0)), 20);
const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
rmSync(dir, { recursive: true, force: true });
if (code !== 0) throw new Error(`copy exited ${code}:\n${out}`);

const rows = [...out.matchAll(/^ {2}\w+: (\d+) rows copied/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
printFigures(
  `stepwise copy, ${RUNS} runs: ${(RUNS * 500_000).toLocaleString("en-US")} points, ${(RUNS * 20_000).toLocaleString("en-US")} console lines`,
  [
    { name: "wall time", value: seconds, unit: "s" },
    { name: "rows copied", value: rows, unit: "rows" },
    { name: "rows per second", value: rows / seconds, unit: "rows/s" },
    { name: "points per second", value: (RUNS * 500_000) / seconds, unit: "points/s" },
    { name: "peak RSS of the copy", value: peak, unit: "MB" },
  ],
);
