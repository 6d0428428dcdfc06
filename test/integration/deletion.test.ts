import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { BLOB_TARGETS, running, startBlobTargets } from "../helpers/blob-targets.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { BIN, ManualClock, makeOrg, startTestServer, TEST_BACKEND, type TestServer } from "../helpers/start-server.js";

/** Deletion, the trash, the purge (`stepwise gc`) and retention over real HTTP (docs/api.md, "Deletion and retention"). */

startBlobTargets();

const DAY_MS = 86_400_000;

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

async function logMetrics(client: ApiClient, run: { runId: number; projectName: string }, steps: number) {
  const lines = Array.from({ length: steps }, (_, step) => ({ step, data: { "train/loss": 1 / (step + 1), "train/acc": step / steps } }));
  for (let start = 0; start < lines.length; start += 5000) {
    const answer = await ingest(client, "metrics", run, toNdjson(lines.slice(start, start + 5000)));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
}

async function uploadFiles(client: ApiClient, run: { runId: number; projectName: string }, count: number, size: number) {
  const files = Array.from({ length: count }, (_, i) => ({
    fileName: `f${i}.bin`,
    logName: "blobs",
    fileType: "bin",
    fileSize: size,
    time: 1,
    step: i,
  }));
  const registered = await client.raw("POST", "/files", JSON.stringify({ files }), {
    "content-type": "application/json",
    "x-run-id": String(run.runId),
    "x-project-name": run.projectName,
  });
  assert.equal(registered.status, 200, JSON.stringify(registered.body));
  for (const entry of registered.body.blobs as Record<string, string>[]) {
    const url = Object.values(entry)[0]!;
    const put = await fetch(url, { method: "PUT", body: Buffer.alloc(size, 7) });
    assert.equal(put.status, 200, await put.text());
  }
}

function bytesUnder(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0);
}

const details = (client: ApiClient, runId: number) => client.get(`/api/runs/details/${runId}`);

