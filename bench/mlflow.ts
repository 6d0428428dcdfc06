/**
 * npm run bench:mlflow — MLflow's REST API against the targets of the MLflow-protocol issue:
 * - log-batch ingest: batches of 1,000 metrics (10 keys × 100 steps), 8 runs logging at once; then
 *   the same with 10 points at each step (10 keys × 10 steps × 10 timestamps), which MLflow keeps all of;
 * - runs/search over 500 runs × 20 params: a param + metric filter with order_by (about 50 hits),
 *   and all 500 runs;
 * - the model registry: 1,000 registered models × 3 versions, search_registered_models and
 *   search_model_versions (target p50 ≤ 20 ms).
 * Against a fresh Stepwise server started from this checkout; when MLflow's own server is set up on
 * this machine (MLFLOW_ENV, default /work/mlflow-env, built by the MLflow client tool's setup.sh),
 * the same load against it (with fewer ingest batches: it is much slower) and the ratio.
 * Environment: BENCH_BATCHES (per run, default 160), BENCH_REQUESTS (default 40), MLFLOW_ENV, MLFLOW_TOOL;
 * BENCH_SKIP_SEARCH=1 measures log-batch alone; BENCH_PROFILE_DIR=<dir> makes the server write a V8 CPU
 * profile there (bench/lib/profile-top.ts lists where the time went).
 * `-- --database-url postgres://…/db` runs Stepwise on PostgreSQL, in a fresh database made on that
 * server and dropped afterwards.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { cpuSeconds, percentile, printFigures, type Figure } from "./lib/report.js";

// 160 batches per run (1.28M points, a few seconds): fewer leave the figure to the JIT warming up.
const BATCHES = Number(process.env.BENCH_BATCHES ?? 160);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const CONCURRENT_RUNS = 8;
const SEARCH_RUNS = 500;
const PARAMS = 20;
const MLFLOW_ENV = process.env.MLFLOW_ENV ?? "/work/mlflow-env";
const MLFLOW_TOOL = process.env.MLFLOW_TOOL ?? "/work/shared/tools/mlflow-client";

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server's process, when its CPU time can be read. */
  pid?: number;
}

// biome-ignore lint/suspicious/noExplicitAny: MLflow responses are read by shape here, as JSON.
async function call(target: Target, path: string, body: unknown): Promise<any> {
  return post(target, path, JSON.stringify(body));
}

/** Keep-alive connections for the load: node:http costs the load generator far less CPU per request than fetch. */
const agent = new Agent({ keepAlive: true });

