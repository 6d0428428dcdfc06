import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { addPoints, EMPTY_SUMMARY } from "../../src/domain/summaries.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { DATABASE_FILE, SqliteStore } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { BIN, makeTempDir, spawnServer, TEST_BACKEND, type ServerProcess } from "../helpers/start-server.js";

/** `bin/stepwise <args>` in a child process (this process goes on ingesting meanwhile). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATABASE_URL: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const METRICS = ["a", "b", "c"];
/** Integers, so sums (and means) are exact whatever order the server adds them in. */
const valueAt = (step: number, metric: number) => ((step * 7 + metric * 13) % 1000) - 300;
const lines = (firstStep: number, steps: number) =>
  Array.from({ length: steps }, (_, k) => ({
    step: firstStep + k,
    data: Object.fromEntries(METRICS.map((name, m) => [name, valueAt(firstStep + k, m)])),
  }));

interface Ack {
  runId: number;
  firstStep: number;
  steps: number;
  ackedAt: number;
}

const PROJECT = "backed-up";

// The embedded store's backup; a PostgreSQL store is backed up with pg_dump (postgres-backup.test.ts).
describe("stepwise backup and restore of the embedded store", {
  skip: TEST_BACKEND === "postgres" && "the SQLite store's own backup",
}, () => {
  let dataDir: string;
  let work: string;
  let key: string;
  let seededRun: number;
  let server: ServerProcess;
  const seededSteps = 4000;

  before(async () => {
    dataDir = makeTempDir("stepwise-backup-");
    work = makeTempDir("stepwise-backup-out-");
    // Seeded through the store (fast), so the backup copies many steps while ingest goes on.
    const store = SqliteStore.open(dataDir);
    const { organization, key: created } = await createOrganizationWithKey(store, "default", { now: () => Date.now() });
    key = created;
    const actor = { userId: null, apiKeyId: null };
    seededRun = (await store.createRun(organization.id, { projectName: PROJECT, name: "seeded", tags: [], now: Date.now() }, actor)).run.id;
    const wide = Array.from({ length: 300 }, (_, m) => `wide/m${m}`);
    for (let step = 0; step < seededSteps; step += 100) {
      const steps = Array.from({ length: 100 }, (_, k) => step + k);
      const series = wide.map((logName, m) => ({ logName, steps, times: steps, values: steps.map((s) => valueAt(s, m)) }));
      await store.appendMetricPoints(organization.id, seededRun, series, Date.now());
    }
    await store.close();
    server = await spawnServer(dataDir);
  });
  after(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("copies, under continuous ingest, every point acknowledged before it started, with exact summaries; restore serves it", async () => {
    const client = new ApiClient(server.url, key);
    const runs = await Promise.all([0, 1, 2].map((i) => client.createRun({ projectName: PROJECT, runName: `live-${i}` })));
    const acks: Ack[] = [];
    const refusals: string[] = [];
    let ingesting = true;
    const loops = runs.map(async (run) => {
      for (let firstStep = 0; ingesting; firstStep += 25) {
        const response = await ingest(client, "metrics", run, toNdjson(lines(firstStep, 25)));
        if (response.status === 200) acks.push({ runId: run.runId, firstStep, steps: 25, ackedAt: Date.now() });
        else refusals.push(`${response.status} ${JSON.stringify(response.body)}`);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const backupFile = join(work, "stepwise.backup");
    const startedAt = Date.now();
    const backup = await cli(["backup", "--to", backupFile, "--data-dir", dataDir]);
    const ackedDuring = acks.filter((ack) => ack.ackedAt > startedAt).length;
    ingesting = false;
    await Promise.all(loops);
    assert.equal(backup.code, 0, backup.stderr + backup.stdout);
    assert.deepEqual(refusals, [], "ingest goes on while the backup runs");
    assert.ok(ackedDuring > 0, "points were acknowledged while the backup ran");
    const progress = backup.stderr.match(/^\s+\d+%\s+\d+ of \d+ pages$/gm) ?? [];
    assert.ok(progress.length >= 2 && /100%/.test(progress.at(-1)!), `progress on stderr:\n${backup.stderr}`);
    assert.match(backup.stdout, /Schema version \d+/);
    assert.match(backup.stdout, /verified/);
    assert.deepEqual(
      readFileSync(backupFile).subarray(18, 20),
      Buffer.from([1, 1]),
      "a single-file database (rollback journal), not one that needs its WAL",
    );
    assert.equal(statSync(backupFile).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(work), ["stepwise.backup"], "no partial file left beside it");

    const restoredDir = join(work, "restored");
    const restore = await cli(["restore", "--from", backupFile, "--data-dir", restoredDir]);
    assert.equal(restore.code, 0, restore.stderr + restore.stdout);
    const restored = await spawnServer(restoredDir);
    try {
      const reader = new ApiClient(restored.url, key);
      const stepsOf = async (runId: number, logName: string) => {
        const raw = await reader.get("/api/runs/metrics/raw", { runId, projectName: PROJECT, logName, limit: 50_000 });
        assert.equal(raw.status, 200, JSON.stringify(raw.body));
        assert.equal(raw.body.truncated, false);
        return raw.body.rows as { step: number; value: number }[];
      };
      for (const run of runs) {
        const present = new Map<string, { step: number; value: number }[]>();
        for (const name of METRICS) present.set(name, await stepsOf(run.runId, name));
        const steps = new Set(present.get("a")!.map((row) => row.step));
        for (const ack of acks.filter((a) => a.runId === run.runId && a.ackedAt < startedAt))
          for (let step = ack.firstStep; step < ack.firstStep + ack.steps; step++)
            assert.ok(steps.has(step), `run ${run.runId} step ${step}, acknowledged before the backup started, is in the restored store`);
        // The snapshot is one moment: each run's points are a prefix of what it sent, whole batches only.
        assert.equal(steps.size % 25, 0);
        assert.deepEqual(
          [...steps],
          Array.from({ length: steps.size }, (_, i) => i),
        );
        const statistics = await reader.get("/api/runs/statistics", { runId: run.runId, projectName: PROJECT });
        for (const [m, name] of METRICS.entries()) {
          const rows = present.get(name)!;
          assert.equal(rows.length, steps.size, `${name} has every step the run has`);
          assert.ok(rows.every((row) => row.value === valueAt(row.step, m)));
          // The summary the server keeps is folded batch by batch (domain/summaries.ts): folded so from
          // the points present, it must come out bit for bit, and count, min and max as plain arithmetic.
          let expected = EMPTY_SUMMARY;
          for (let at = 0; at < rows.length; at += 25) {
            const batch = rows.slice(at, at + 25);
            expected = addPoints(
              expected,
              batch.map((row) => row.step),
              batch.map((row) => row.value),
            );
          }
          const values = rows.map((row) => row.value);
          assert.deepEqual([expected.count, expected.min, expected.max], [values.length, Math.min(...values), Math.max(...values)]);
          const metric = statistics.body.metrics.find((s: { logName: string }) => s.logName === name);
          assert.deepEqual(
            { count: metric.count, min: metric.min, max: metric.max, mean: metric.mean, stddev: metric.stddev, last: metric.last },
            {
              count: expected.count,
              min: expected.min,
              max: expected.max,
              mean: expected.mean,
              stddev: expected.stddev,
              last: { step: expected.lastValueStep, value: expected.lastValue },
            },
            `summary of ${name} in run ${run.runId}`,
          );
        }
      }
      const seeded = await reader.get("/api/runs/statistics", { runId: seededRun, projectName: PROJECT, logName: "wide/m7" });
      assert.equal(seeded.body.metrics[0].count, seededSteps);
      // The API keys came with it, as hashes: the original key reads the restored store.
      assert.equal((await reader.get(`/api/runs/details/${seededRun}`)).status, 200);
    } finally {
      restored.child.kill("SIGTERM");
      await restored.exited;
    }
  });

  it("refuses to overwrite an existing file without --force, and replaces it with", async () => {
    const target = join(work, "existing.backup");
    writeFileSync(target, "keep me");
    const refused = await cli(["backup", "--to", target, "--data-dir", dataDir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /exists: choose another name, or pass --force/);
    assert.equal(readFileSync(target, "utf8"), "keep me");
    const forced = await cli(["backup", "--to", target, "--data-dir", dataDir, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(readFileSync(target).subarray(0, 15).toString(), "SQLite format 3");
  });

  it("leaves no file behind when interrupted while copying", async () => {
    const dir = join(work, "interrupted");
    mkdirSync(dir);
    const child = spawn(process.execPath, [BIN, "backup", "--to", join(dir, "stepwise.backup"), "--data-dir", dataDir]);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
      // The first progress line comes before the first step: the copy has just begun.
      if (/\d+%/.test(stderr)) child.kill("SIGTERM");
    });
    const code = await new Promise((resolve) => child.once("exit", (exitCode, signal) => resolve(exitCode ?? signal)));
    assert.equal(code, 143, stderr);
    assert.deepEqual(readdirSync(dir), [], "neither the backup nor a partial file");
  });

  it("refuses to restore into a data directory that holds a store", async () => {
    const backupFile = join(work, "for-refusal.backup");
    assert.equal((await cli(["backup", "--to", backupFile, "--data-dir", dataDir])).code, 0);
    const before = statSync(join(dataDir, DATABASE_FILE)).mtimeMs;
    const refused = await cli(["restore", "--from", backupFile, "--data-dir", dataDir]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /holds a store already/);
    assert.equal(statSync(join(dataDir, DATABASE_FILE)).mtimeMs, before);
    const walOnly = join(work, "wal-only");
    mkdirSync(walOnly);
    writeFileSync(join(walOnly, `${DATABASE_FILE}-wal`), "");
    const refusedWal = await cli(["restore", "--from", backupFile, "--data-dir", walOnly]);
    assert.equal(refusedWal.code, 2);
    assert.match(refusedWal.stderr, /holds a store already/);
  });

  it("refuses a corrupted backup file: verification fails, nothing is placed", async () => {
    const backupFile = join(work, "corrupted.backup");
    assert.equal((await cli(["backup", "--to", backupFile, "--data-dir", dataDir])).code, 0);
    const bytes = readFileSync(backupFile);
    // A page in the middle of the file overwritten (a bad disk, a truncated copy's neighbour).
    const page = 4096;
    const middle = Math.floor(bytes.length / page / 2) * page;
    bytes.fill(0x5a, middle, middle + page);
    writeFileSync(backupFile, bytes);
    const target = join(work, "from-corrupted");
    const refused = await cli(["restore", "--from", backupFile, "--data-dir", target]);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /refusing to restore: .*(integrity check|not a whole SQLite database)/s);
    assert.ok(!existsSync(join(target, DATABASE_FILE)));

    const notADatabase = join(work, "text.backup");
    writeFileSync(notADatabase, "not a database at all\n".repeat(1000));
    const refusedText = await cli(["restore", "--from", notADatabase, "--data-dir", target]);
    assert.equal(refusedText.code, 2);
    assert.match(refusedText.stderr, /refusing to restore/);
  });

  it("refuses a PostgreSQL store: pg_dump backs that up", async () => {
    const refused = await cli(["backup", "--to", join(work, "pg.backup"), "--database-url", "postgres://u@127.0.0.1:1/db"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /pg_dump/);
  });
});
