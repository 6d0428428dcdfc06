/**
 * The project of the workspace benchmark (issue 12, "Speed"): 200 runs × 50 metrics × 10,000 steps
 * (100 M points), seeded once through the Store in big batches (one append of 50 metrics × 10,000
 * steps per run) and cached in .bench-cache/ while the seed version matches. Both the server-side
 * measurement of the batch read and the browser measurement of the workspace page use it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freshBenchStore } from "./seed.js";

export const WORKSPACE_SEED_VERSION = "ui-workspace-v1";
export const WORKSPACE_CACHE = fileURLToPath(new URL(`../../.bench-cache/${WORKSPACE_SEED_VERSION}/`, import.meta.url));
export const WORKSPACE_PROJECT = "bench-ui-workspace";
export const WORKSPACE_RUNS = 200;
export const WORKSPACE_METRICS = 50;
export const WORKSPACE_STEPS = 10_000;
/** Every DIVERGING-th run's losses end in NaN from DIVERGE_STEP on, as a diverged run's do. */
const DIVERGING = 10;
const DIVERGE_STEP = 9_000;
const GROUPS = ["train", "val", "grad", "sys", "lr"];

export interface WorkspaceSeed {
  /** The key of organization `bench`. */
  key: string;
  projectName: string;
  /** Newest first, as the runs table lists them. */
  runIds: number[];
  /** In the order they are logged: train/…, val/…, grad/…, sys/…, lr/… interleaved. */
  logNames: string[];
}

export function workspaceMetricNames(count = WORKSPACE_METRICS): string[] {
  return Array.from({ length: count }, (_, m) => `${GROUPS[m % GROUPS.length]}/metric_${String(m).padStart(2, "0")}`);
}

/** The seeded project (seeding it first if the cache lacks it); `dir` is the server's data directory. */
export async function seedWorkspace(dir = WORKSPACE_CACHE): Promise<WorkspaceSeed> {
  const manifest = `${dir}seeded.json`;
  if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")) as WorkspaceSeed;
  const started = Date.now();
  const { store, orgId, key, actor } = await freshBenchStore(dir);
  const logNames = workspaceMetricNames();
  const steps = Array.from({ length: WORKSPACE_STEPS }, (_, s) => s);
  const times = steps.map((s) => started + s * 100);
  const runIds: number[] = [];
  for (let r = 0; r < WORKSPACE_RUNS; r++) {
    const config = { lr: [0.1, 0.01, 0.001, 0.0001][r % 4]!, batch_size: [32, 64, 128][r % 3]!, seed: r };
    const { run } = await store.createRun(
      orgId,
      { projectName: WORKSPACE_PROJECT, name: `sweep-${r}`, tags: [`seed-${r % 5}`], config, now: started + r },
      actor,
    );
    runIds.unshift(run.id);
    const diverges = r % DIVERGING === DIVERGING - 1;
    const series = logNames.map((logName, m) => ({
      logName,
      steps,
      times,
      values: steps.map((s) =>
        diverges && s >= DIVERGE_STEP && logName.includes("train")
          ? Number.NaN
          : (1 + m / 10) * Math.exp(-s / (2000 + 37 * r)) + Math.sin(s / 50 + r + m) * 0.02 + ((s * 7919 + r * 104_729 + m) % 1000) / 1e5,
      ),
    }));
    await store.appendMetricPoints(orgId, run.id, series, started);
    if (r % 10 === 0) {
      const points = (r + 1) * WORKSPACE_METRICS * WORKSPACE_STEPS;
      process.stdout.write(`\r  seeding the workspace project: ${r + 1}/${WORKSPACE_RUNS} runs (${(points / 1e6).toFixed(0)} M points)`);
    }
  }
  await store.close();
  const seeded: WorkspaceSeed = { key, projectName: WORKSPACE_PROJECT, runIds, logNames };
  writeFileSync(manifest, JSON.stringify(seeded));
  console.log(`\r  seeded the workspace project in ${((Date.now() - started) / 1000).toFixed(0)} s                              `);
  return seeded;
}

/**
 * Marks the seeded runs COMPLETED over the API (a finished sweep; the seed leaves them RUNNING):
 * the workspace refreshes RUNNING runs every 5 s, which would add live re-reads to a page load.
 * Idempotent: runs already finished are left alone.
 */
export async function finishWorkspaceRuns(url: string, seed: WorkspaceSeed): Promise<void> {
  const headers = { authorization: `Bearer ${seed.key}`, "content-type": "application/json" };
  const query = new URLSearchParams({ projectName: seed.projectName, status: "RUNNING", limit: "200" });
  const listed = (await (await fetch(`${url}/api/runs/list?${query}`, { headers })).json()) as { runs: { id: number }[] };
  for (const run of listed.runs) {
    const response = await fetch(`${url}/api/runs/status/update`, {
      method: "POST",
      headers,
      body: JSON.stringify({ runId: run.id, status: "COMPLETED" }),
    });
    if (response.status !== 200) throw new Error(`finishing run ${run.id} answered ${response.status}: ${await response.text()}`);
  }
}
