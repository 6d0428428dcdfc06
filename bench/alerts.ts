/**
 * npm run bench:alerts — ingest throughput with 100 enabled alert rules on the project against
 * none (issue 24: within 5%). Starts the real server (bin/stepwise, built first) on a temporary data
 * directory and drives it from the load process of bench:ingest (8 clients, 10,000-point batches
 * of 100 metrics per step) in alternating rounds, a project without rules, then one with 100, and
 * so on, so a machine busy with something else weighs on both alike. The rules watch the metrics
 * being written (non_finite on each, threshold on each, and non_finite on "*" for every metric)
 * and never fire: the steady state, where evaluation is the in-memory look-up and no state write.
 * Then, in this process, the evaluator alone on the same batches: its cost per batch against the
 * store's write of that batch, a figure the machine's noise moves far less.
 * Environment: BENCH_SECONDS per round (default 10), BENCH_ROUNDS of each (default 3).
 * `-- --database-url postgres://…/db` runs on PostgreSQL, in a fresh database dropped afterwards.
 */
import { execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { systemClock } from "../src/domain/time.js";
import { decodeMetrics } from "../src/ingest/decode.js";
import { AlertEvaluator } from "../src/services/alert-evaluator.js";
import { createOrganizationWithKey } from "../src/services/accounts.js";
import { PostgresStore } from "../src/store/postgres/index.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import type { Store } from "../src/store/store.js";
import { ApiClient } from "../test/helpers/client.js";
import { makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { printFigures } from "./lib/report.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 8;
const METRICS = 100;
const STEPS_PER_BATCH = 100;
const RULES = 100;
const metricName = (m: number) => `group${m % 10}/metric_${m}`;

/** 100 rules that watch the benchmark's metrics and never fire (its values are within ±10). */
function ruleBodies(projectName: string) {
  return Array.from({ length: RULES }, (_, i) => {
    const condition =
      i < 45
        ? { type: "non_finite", metric: metricName(i) }
        : i < 90
          ? { type: "threshold", metric: metricName(i), op: "above", value: 1000, consecutive: 3 }
          : i < 95
            ? { type: "non_finite", metric: "*" }
            : { type: "status", statuses: ["FAILED"] };
    return { projectName, name: `rule ${i}`, condition, destinationIds: [] as number[] };
  });
}

function load(url: string, key: string, projectName: string, runIds: number[]): Promise<{ points: number; elapsed: number }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./lib/ingest-load.ts", import.meta.url)),
      url,
      key,
      projectName,
      runIds.join(","),
      String(SECONDS),
      String(METRICS),
      String(STEPS_PER_BATCH),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.once("exit", () => resolve(JSON.parse(output))));
}

async function measureHttp() {
  const dataDir = makeTempDir("stepwise-bench-alerts-");
  const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "alerts") : undefined;
  const server = await spawnServer(dataDir, ["--log-level", "error", ...(database ? ["--database-url", database.url] : [])]);
  try {
    const key = /sw_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
    const client = new ApiClient(server.url, key);
    const runsOf = async (projectName: string) => {
      const ids = [];
      for (let c = 0; c < CLIENTS; c++) ids.push((await client.createRun({ projectName, runName: `client-${c}` })).runId);
      return ids;
    };
    const plain = await runsOf("no-rules");
    const watched = await runsOf("rules");
    for (const body of ruleBodies("rules")) {
      const response = await client.post("/api/alerts/rules", body);
      if (response.status !== 201) throw new Error(`rule: ${response.status} ${JSON.stringify(response.body)}`);
    }
    const totals = { none: { points: 0, elapsed: 0 }, rules: { points: 0, elapsed: 0 } };
    const rounds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so a trend over the run (a cache warming, a neighbour starting) favours neither.
      const order = round % 2 === 0 ? (["none", "rules"] as const) : (["rules", "none"] as const);
      for (const which of order) {
        const result = await load(server.url, key, which === "none" ? "no-rules" : "rules", which === "none" ? plain : watched);
        totals[which].points += result.points;
        totals[which].elapsed += result.elapsed;
        rounds.push(`${which} ${Math.round(result.points / result.elapsed).toLocaleString("en-US")}`);
      }
    }
    console.log(`  rounds (points/s): ${rounds.join(" · ")}`);
    return { none: totals.none.points / totals.none.elapsed, rules: totals.rules.points / totals.rules.elapsed };
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

