/**
 * npm run bench:import-mlflow — `stepwise import mlflow` of a large MLflow file store.
 * Writes an mlruns directory in MLflow's file-store layout (what MLflow's client writes with a
 * file:// tracking URI: meta.yaml files, one `timestamp value step` line per point) with
 * BENCH_IMPORT_RUNS runs (default 4) of 5 metrics × 200,000 points and 10 artifacts of 1 MB each,
 * then runs the real CLI (`bin/stepwise import mlflow`, built) into a new data directory and
 * reports its wall time, points per second and peak resident memory, which must not grow with the
 * histories (they are read and written in slices). Target: at least 50,000 points/s into SQLite.
 */
import { spawn, execFileSync } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { BIN, makeTempDir } from "../test/helpers/start-server.js";
import { peakRssMb, printFigures } from "./lib/report.js";

const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 4);
const METRICS = 5;
const POINTS = 200_000;
const ARTIFACTS = 10;
const dir = makeTempDir("stepwise-bench-import-");
const mlruns = join(dir, "mlruns");
const dataDir = join(dir, "data");

const experiment = join(mlruns, "1");
mkdirSync(experiment, { recursive: true });
writeFileSync(
  join(experiment, "meta.yaml"),
  "artifact_location: ''\ncreation_time: 1\nexperiment_id: '1'\nlast_update_time: 1\nlifecycle_stage: active\nname: bench\n",
);
for (let r = 0; r < RUNS; r++) {
  const runId = r.toString(16).padStart(32, "0");
  const run = join(experiment, runId);
  for (const sub of ["params", "tags", "metrics", "artifacts"]) mkdirSync(join(run, sub), { recursive: true });
  writeFileSync(
    join(run, "meta.yaml"),
    `artifact_uri: ''\nend_time: 2000\nentry_point_name: ''\nexperiment_id: '1'\nlifecycle_stage: active\nrun_id: ${runId}\nrun_name: run-${r}\nrun_uuid: ${runId}\nsource_name: ''\nsource_type: 4\nsource_version: ''\nstart_time: 1000\nstatus: 3\ntags: []\nuser_id: bench\n`,
  );
  writeFileSync(join(run, "params", "lr"), "0.001");
  writeFileSync(join(run, "tags", "mlflow.runName"), `run-${r}`);
  for (let m = 0; m < METRICS; m++) {
    const out = createWriteStream(join(run, "metrics", `metric-${m}`));
    for (let start = 0; start < POINTS; start += 10_000) {
      let chunk = "";
      for (let step = start; step < start + 10_000; step++) chunk += `${1_700_000_000_000 + step} ${Math.sin(step + m)} ${step}\n`;
      if (!out.write(chunk)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
  }
  for (let a = 0; a < ARTIFACTS; a++) writeFileSync(join(run, "artifacts", `file-${a}.bin`), Buffer.alloc(1 << 20, a));
}

execFileSync(process.execPath, [BIN, "orgs", "create", "bench", "--data-dir", dataDir], { stdio: "ignore" });
const started = performance.now();
const child = spawn(process.execPath, [BIN, "import", "mlflow", "--from", mlruns, "--org", "bench", "--data-dir", dataDir], {
  stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid!) ?? 0)), 20);
const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
rmSync(dir, { recursive: true, force: true });
if (code !== 0) throw new Error(`import exited ${code}:\n${out}`);

const points = RUNS * METRICS * POINTS;
if (!out.includes(`${points.toLocaleString("en-US")} read, ${points.toLocaleString("en-US")} stored`))
  throw new Error(`unexpected summary:\n${out}`);
printFigures(
  `stepwise import mlflow, file store, ${RUNS} runs: ${points.toLocaleString("en-US")} points, ${RUNS * ARTIFACTS} artifacts of 1 MB`,
  [
    { name: "wall time", value: seconds, unit: "s" },
    { name: "points per second", value: points / seconds, unit: "points/s", target: { bound: "min", value: 50_000 } },
    { name: "peak RSS of the import", value: peak, unit: "MB" },
  ],
);
