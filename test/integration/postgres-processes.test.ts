import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { SWEEPER_LEASE } from "../../src/services/stale-runs.js";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { makeTempDir, spawnServer, type ServerProcess } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

/**
 * Three real server processes on one PostgreSQL database behave as one service
 * (docs/architecture.md, "Several processes on one store"). They share one --data-dir, as several
 * processes must until file bytes move to object storage.
 */
describe("three server processes on one PostgreSQL database", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let processes: ServerProcess[] = [];
  after(async () => {
    for (const p of processes) p.child.kill("SIGTERM");
    await Promise.all(processes.map((p) => p.exited));
    await database?.drop();
  });

  it("start together, answer as one service, and replace a killed sweeper", { timeout: 90_000 }, async () => {
    database = await createTestDatabase();
    const dataDir = makeTempDir();
    // 2 s stale threshold: sweeper rounds every second, a lease of 3 s.
    const args = ["--database-url", database.url, "--stale-after", "2s"];
    processes = await Promise.all([spawnServer(dataDir, args), spawnServer(dataDir, args), spawnServer(dataDir, args)]);
    const keys = processes.flatMap((p) => /sw_[A-Za-z0-9_-]{43}/.exec(p.stdout()) ?? []);
    assert.equal(keys.length, 1, "exactly one process makes and prints the first key");
    const clients = processes.map((p) => new ApiClient(p.url, keys[0]!));

    // 32 concurrent creates with one externalId, spread over the three.
    const created = await Promise.all(
      Array.from({ length: 32 }, (_, i) => clients[i % 3]!.createRun({ projectName: "together", runName: "job", externalId: "job-1" })),
    );
    assert.equal(new Set(created.map((run) => run.runId)).size, 1, "one run");
    const run = created[0]!;
    const history = await clients[0]!.get("/api/runs/status/history", { runId: run.runId });
    assert.equal(history.body.events.length, 1, "one RUNNING event");

    // MLflow's model registry: 30 versions of one model created at once through the three processes
    // take 30 distinct numbers (docs/api.md, "The model registry").
    const registry = "/api/2.0/mlflow";
    assert.equal((await clients[0]!.post(`${registry}/registered-models/create`, { name: "shared" })).status, 200);
    const versions = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        clients[i % 3]!.post(`${registry}/model-versions/create`, { name: "shared", source: "s3://bucket/model" }),
      ),
    );
    assert.deepEqual(
      versions.map((response) => Number(response.body.model_version.version)).sort((a, b) => a - b),
      Array.from({ length: 30 }, (_, i) => i + 1),
      "one number per version",
    );

    // Ingest through all three at once to one run and metric: interleaved steps, so batches overlap.
    const values = new Map<number, number>();
    await Promise.all(
      clients.map(async (client, c) => {
        for (let batch = 0; batch < 10; batch++) {
          const lines = Array.from({ length: 50 }, (_, k) => {
            const step = (batch * 50 + k) * 3 + c;
            values.set(step, Math.cos(step) * 10);
            return { step, data: { loss: values.get(step)! } };
          });
          assert.equal((await ingest(client, "metrics", run, toNdjson(lines))).status, 200);
        }
      }),
    );
    const raw = await clients[2]!.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "together", logName: "loss" });
    assert.deepEqual(
      raw.body.rows.map((row: { step: number; value: number }) => [row.step, row.value]),
      [...values].sort((a, b) => a[0] - b[0]),
      "every point of every process",
    );
    const [stats] = (await clients[1]!.get("/api/runs/statistics", { runId: run.runId, projectName: "together", logName: "loss" })).body
      .metrics;
    const all = [...values.values()];
    assert.equal(stats.count, all.length);
    assert.equal(stats.min, Math.min(...all));
    assert.equal(stats.max, Math.max(...all));
    assert.ok(Math.abs(stats.mean - all.reduce((a, b) => a + b, 0) / all.length) < 1e-9, "the summary is exact");

    // A file URL signed by one process is accepted by another.
    const register = await clients[0]!.raw(
      "POST",
      "/files",
      JSON.stringify({ files: [{ fileName: "w.bin", logName: "model", fileType: "bin", fileSize: 5, time: 1, step: 0 }] }),
      { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": "together" },
    );
    const upload = new URL(Object.values(register.body.model[0] as Record<string, string>)[0]!);
    const put = await fetch(`${processes[1]!.url}${upload.pathname}${upload.search}`, { method: "PUT", body: "bytes" });
    assert.equal(put.status, 200);

    // Kill the sweeping process: another takes the lease over and fails a silent run.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const holderPid = async () => {
        const found = await db.query("SELECT holder FROM leases WHERE name = $1", [SWEEPER_LEASE]);
        return found.rows.length === 0 ? undefined : Number((found.rows[0].holder as string).split("/")[1]);
      };
      const sweeperPid = await waitFor(holderPid, { what: "a process to take the sweeper lease" });
      const sweeper = processes.find((p) => p.child.pid === sweeperPid)!;
      sweeper.child.kill("SIGKILL");
      await sweeper.exited;
      const survivor = clients[processes.findIndex((p) => p !== sweeper)]!;
      const silent = await survivor.createRun({ projectName: "together", runName: "silent" });
      const status = await waitFor(
        async () => {
          const found: string = (await survivor.get(`/api/runs/details/${silent.runId}`)).body.status;
          return found !== "RUNNING" && found;
        },
        { timeoutMs: 30_000, intervalMs: 250, what: "the silent run to be swept" },
      );
      assert.equal(status, "FAILED", "a surviving process took the lease over and swept");
      assert.notEqual(await holderPid(), sweeperPid);
    } finally {
      await db.end();
    }
  });
});
