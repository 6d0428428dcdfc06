/**
 * npm run bench:import-tensorboard — `stepwise import tensorboard` of local event files into the
 * embedded store. The log directory is written once by tensorboardX, the real writer
 * (bench/make-tensorboard-events.py: BENCH_TB_RUNS runs × 20 tags × BENCH_TB_STEPS steps, default
 * 4 × 20 × 25,000 = 2M scalar events), and cached in .bench-cache/; set TENSORBOARDX_PATH to a
 * tensorboardX checkout (default /tmp/tbx) the first time. Then runs the real CLI (bin/stepwise,
 * built) into a new data directory and reports points per second against the target of 500,000,
 * and the CLI's peak resident memory.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore } from "../src/store/sqlite/index.js";
import { BIN, makeTempDir } from "../test/helpers/start-server.js";
import { peakRssMb, printFigures } from "./lib/report.js";

const RUNS = Number(process.env.BENCH_TB_RUNS ?? 4);
const TAGS = 20;
const STEPS = Number(process.env.BENCH_TB_STEPS ?? 25_000);
const POINTS = RUNS * TAGS * STEPS;
const cache = join(".bench-cache", `tensorboard-${RUNS}x${TAGS}x${STEPS}`);

if (!existsSync(cache)) {
  console.log(`Writing ${POINTS.toLocaleString("en-US")} scalar events with tensorboardX into ${cache} (once)...`);
  const partial = `${cache}.tmp`;
  rmSync(partial, { recursive: true, force: true });
  const made = spawnSync("/usr/bin/python3", ["bench/make-tensorboard-events.py", partial, String(RUNS), String(TAGS), String(STEPS)], {
    stdio: "inherit",
    env: { ...process.env, PYTHONPATH: process.env.TENSORBOARDX_PATH ?? "/tmp/tbx" },
  });
  if (made.status !== 0) throw new Error("writing the event files failed: is tensorboardX on TENSORBOARDX_PATH?");
  renameSync(partial, cache);
}

const dataDir = makeTempDir("stepwise-bench-tb-");
const store = SqliteStore.open(dataDir);
await store.createOrganization("bench", 1);
await store.close();

const started = performance.now();
const child = spawn(process.execPath, [BIN, "import", "tensorboard", cache, "--project", "bench", "--data-dir", dataDir], {
  stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
let peak = 0;
let cpuSeconds = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, peakRssMb(child.pid!) ?? 0);
  cpuSeconds = cpuSecondsOf(child.pid!) ?? cpuSeconds;
}, 20);
const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
rmSync(dataDir, { recursive: true, force: true });
if (code !== 0) throw new Error(`import exited ${code}:\n${out}`);
const imported = Number(/: (\d+) points,/.exec(out)?.[1]);
if (imported !== POINTS) throw new Error(`imported ${imported} points, expected ${POINTS}:\n${out}`);

const met = printFigures(`stepwise import tensorboard: ${RUNS} runs × ${TAGS} tags × ${STEPS.toLocaleString("en-US")} steps`, [
  { name: "wall time (whole CLI)", value: seconds, unit: "s" },
  { name: "points per second", value: POINTS / seconds, unit: "points/s", target: { bound: "min", value: 500_000 } },
  { name: "CPU time of the import (user + system)", value: cpuSeconds, unit: "s" },
  { name: "points per CPU second", value: POINTS / cpuSeconds, unit: "points/s" },
  { name: "peak RSS of the import", value: peak, unit: "MB" },
]);
process.exitCode = met ? 0 : 1;

/** User + system CPU seconds of a running process so far (the wall time on a shared machine says less), from /proc. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}