/** POSTs a JSON text (the ingest load sends texts built before its clock starts). */
// biome-ignore lint/suspicious/noExplicitAny: MLflow responses are read by shape here, as JSON.
function post(target: Target, path: string, body: string | Buffer): Promise<any> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${target.url}/api/2.0/mlflow${path}`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...target.headers },
      },
      (response) => {
        const parts: Buffer[] = [];
        response.on("data", (part: Buffer) => parts.push(part));
        response.on("end", () => {
          const text = Buffer.concat(parts).toString("utf8");
          if (response.statusCode !== 200) reject(new Error(`${target.name} ${path}: ${response.statusCode} ${text.slice(0, 300)}`));
          else resolve(JSON.parse(text));
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function createRun(target: Target, experimentId: string, name: string): Promise<string> {
  return (await call(target, "/runs/create", { experiment_id: experimentId, run_name: name, start_time: Date.now() })).run.info.run_id;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
/**
 * Points per second through log-batch: 8 runs, each sending `batches` batches of 1,000 metrics in
 * turn; and the server's CPU time per batch, which load from other processes changes far less.
 */
async function ingest(
  target: Target,
  batches: number,
  pointsPerStep = 1,
): Promise<{ pointsPerSecond: number; cpuMsPerBatch?: number; loadCpuMsPerBatch: number }> {
  const experimentId = (await call(target, "/experiments/create", { name: `ingest-${Date.now()}` })).experiment_id;
  const runs = await Promise.all(Array.from({ length: CONCURRENT_RUNS }, (_, r) => createRun(target, experimentId, `ingest-${r}`)));
  // The batches' metrics as JSON bytes, built before the clock starts and sent with node:http: on two
  // cores the load generator competes with the server, and building each request's 1,000 objects
  // and JSON and sending it with fetch cost it 2.6–3.2 ms of CPU per batch, as much as the server
  // spent storing it (now 0.7–1.0 ms).
  // With pointsPerStep > 1, each step holds that many points at successive timestamps (MLflow keeps them all).
  const metricTexts = Array.from({ length: batches }, (_, b) => {
    const metrics = [];
    for (let i = b * 100; i < (b + 1) * 100; i++) {
      const step = Math.floor(i / pointsPerStep);
      for (let k = 0; k < 10; k++) metrics.push({ key: `m${k}`, value: Math.sin(i + k), timestamp: 1_700_000_000_000 + i, step });
    }
    return Buffer.from(JSON.stringify(metrics));
  });
  const serverCpu = () => (target.pid === undefined ? undefined : cpuSeconds(target.pid));
  const started = performance.now();
  const cpuBefore = serverCpu();
  const loadCpuBefore = process.cpuUsage();
  await Promise.all(
    runs.map(async (runId) => {
      const head = Buffer.from(`{"run_id":"${runId}","metrics":`);
      const tail = Buffer.from("}");
      for (let b = 0; b < batches; b++) await post(target, "/runs/log-batch", Buffer.concat([head, metricTexts[b]!, tail]));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = serverCpu();
  const loadCpu = process.cpuUsage(loadCpuBefore);
  const requests = CONCURRENT_RUNS * batches;
  return {
    pointsPerSecond: (requests * 1000) / seconds,
    cpuMsPerBatch: cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1000) / requests,
    loadCpuMsPerBatch: (loadCpu.user + loadCpu.system) / 1000 / requests,
  };
}

/** 500 runs × 20 params and a loss metric, then search latencies. */
async function search(target: Target): Promise<{ filtered: number; all: number; hits: number; baseline: number }> {
  const experimentId = (await call(target, "/experiments/create", { name: `search-${Date.now()}` })).experiment_id;
  for (let r = 0; r < SEARCH_RUNS; r++) {
    const runId = await createRun(target, experimentId, `run-${r}`);
    await call(target, "/runs/log-batch", {
      run_id: runId,
      params: Array.from({ length: PARAMS }, (_, p) => ({ key: `p${p}`, value: String((r + p) % 10) })),
      metrics: [
        { key: "loss", value: (r % 100) / 100, timestamp: 1, step: 0 },
        { key: "acc", value: r / SEARCH_RUNS, timestamp: 1, step: 0 },
      ],
    });
  }
  const timed = async (body: Record<string, unknown>) => {
    let hits = 0;
    const once = async () => {
      const t0 = performance.now();
      const result = await call(target, "/runs/search", { experiment_ids: [experimentId], max_results: 1000, ...body });
      hits = result.runs?.length ?? 0;
      return performance.now() - t0;
    };
    for (let i = 0; i < 5; i++) await once();
    const samples = [];
    for (let i = 0; i < REQUESTS; i++) samples.push(await once());
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 50), hits };
  };
  const filtered = await timed({ filter: "params.p3 = '7' and metrics.loss < 0.5", order_by: ["metrics.loss ASC"] });
  const all = await timed({ order_by: ["metrics.acc DESC"] });
  // A trivial request's latency, measured alike: what the machine's load alone costs each request.
  const baseline: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    await call(target, "/runs/search", { experiment_ids: [experimentId], max_results: 1, filter: "attributes.run_name = 'none'" });
    baseline.push(performance.now() - t0);
  }
  baseline.sort((a, b) => a - b);
  return { filtered: filtered.p50, all: all.p50, hits: filtered.hits, baseline: percentile(baseline, 50) };
}

const MODELS = 1000;
const VERSIONS = 3;

// biome-ignore lint/suspicious/noExplicitAny: MLflow responses are read by shape here, as JSON.
async function get(target: Target, path: string, query: Record<string, string>): Promise<any> {
  const response = await fetch(`${target.url}/api/2.0/mlflow${path}?${new URLSearchParams(query)}`, { headers: target.headers });
  if (!response.ok) throw new Error(`${target.name} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response.json();
}

/** The p50 of REQUESTS timed calls, after five to warm up; and what the last one answered. */
async function p50Of<T>(once: () => Promise<T>): Promise<{ p50: number; last: T }> {
  let last!: T;
  const timed = async () => {
    const t0 = performance.now();
    last = await once();
    return performance.now() - t0;
  };
  for (let i = 0; i < 5; i++) await timed();
  const samples = [];
  for (let i = 0; i < REQUESTS; i++) samples.push(await timed());
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), last };
}

/**
 * The model registry: MODELS registered models with VERSIONS versions each (made 8 at a time), then
 * search_registered_models (a name prefix; the first page of all) and search_model_versions (one
 * model's versions; one run's) latencies.
 */