/** The evaluator on the benchmark's batches, in this process: its time per batch against the store's write of the batch. */
async function measureEvaluator() {
  const dataDir = makeTempDir("stepwise-bench-alerts-raw-");
  const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "alerts_raw") : undefined;
  const store: Store = database ? await PostgresStore.open(database.url) : SqliteStore.open(dataDir);
  try {
    const { organization } = await createOrganizationWithKey(store, "bench", systemClock);
    const actor = { userId: null, apiKeyId: null };
    const { run } = await store.createRun(organization.id, { projectName: "rules", name: "raw", tags: [], now: Date.now() }, actor);
    const now = Date.now();
    for (const body of ruleBodies("rules")) {
      const { projectName: _project, ...input } = body;
      await store.createAlertRule(
        organization.id,
        run.projectId,
        { ...input, enabled: true } as Parameters<Store["createAlertRule"]>[2],
        now,
      );
    }
    const evaluator = new AlertEvaluator({ store, clock: systemClock });
    const template: Record<string, number> = {};
    for (let m = 0; m < METRICS; m++) template[metricName(m)] = Math.sin(m) * 10;
    let storeMs = 0;
    let evaluateMs = 0;
    const BATCHES = 200;
    for (let batch = 0; batch < BATCHES; batch++) {
      const lines = Array.from({ length: STEPS_PER_BATCH }, (_, k) => {
        const step = batch * STEPS_PER_BATCH + k;
        return JSON.stringify({ time: now + step, step, data: template });
      });
      const { series } = await decodeMetrics(lines.join("\n"));
      const t0 = performance.now();
      await store.appendMetricPoints(organization.id, run.id, series, Date.now());
      const t1 = performance.now();
      await evaluator.afterMetrics(run.id, series);
      const t2 = performance.now();
      // The first batch loads the rules and states: the cache's one-time cost, left out of the steady state.
      if (batch > 0) {
        storeMs += t1 - t0;
        evaluateMs += t2 - t1;
      }
    }
    return { evaluateUs: (evaluateMs * 1000) / (BATCHES - 1), storeUs: (storeMs * 1000) / (BATCHES - 1) };
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

execFileSync("npm", ["run", "build:server"], { stdio: "ignore" });
console.log(
  `Alert rules benchmark (${DATABASE_SERVER_URL ? "PostgreSQL" : "SQLite"}): ${CLIENTS} clients, ${METRICS * STEPS_PER_BATCH}-point batches, ${ROUNDS} rounds of ${SECONDS} s each without and with ${RULES} rules`,
);
const http = await measureHttp();
const evaluator = await measureEvaluator();
const met = printFigures("Ingest with 100 enabled alert rules", [
  { name: "HTTP ingest, no rules", value: http.none, unit: "points/s" },
  { name: "HTTP ingest, 100 rules", value: http.rules, unit: "points/s" },
  { name: "with rules / without", value: (100 * http.rules) / http.none, unit: "%", target: { bound: "min", value: 95 } },
  { name: "evaluation per 10,000-point batch", value: evaluator.evaluateUs, unit: "µs" },
  { name: "store write per batch (in process)", value: evaluator.storeUs, unit: "µs" },
  {
    name: "evaluation / store write",
    value: (100 * evaluator.evaluateUs) / evaluator.storeUs,
    unit: "%",
    target: { bound: "max", value: 5 },
  },
]);
process.exit(met ? 0 : 1);