for (const target of BLOB_TARGETS) {
  describe(`deletion (${target.name})`, () => {
    let test: TestServer;
    let client: ApiClient;
    let other: ApiClient;
    let flags: Record<string, string>;
    // Runs finish "three days ago" so a one-day retention policy applies to them at the real time.
    const clock = new ManualClock(Date.now() - 3 * DAY_MS);
    before(async () => {
      flags = target.flags();
      test = await startTestServer({ clock, flags });
      client = (await makeOrg(test)).client;
      other = (await makeOrg(test)).client;
    });
    after(async () => test.close());

    const storeArgs = () => [
      "--data-dir",
      test.dataDir,
      ...(test.databaseUrl ? ["--database-url", test.databaseUrl] : []),
      ...Object.entries(flags).flat(),
    ];

    it("a deleted run leaves every read and write at once, shows in the trash, and comes back restored", async () => {
      const run = await client.createRun({ projectName: "vision", name: "to-delete" });
      const kept = await client.createRun({ projectName: "vision", name: "kept" });
      await logMetrics(client, run, 10);
      const deleted = await client.post("/api/runs/delete", { runIds: [run.runId] });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.deepEqual(deleted.body.deleted, [run.runId]);
      assert.equal(Date.parse(deleted.body.purgeAfter), clock.now() + 30 * DAY_MS, "--deleted-retention defaults to 30 days");

      assert.equal((await details(client, run.runId)).status, 404);
      assert.equal((await client.get(`/api/runs/details/by-display-id/${run.displayId}`, { projectName: "vision" })).status, 404);
      const list = await client.get("/api/runs/list", { projectName: "vision" });
      assert.deepEqual(
        list.body.runs.map((r: { id: number }) => r.id),
        [kept.runId],
      );
      assert.equal((await client.get("/api/runs/metrics", { runId: run.runId, projectName: "vision", logName: "train/loss" })).status, 404);
      const board = await client.get("/api/runs/leaderboard", { projectName: "vision", logName: "train/loss" });
      assert.equal(board.status, 200, JSON.stringify(board.body));
      assert.equal(board.body.total, 0, "the leaderboard leaves deleted runs out");
      assert.equal((await ingest(client, "metrics", run, toNdjson([{ step: 99, data: { x: 1 } }]))).status, 404, "writes answer 404");
      assert.equal((await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" })).status, 404);
      const deletedAt = clock.now();
      clock.advance(1000);
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200, "deleting twice is fine");
      const firstTime = (await client.get("/api/runs/trash", { projectName: "vision" })).body.runs[0].deletedAt;
      assert.equal(Date.parse(firstTime), deletedAt, "and keeps the first deletion's time (and purge date)");
      const projects = await client.get("/api/runs/projects");
      assert.equal(projects.body.projects.find((p: { name: string }) => p.name === "vision").runCount, 1);

      const trash = await client.get("/api/runs/trash", { projectName: "vision" });
      assert.equal(trash.status, 200);
      assert.equal(trash.body.total, 1);
      assert.equal(trash.body.runs[0].runId, run.runId);
      assert.equal(trash.body.runs[0].projectDeleted, false);

      const restored = await client.post("/api/runs/restore", { runIds: [run.runId] });
      assert.deepEqual(restored.body, { restored: [run.runId] });
      assert.equal((await details(client, run.runId)).status, 200);
      assert.equal((await client.get("/api/runs/trash", { projectName: "vision" })).body.total, 0);
      assert.deepEqual(
        (await client.post("/api/runs/restore", { runIds: [run.runId] })).body,
        { restored: [run.runId] },
        "restoring a live run changes nothing",
      );
    });

    it("is one deletion with MLflow's: each side sees the other's deletes, and its restores", async () => {
      const run = await client.createRun({ projectName: "both-protocols" });
      const experimentId = String(
        (await client.get("/api/runs/projects")).body.projects.find((p: { name: string }) => p.name === "both-protocols").id,
      );
      const mlflowId = (await client.post("/api/2.0/mlflow/runs/search", { experiment_ids: [experimentId] })).body.runs[0].info.run_id;
      const stage = async () => (await client.get("/api/2.0/mlflow/runs/get", { run_id: mlflowId })).body.run.info.lifecycle_stage;
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
      assert.equal(await stage(), "deleted", "MLflow's client sees Stepwise's delete");
      assert.equal((await client.post("/api/2.0/mlflow/runs/restore", { run_id: mlflowId })).status, 200);
      assert.equal((await details(client, run.runId)).status, 200, "and Stepwise MLflow's restore");
      assert.equal((await client.post("/api/2.0/mlflow/runs/delete", { run_id: mlflowId })).status, 200);
      assert.equal((await details(client, run.runId)).status, 404, "an MLflow-deleted run leaves Stepwise's reads");
      assert.ok(
        (await client.get("/api/runs/trash", { projectName: "both-protocols" })).body.runs.some(
          (r: { runId: number }) => r.runId === run.runId,
        ),
      );
      assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 200);
      assert.equal(await stage(), "active");
    });

    it("refuses deleting a run that a live fork reads; deletes both in one call; restores a fork only with its parent", async () => {
      const parent = await client.createRun({ projectName: "forks" });
      await logMetrics(client, parent, 20);
      const child = await client.createRun({ projectName: "forks", forkRunId: parent.runId, forkStep: 10 });
      const refused = await client.post("/api/runs/delete", { runIds: [parent.runId] });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.match(refused.body.error, /live fork/);
      assert.equal((await details(client, parent.runId)).status, 200, "nothing was deleted");
      assert.equal((await client.post("/api/runs/delete", { runIds: [parent.runId, child.runId] })).status, 200);
      const childFirst = await client.post("/api/runs/restore", { runIds: [child.runId] });
      assert.equal(childFirst.status, 409, JSON.stringify(childFirst.body));
      assert.equal((await client.post("/api/runs/restore", { runIds: [child.runId, parent.runId] })).status, 200);
      const inherited = await client.get("/api/runs/metrics", { runId: child.runId, projectName: "forks", logName: "train/loss" });
      assert.equal(inherited.status, 200);
      assert.ok(inherited.body.points?.length > 0 || inherited.body.metrics?.length > 0 || JSON.stringify(inherited.body).includes("10"));
    });

    it("bounds and checks its input", async () => {
      assert.equal((await client.post("/api/runs/delete", { runIds: [] })).status, 400);
      assert.equal((await client.post("/api/runs/delete", { runIds: Array.from({ length: 1001 }, (_, i) => i + 1) })).status, 400);
      assert.equal((await client.post("/api/runs/delete", { runIds: [Number.MAX_SAFE_INTEGER] })).status, 404);
      const run = await client.createRun({ projectName: "bounds" });
      const mixed = await client.post("/api/runs/delete", { runIds: [run.runId, Number.MAX_SAFE_INTEGER] });
      assert.equal(mixed.status, 404);
      assert.equal((await details(client, run.runId)).status, 200, "all or nothing");
      const bad = await client.raw("PUT", "/api/runs/retention", JSON.stringify({ projectName: "bounds", policy: { maxAgeDays: 0 } }), {
        "content-type": "application/json",
      });
      assert.equal(bad.status, 400);
    });

    it("another organization's key sees 404 or nothing on every route", async () => {
      const run = await client.createRun({ projectName: "private" });
      assert.equal((await other.post("/api/runs/delete", { runIds: [run.runId] })).status, 404);
      assert.equal((await details(client, run.runId)).status, 200);
      assert.equal((await other.post("/api/runs/projects/delete", { projectName: "private" })).status, 404);
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
      assert.equal((await other.post("/api/runs/restore", { runIds: [run.runId] })).status, 404);
      assert.equal((await other.get("/api/runs/trash", { projectName: "private" })).status, 404);
      const otherTrash = await other.get("/api/runs/trash");
      assert.equal(otherTrash.status, 200);
      assert.equal(otherTrash.body.total, 0);
      assert.deepEqual(otherTrash.body.projects, []);
      assert.equal((await other.get("/api/runs/retention", { projectName: "private" })).status, 404);
      const put = await other.raw("PUT", "/api/runs/retention", JSON.stringify({ projectName: "private", policy: { maxAgeDays: 1 } }), {
        "content-type": "application/json",
      });
      assert.equal(put.status, 404);
      assert.equal((await other.post("/api/runs/retention/dry-run", { projectName: "private" })).status, 404);
      assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 200);
    });

    it("deletes and restores a project with its runs; a deleted project takes no run", async () => {
      const run = await client.createRun({ projectName: "whole" });
      const deleted = await client.post("/api/runs/projects/delete", { projectName: "whole" });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.runCount, 1);
      assert.ok(!(await client.get("/api/runs/projects")).body.projects.some((p: { name: string }) => p.name === "whole"));
      assert.equal((await details(client, run.runId)).status, 404);
      assert.equal((await client.post("/api/runs/create", { runName: "late", projectName: "whole" })).status, 409);
      const trash = await client.get("/api/runs/trash", { projectName: "whole" });
      assert.equal(trash.body.projects[0].projectName, "whole");
      assert.equal(trash.body.runs[0].projectDeleted, true);
      assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 409, "restore the project first");
      assert.equal((await client.post("/api/runs/projects/restore", { projectName: "whole" })).status, 200);
      assert.equal((await details(client, run.runId)).status, 200);
    });

    it("retention: a dry run lists finished runs older than the policy without the kept tag; gc applies it", async () => {
      const old = await client.createRun({ projectName: "retained", name: "old" });
      const tagged = await client.createRun({ projectName: "retained", name: "tagged", tags: ["keep"] });
      const running = await client.createRun({ projectName: "retained", name: "running" });
      for (const run of [old, tagged])
        assert.equal((await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" })).status, 200);
      clock.advance(3 * DAY_MS);
      const put = await client.raw(
        "PUT",
        "/api/runs/retention",
        JSON.stringify({ projectName: "retained", policy: { maxAgeDays: 1, excludeTag: "keep" } }),
        { "content-type": "application/json" },
      );
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual((await client.get("/api/runs/retention", { projectName: "retained" })).body.policy.maxAgeDays, 1);
      const dry = await client.post("/api/runs/retention/dry-run", { projectName: "retained" });
      assert.equal(dry.status, 200);
      assert.deepEqual(
        dry.body.runs.map((r: { runId: number }) => r.runId),
        [old.runId],
      );
      assert.equal((await details(client, old.runId)).status, 200, "a dry run deletes nothing");
      const gc = await cli(["gc", "--older-than", "1h", ...storeArgs()], target.env());
      assert.equal(gc.code, 0, gc.stderr);
      assert.match(gc.stdout, /Retention policies moved 1 runs to the trash/);
      assert.equal((await details(client, old.runId)).status, 404);
      assert.equal((await details(client, tagged.runId)).status, 200);
      assert.equal((await details(client, running.runId)).status, 200);
      assert.equal((await client.post("/api/runs/restore", { runIds: [old.runId] })).status, 200, "retired runs wait in the trash");
    });

    it("gc purges every row and every file byte of deleted runs and projects: bytes on disk / objects in the bucket before and after", async () => {
      const run = await client.createRun({ projectName: "purged" });
      await logMetrics(client, run, 20_000);
      await uploadFiles(client, run, 3, 100_000);
      const survivor = await client.createRun({ projectName: "purged" });
      await uploadFiles(client, survivor, 1, 1000);
      const objects = async () => {
        if (!flags["--blob-url"]) return bytesUnder(join(test.dataDir, "files", String(run.runId)));
        const s3 = new S3Client({
          endpoint: running().endpoint,
          region: "us-east-1",
          forcePathStyle: true,
          credentials: { accessKeyId: running().accessKeyId, secretAccessKey: running().secretAccessKey },
        });
        const prefix = flags["--blob-url"]!.replace(/^s3:\/\/[^/]+\//, "");
        const listed = await s3.send(new ListObjectsV2Command({ Bucket: running().bucket, Prefix: prefix }));
        s3.destroy();
        return (listed.Contents ?? []).filter((o) => o.Key!.includes(`/runs/${run.runId}/`)).reduce((sum, o) => sum + (o.Size ?? 0), 0);
      };
      const bytesBefore = await objects();
      assert.equal(bytesBefore, 300_000, "the run's three files are stored");
      const dbFile = join(test.dataDir, "stepwise.db");
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
      await client.createRun({ projectName: "gone-project" });
      assert.equal((await client.post("/api/runs/projects/delete", { projectName: "gone-project" })).status, 200);

      const notYet = await cli(["gc", ...storeArgs()], target.env());
      assert.equal(notYet.code, 0, notYet.stderr);
      assert.match(notYet.stdout, /Purged 0 runs and 0 projects/, "inside the grace period nothing is purged");

      const sizeBefore = TEST_BACKEND === "sqlite" ? statSync(dbFile).size : 0;
      const gc = await cli(["gc", "--older-than", "0s", ...storeArgs()], target.env());
      assert.equal(gc.code, 0, gc.stderr);
      assert.match(gc.stdout, /Purged \d+ runs and 1 projects/);
      assert.match(gc.stdout, /points +40000/);
      assert.match(gc.stdout, /file objects +3 \(300000 bytes\)/);
      assert.equal(await objects(), 0, "no byte of the run's files is left");
      if (TEST_BACKEND === "sqlite") {
        const sizeAfter = statSync(dbFile).size;
        assert.ok(sizeAfter < sizeBefore, `the database file shrank: ${sizeBefore} → ${sizeAfter} bytes`);
      }
      assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 404, "a purged run is gone for good");
      assert.equal((await client.get("/api/runs/trash", { projectName: "purged" })).body.total, 0);
      assert.equal((await details(client, survivor.runId)).status, 200);
      const survivorFiles = await client.get("/api/runs/files", { runId: survivor.runId, projectName: "purged" });
      assert.equal(survivorFiles.body.files.length, 1, "another run's files are untouched");
      assert.equal(
        (await client.post("/api/runs/create", { runName: "new", projectName: "gone-project" })).status,
        200,
        "a purged project's name is free again",
      );
    });

    it("the server's own round, under its lease, purges what its --deleted-retention makes due, and nothing earlier", async () => {
      const run = await client.createRun({ projectName: "hourly" });
      await uploadFiles(client, run, 1, 1000);
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
      clock.advance(29 * DAY_MS);
      assert.equal((await test.server.purgeMonitor.purge())?.runs, 0, "29 days after the delete: still restorable");
      assert.equal((await client.get("/api/runs/trash", { projectName: "hourly" })).body.total, 1);
      clock.advance(2 * DAY_MS);
      const report = await test.server.purgeMonitor.purge();
      assert.equal(report?.runs, 1);
      assert.equal(report?.fileObjects, 1);
      assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 404, "purged for good");
    });
  });
}