async function registry(target: Target): Promise<{ models: number; modelsPage: number; versions: number; versionsOfRun: number }> {
  const experimentId = (await call(target, "/experiments/create", { name: `registry-${Date.now()}` })).experiment_id;
  const runIds = await Promise.all(Array.from({ length: 10 }, (_, r) => createRun(target, experimentId, `train-${r}`)));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let m = next++; m < MODELS; m = next++) {
        const name = `model-${String(m).padStart(4, "0")}`;
        await call(target, "/registered-models/create", { name, tags: [{ key: "team", value: `t${m % 7}` }] });
        for (let v = 0; v < VERSIONS; v++) {
          const runId = runIds[(m + v) % runIds.length]!;
          const source = `mlflow-artifacts:/${experimentId}/${runId}/artifacts/model`;
          await call(target, "/model-versions/create", { name, source, run_id: runId });
        }
      }
    }),
  );
  const models = await p50Of(() => get(target, "/registered-models/search", { filter: "name LIKE 'model-05%'", max_results: "100" }));
  if (models.last.registered_models?.length !== 100)
    throw new Error(`${target.name}: name search found ${models.last.registered_models?.length}`);
  const modelsPage = await p50Of(() => get(target, "/registered-models/search", { max_results: "100" }));
  const versions = await p50Of(() => get(target, "/model-versions/search", { filter: "name = 'model-0500'" }));
  if (versions.last.model_versions?.length !== VERSIONS)
    throw new Error(`${target.name}: version search found ${versions.last.model_versions?.length}`);
  const versionsOfRun = await p50Of(() =>
    get(target, "/model-versions/search", { filter: `run_id = '${runIds[3]}'`, max_results: "1000" }),
  );
  return { models: models.p50, modelsPage: modelsPage.p50, versions: versions.p50, versionsOfRun: versionsOfRun.p50 };
}

async function measure(target: Target, batches: number, figures: Figure[], targets: boolean) {
  const { pointsPerSecond, cpuMsPerBatch, loadCpuMsPerBatch } = await ingest(target, batches);
  figures.push({
    name: `${target.name}: log-batch points/s`,
    value: pointsPerSecond,
    unit: "points/s",
    ...(targets ? { target: { bound: "min" as const, value: 300_000 } } : {}),
  });
  if (cpuMsPerBatch !== undefined) figures.push({ name: `${target.name}: server CPU per log-batch`, value: cpuMsPerBatch, unit: "ms" });
  // The load generator shares the machine's cores with the server: its own CPU is what the server could not use.
  figures.push({ name: `${target.name}: load generator CPU per log-batch`, value: loadCpuMsPerBatch, unit: "ms" });
  // The same batches with 10 points at each step: no slower than one point per step beyond noise.
  const repeated = await ingest(target, batches, 10);
  figures.push({ name: `${target.name}: log-batch points/s, 10 points per step`, value: repeated.pointsPerSecond, unit: "points/s" });
  if (repeated.cpuMsPerBatch !== undefined)
    figures.push({ name: `${target.name}: server CPU per log-batch, 10 points per step`, value: repeated.cpuMsPerBatch, unit: "ms" });
  if (process.env.BENCH_SKIP_SEARCH === "1") return { pointsPerSecond, filtered: Number.NaN, all: Number.NaN, registry: undefined };
  const { filtered, all, hits, baseline } = await search(target);
  figures.push({
    name: `${target.name}: search p50 (${hits} hits)`,
    value: filtered,
    unit: "ms",
    ...(targets ? { target: { bound: "max" as const, value: 30 } } : {}),
  });
  figures.push({ name: `${target.name}: search all 500 p50`, value: all, unit: "ms" });
  figures.push({ name: `${target.name}: search, no hit p50 (baseline)`, value: baseline, unit: "ms" });
  const found = await registry(target);
  const within20 = targets ? { target: { bound: "max" as const, value: 20 } } : {};
  figures.push({
    name: `${target.name}: search_registered_models, name prefix (100 of ${MODELS}) p50`,
    value: found.models,
    unit: "ms",
    ...within20,
  });
  figures.push({
    name: `${target.name}: search_registered_models, first page of 100 p50`,
    value: found.modelsPage,
    unit: "ms",
    ...within20,
  });
  figures.push({ name: `${target.name}: search_model_versions, one model p50`, value: found.versions, unit: "ms", ...within20 });
  figures.push({
    name: `${target.name}: search_model_versions, one run (${(MODELS * VERSIONS) / 10}) p50`,
    value: found.versionsOfRun,
    unit: "ms",
  });
  return { pointsPerSecond, filtered, all, registry: found };
}

