import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { startServer } from "../../src/server.js";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeTempDir, startTestServer, TEST_BACKEND, type TestServer } from "../helpers/start-server.js";

type Run = { runId: number; projectName: string };

const batch = (firstStep: number, steps: number, metrics: number) =>
  toNdjson(
    Array.from({ length: steps }, (_, k) => ({
      step: firstStep + k,
      data: Object.fromEntries(Array.from({ length: metrics }, (_, m) => [`m${m}`, firstStep + k + m / 1000])),
    })),
  );

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const start = performance.now();
  const result = await work();
  return { result, ms: performance.now() - start };
}

// SQLite's file lock, held by another process; a PostgreSQL server has no such lock to hold.
describe("a store locked by another process", { skip: TEST_BACKEND === "postgres" && "a SQLite file lock" }, () => {
  let test: TestServer;
  let run: Run;
  let other: Database.Database;
  before(async () => {
    test = await startTestServer();
    run = await test.client.createRun({ projectName: "locked" });
    other = new Database(join(test.dataDir, DATABASE_FILE));
  });
  after(async () => {
    other.close();
    await test.close();
  });

  it("answers writes 503 with Retry-After at once, keeps reads and /api/health answering, and reports it in readiness", async () => {
    other.exec("BEGIN IMMEDIATE"); // holds the write lock, as a CLI or a backup tool in another process would
    try {
      const write = await timed(() => ingest(test.client, "metrics", run, batch(0, 10, 3)));
      assert.equal(write.result.status, 503, JSON.stringify(write.result.body));
      assert.equal(write.result.headers.get("retry-after"), "1");
      assert.match(write.result.body.error, /another process holds the database lock/);
      assert.ok(write.ms < 1000, `answered in ${write.ms} ms, not after a long busy wait`);

      const create = await test.client.createRun({ projectName: "locked", runName: "x" }).catch((error: Error) => error);
      assert.ok(create instanceof Error && /503/.test(create.message), String(create));

      const health = await timed(() => fetch(`${test.url}/api/health`));
      assert.equal(health.result.status, 200);
      assert.ok(health.ms < 1000);
      const ready = await fetch(`${test.url}/api/health/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.headers.get("retry-after"), "1");
      assert.match((await ready.json()).error, /lock/);

      const details = await test.client.get(`/api/runs/details/${run.runId}`);
      assert.equal(details.status, 200, "reads go on beside the other writer (WAL)");
    } finally {
      other.exec("ROLLBACK");
    }
    assert.equal((await ingest(test.client, "metrics", run, batch(0, 10, 3))).status, 200, "writes resume once the lock is released");
    assert.equal((await fetch(`${test.url}/api/health/ready`)).status, 200);
  });
});

/**
 * A second connection holding a lock on PostgreSQL, as a stuck transaction of another process or
 * an operator's session would: the server's lock_timeout (--store-lock-timeout) and
 * statement_timeout (--store-statement-timeout) turn the wait into a 503. The lock is released by
 * itself after RELEASE_AFTER_MS, so a server that waits for it answers 200, late, and fails the test
 * instead of hanging it.
 */
const RELEASE_AFTER_MS = 3000;

async function holdingRunRow(databaseUrl: string, runId: number): Promise<{ release(): Promise<void> }> {
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query("BEGIN");
  await other.query("SELECT id FROM runs WHERE id = $1 FOR UPDATE", [runId]);
  let released: Promise<void> | undefined;
  const release = () => (released ??= other.query("ROLLBACK").then(() => other.end()));
  const timer = setTimeout(release, RELEASE_AFTER_MS);
  return {
    release() {
      clearTimeout(timer);
      return release();
    },
  };
}

describe("a run row locked by another connection on PostgreSQL", { skip: TEST_BACKEND !== "postgres" && "a PostgreSQL row lock" }, () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--store-lock-timeout": "200ms" } });
  });
  after(async () => test.close());

  it("answers writes to that run 503 with Retry-After within the lock timeout, goes on with reads and other runs, and succeeds after release", async () => {
    const run = await test.client.createRun({ projectName: "locked", runName: "held" });
    const other = await test.client.createRun({ projectName: "locked", runName: "free" });
    const lock = await holdingRunRow(test.databaseUrl, run.runId);
    try {
      const tags = await timed(() => test.client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] }));
      assert.equal(tags.result.status, 503, JSON.stringify(tags.result.body));
      assert.equal(tags.result.headers.get("retry-after"), "1");
      assert.match(tags.result.body.error, /lock/);
      assert.ok(tags.ms < 1000, `answered in ${tags.ms} ms, not after waiting for the lock`);

      const write = await timed(() => ingest(test.client, "metrics", run, batch(0, 10, 3)));
      assert.equal(write.result.status, 503, JSON.stringify(write.result.body));
      assert.equal(write.result.headers.get("retry-after"), "1");
      assert.ok(write.ms < 1000, `ingest answered in ${write.ms} ms`);

      const status = await test.client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
      assert.equal(status.status, 503, JSON.stringify(status.body));

      assert.equal((await test.client.get(`/api/runs/details/${run.runId}`)).status, 200, "reads do not wait for row locks");
      assert.equal((await ingest(test.client, "metrics", other, batch(0, 10, 3))).status, 200, "another run is not locked");
      assert.equal((await fetch(`${test.url}/api/health/ready`)).status, 200);
    } finally {
      await lock.release();
    }
    const raw = await test.client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "locked", logName: "m0" });
    assert.deepEqual(raw.body.rows ?? [], [], "nothing of the refused ingest was stored");

    assert.equal((await test.client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] })).status, 200);
    assert.equal((await ingest(test.client, "metrics", run, batch(0, 10, 3))).status, 200, "writes resume once the lock is released");
    assert.equal((await test.client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" })).status, 200);
    const details = await test.client.get(`/api/runs/details/${run.runId}`);
    assert.equal(details.body.status, "COMPLETED");
    assert.deepEqual(details.body.tags, ["a"]);
  });
});

describe("a statement past the statement timeout on PostgreSQL", {
  skip: TEST_BACKEND !== "postgres" && "a PostgreSQL statement timeout",
}, () => {
  let test: TestServer;
  before(async () => {
    // A lock wait long enough that the statement timeout ends it first.
    test = await startTestServer({ flags: { "--store-lock-timeout": "1m", "--store-statement-timeout": "300ms" } });
  });
  after(async () => test.close());

  it("is cancelled, and the request answers 503 with Retry-After instead of hanging", async () => {
    const run = await test.client.createRun({ projectName: "slow" });
    const lock = await holdingRunRow(test.databaseUrl, run.runId);
    try {
      const tags = await timed(() => test.client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] }));
      assert.equal(tags.result.status, 503, JSON.stringify(tags.result.body));
      assert.equal(tags.result.headers.get("retry-after"), "5");
      assert.match(tags.result.body.error, /took longer than the server allows/);
      assert.ok(tags.ms < 2000, `answered in ${tags.ms} ms`);
    } finally {
      await lock.release();
    }
    assert.equal((await test.client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] })).status, 200);
  });
});

/**
 * A 4 MiB tmpfs for the data directory (a new store with its migrations is about 0.45 MB, its WAL
 * more while they run); undefined once mounted, else why it cannot be. Only root
 * can mount one. CI runs as root, so a machine that cannot fails the test with the reason rather
 * than passing it silently; STEPWISE_TEST_NO_MOUNT=1 skips it knowingly (the reason shows as the skip's).
 */
function mountSmallDisk(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs: ${(error as Error).message}`;
  }
}

/** Fills the file system with one file until it refuses more; returns its path. */
function fillDisk(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

const mountPoint = makeTempDir("stepwise-full-disk-");
const unmounted = mountSmallDisk(mountPoint);
const skipFullDisk = unmounted !== undefined && process.env.STEPWISE_TEST_NO_MOUNT === "1" && `${unmounted} (STEPWISE_TEST_NO_MOUNT=1)`;

if (skipFullDisk) rmSync(mountPoint, { recursive: true, force: true }); // a skipped suite runs no after()

describe("a full disk", { skip: skipFullDisk }, () => {
  after(() => {
    if (unmounted === undefined) execFileSync("umount", [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it("answers ingest and upload 503 with Retry-After, fails readiness, and loses nothing acknowledged once space is freed", async () => {
    if (unmounted !== undefined)
      assert.fail(
        `${unmounted}: this test fills a small file system of its own; run the tests as root (CI does), or set STEPWISE_TEST_NO_MOUNT=1 to skip it knowingly`,
      );
    const dataDir = join(mountPoint, "data");
    mkdirSync(dataDir);
    const config = loadConfig({ "--data-dir": dataDir, "--port": "0", "--log-level": "silent", "--min-free-space": "64KiB" }, {});
    const server = await startServer(config);
    try {
      const client = new ApiClient(server.url, server.bootstrapKey!);
      const run = await client.createRun({ projectName: "full" });
      const registered = await client.raw(
        "POST",
        "/files",
        JSON.stringify({ files: [{ fileName: "big.bin", fileSize: 1, fileType: "bin", time: 0, step: 0, logName: "blobs" }] }),
        { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": run.projectName },
      );
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      const uploadUrl = Object.values(registered.body.blobs[0] as Record<string, string>)[0]!;

      // Acknowledged before the disk fills: these must all be readable at the end.
      let step = 0;
      for (let i = 0; i < 5; i++, step += 20) assert.equal((await ingest(client, "metrics", run, batch(step, 20, 20))).status, 200);
      assert.equal((await fetch(`${server.url}/api/health/ready`)).status, 200);

      const filler = fillDisk(dataDir);
      const ready = await fetch(`${server.url}/api/health/ready`);
      assert.equal(ready.status, 503);
      assert.equal(ready.headers.get("retry-after"), "60");
      assert.match((await ready.json()).error, /storage almost full/);

      // The WAL may hold a few more batches in space it already has; keep writing until the disk says no.
      let refused: Awaited<ReturnType<typeof ingest>> | undefined;
      for (let i = 0; i < 200 && !refused; i++) {
        const response = await ingest(client, "metrics", run, batch(step, 20, 20));
        if (response.status === 200) step += 20;
        else refused = response;
      }
      assert.ok(refused, "a full disk refuses ingest");
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(refused.headers.get("retry-after"), "60");
      assert.match(refused.body.error, /storage full/);

      const upload = await fetch(uploadUrl, { method: "PUT", body: Buffer.alloc(512 * 1024, 7) });
      assert.equal(upload.status, 503, await upload.clone().text());
      assert.equal(upload.headers.get("retry-after"), "60");
      await upload.text();
      assert.equal((await fetch(`${server.url}/api/health`)).status, 200, "liveness is not readiness");

      rmSync(filler);
      assert.equal((await fetch(`${server.url}/api/health/ready`)).status, 200, "ready again once space is freed");
      assert.equal((await ingest(client, "metrics", run, batch(step, 20, 20))).status, 200);
      step += 20;
      assert.equal((await fetch(uploadUrl, { method: "PUT", body: "bytes" })).status, 200);

      for (const name of ["m0", "m19"]) {
        const raw = await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: run.projectName, logName: name });
        assert.equal(raw.status, 200, JSON.stringify(raw.body));
        assert.deepEqual(
          raw.body.rows.map((row: { step: number }) => row.step),
          Array.from({ length: step }, (_, k) => k),
          `${name}: every acknowledged step, none of the refused batch`,
        );
      }
    } finally {
      await server.close();
    }
  });
});