execFileSync("npm", ["run", "build"], { stdio: "ignore" });
console.log(
  `MLflow protocol benchmark: log-batch ${CONCURRENT_RUNS} runs × ${BATCHES} batches × 1,000 metrics; search over ${SEARCH_RUNS} runs × ${PARAMS} params, ${REQUESTS} requests`,
);
const figures: Figure[] = [];
const dataDir = mkdtempSync(join(tmpdir(), "stepwise-bench-mlflow-"));
const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "mlflow") : undefined;
const server = await spawnServer(
  dataDir,
  ["--log-level", "error", "--stale-after", "0", ...(database ? ["--database-url", database.url] : [])],
  // BENCH_PROFILE_DIR: the server writes a V8 CPU profile there when it stops (bench/lib/cpu-profile.mjs).
  process.env.BENCH_PROFILE_DIR ? { NODE_OPTIONS: `--import ${fileURLToPath(new URL("./lib/cpu-profile.mjs", import.meta.url))}` } : {},
);
const key = /(sw_\S+)/.exec(server.stdout())?.[1];
if (!key) throw new Error(`no bootstrap key in the server's output:\n${server.stdout()}`);
let stepwise: Awaited<ReturnType<typeof measure>>;
try {
  stepwise = await measure(
    {
      name: database ? "Stepwise (PostgreSQL)" : "Stepwise",
      url: server.url,
      headers: { authorization: `Bearer ${key}` },
      pid: server.child.pid,
    },
    BATCHES,
    figures,
    true,
  );
} finally {
  server.child.kill("SIGTERM");
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
}

if (existsSync(`${MLFLOW_ENV}/src-2.17.2`) && existsSync(`${MLFLOW_TOOL}/env.sh`) && process.env.BENCH_SKIP_MLFLOW !== "1") {
  const pythonPath = execFileSync("bash", [
    "-c",
    `ROOT=${MLFLOW_ENV} source ${MLFLOW_TOOL}/env.sh >/dev/null && printf %s "$PP_2X"`,
  ]).toString();
  const root = mkdtempSync(join(tmpdir(), "mlflow-bench-"));
  const port = 15055 + Math.floor(Math.random() * 1000);
  const child = spawn(
    "/usr/bin/python3",
    [
      "-m",
      "mlflow",
      "server",
      "--backend-store-uri",
      `sqlite:///${root}/mlflow.db`,
      "--artifacts-destination",
      `${root}/artifacts`,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    // A process group of its own: MLflow's server runs gunicorn, whose workers outlive a signal to the parent alone.
    { env: { ...process.env, PYTHONPATH: pythonPath }, stdio: "ignore", detached: true },
  );
  try {
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        if ((await fetch(`${url}/health`)).ok) break;
      } catch {}
      if (Date.now() > deadline) throw new Error("MLflow's server did not start within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const mlflow = await measure(
      // No pid: MLflow's server answers from worker processes of its own, whose CPU its parent's /proc entry does not show.
      { name: "MLflow 2.17.2", url, headers: {} },
      Math.max(1, Math.round(BATCHES / 10)),
      figures,
      false,
    );
    figures.push({ name: "ratio log-batch (Stepwise/MLflow)", value: stepwise.pointsPerSecond / mlflow.pointsPerSecond, unit: "×" });
    figures.push({ name: "ratio filtered search (MLflow/Stepwise)", value: mlflow.filtered / stepwise.filtered, unit: "×" });
    figures.push({ name: "ratio search all 500 (MLflow/Stepwise)", value: mlflow.all / stepwise.all, unit: "×" });
    if (mlflow.registry && stepwise.registry) {
      const [theirs, ours] = [mlflow.registry, stepwise.registry];
      figures.push({ name: "ratio search_registered_models, prefix (MLflow/Stepwise)", value: theirs.models / ours.models, unit: "×" });
      figures.push({ name: "ratio search_model_versions, one model (MLflow/Stepwise)", value: theirs.versions / ours.versions, unit: "×" });
    }
  } catch (error) {
    console.log(`  MLflow's own server: skipped — ${(error as Error).message}`);
  } finally {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {} // already gone
    rmSync(root, { recursive: true, force: true });
  }
} else {
  console.log("  MLflow's own server is not set up on this machine: measuring Stepwise only.");
}
const met = printFigures("Results (2 shared cores: indicative when other work runs)", figures);
console.log(met ? "\nAll targets met." : "\nSome targets missed.");
