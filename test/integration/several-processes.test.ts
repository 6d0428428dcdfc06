import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { verify } from "../../src/domain/signed-urls.js";
import { SIGNING_SECRET_FILE } from "../../src/files/signing-secret.js";
import { SWEEPER_LEASE, sweepSchedule } from "../../src/services/stale-runs.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { makeTempDir, ManualClock, spawnServer } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

/**
 * Several servers on one store (docs/architecture.md, "Several processes on one store"): here two
 * servers in this process on one SQLite data directory, each with its own connection, as two
 * processes would have. What one process kept in memory before must hold across them.
 */
const dirs: string[] = [];
const servers: RunningServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const STALE_AFTER = "15m";

async function serve(dataDir: string, clock: ManualClock): Promise<RunningServer> {
  const config = loadConfig({ "--data-dir": dataDir, "--port": "0", "--log-level": "silent", "--stale-after": STALE_AFTER }, {});
  const server = await startServer(config, clock);
  servers.push(server);
  return server;
}

async function twoServers() {
  const dataDir = makeTempDir();
  dirs.push(dataDir);
  const clock = new ManualClock(Date.UTC(2026, 6, 1));
  const first = await serve(dataDir, clock);
  const second = await serve(dataDir, clock);
  assert.equal(second.bootstrapKey, undefined, "the second server finds the store set up");
  const key = first.bootstrapKey!;
  return { dataDir, clock, first, second, key, clients: [new ApiClient(first.url, key), new ApiClient(second.url, key)] as const };
}

async function registerFile(client: ApiClient, run: { runId: number; projectName: string }): Promise<string> {
  const body = { files: [{ fileName: "w.bin", logName: "model", fileType: "bin", fileSize: 5, time: 1, step: 0 }] };
  const response = await client.raw("POST", "/files", JSON.stringify(body), {
    "content-type": "application/json",
    "x-run-id": String(run.runId),
    "x-project-name": run.projectName,
  });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return Object.values(response.body.model[0] as Record<string, string>)[0]!;
}

/** The same path and query on another server. */
function on(server: RunningServer, url: string): string {
  const parsed = new URL(url);
  return `${server.url}${parsed.pathname}${parsed.search}`;
}

describe("several processes on one store", () => {
  it("a URL signed by one process is accepted by another", async () => {
    const { first, second, clients } = await twoServers();
    const run = await clients[0].createRun({ projectName: "shared" });
    const upload = await registerFile(clients[0], run);
    assert.ok(upload.startsWith(first.url));
    const put = await fetch(on(second, upload), { method: "PUT", body: "bytes" });
    assert.equal(put.status, 200, await put.text());
    const listed = await clients[1].get("/api/runs/files", { runId: run.runId, projectName: run.projectName });
    const download: string = listed.body.files[0].url;
    assert.ok(download.startsWith(second.url));
    const got = await fetch(on(first, download));
    assert.equal(got.status, 200);
    assert.equal(await got.text(), "bytes");
  });

  it("exactly one process sweeps; when it stops renewing, another takes over after the lease", async () => {
    const { clock, first, second, clients } = await twoServers();
    const { leaseTtlMs } = sweepSchedule(15 * 60_000);
    const silent = await clients[0].createRun({ projectName: "stale", runName: "silent" });
    const alive = await clients[0].createRun({ projectName: "stale", runName: "alive" });

    assert.equal(await first.staleMonitor.sweep(), 0, "the first server takes the lease");
    assert.equal(await second.staleMonitor.sweep(), null, "the second does not sweep while the first holds it");

    // Rounds a minute apart for 16 minutes: the first renews and sweeps, the second never does. A
    // heartbeat sent to the second server keeps a run alive for the sweeper on the first.
    let marked = 0;
    for (let minute = 1; minute <= 16; minute++) {
      clock.advance(60_000);
      if (minute === 10) assert.equal((await clients[1].post("/api/runs/trigger", { runId: alive.runId })).status, 200);
      marked += (await first.staleMonitor.sweep())!;
      assert.equal(await second.staleMonitor.sweep(), null, `minute ${minute}`);
    }
    assert.equal(marked, 1, "the holder failed the silent run only");
    const status = async (runId: number) => (await clients[1].get(`/api/runs/details/${runId}`)).body.status;
    assert.equal(await status(silent.runId), "FAILED");
    assert.equal(await status(alive.runId), "RUNNING");

    // The first server now stops renewing, as a crashed process would; after the lease, the second sweeps.
    clock.advance(leaseTtlMs - 1);
    assert.equal(await second.staleMonitor.sweep(), null, "one millisecond before the lease ends");
    clock.advance(1);
    assert.equal(await second.staleMonitor.sweep(), 0, "the second server took the lease over");
    assert.equal(await first.staleMonitor.sweep(), null, "the first server lost it");
    clock.advance(10 * 60_000);
    assert.equal(await second.staleMonitor.sweep(), 1, "the new sweeper fails the run that went silent");
    assert.equal(await status(alive.runId), "FAILED");
  });

  it("a server shutting down gives the lease up: another sweeps at its next round", async () => {
    const { first, second } = await twoServers();
    assert.equal(await first.staleMonitor.sweep(), 0);
    assert.equal(await second.staleMonitor.sweep(), null);
    await first.close();
    assert.equal(await second.staleMonitor.sweep(), 0);
  });
});

describe("several server processes starting together on an empty data directory", () => {
  // Real processes: in one process, the store's synchronous calls never interleave. Three rounds,
  // as a race is a matter of timing (before migrations and the bootstrap allowed for it, about
  // one round in two lost a process).
  it("all start; one creates organization 'default' and prints its key; all share one secret", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = makeTempDir();
      dirs.push(dataDir);
      const started = await Promise.allSettled([spawnServer(dataDir), spawnServer(dataDir), spawnServer(dataDir)]);
      const processes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      try {
        const failed = started.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
        assert.deepEqual(failed, [], `round ${round}: every process starts`);
        const keys = processes.flatMap((p) => /sw_[A-Za-z0-9_-]{43}/.exec(p.stdout()) ?? []);
        assert.equal(keys.length, 1, `round ${round}: exactly one process makes and prints a key`);
        const client = new ApiClient(processes[0]!.url, keys[0]!);
        const run = await client.createRun({ projectName: "together" });
        const upload = new URL(await registerFile(client, run));
        for (const other of processes.slice(1)) {
          const put = await fetch(`${other.url}${upload.pathname}${upload.search}`, { method: "PUT", body: "bytes" });
          assert.equal(put.status, 200, `round ${round}: each process accepts the others' signatures`);
        }
      } finally {
        for (const p of processes) p.child.kill("SIGTERM");
        await Promise.all(processes.map((p) => p.exited));
      }
    }
  });
});

describe("the URL-signing secret of a data directory from before", () => {
  it("moves signing.key into the store at start: URLs signed with it stay valid, the file is gone", async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    const legacy = randomBytes(32);
    writeFileSync(join(dataDir, SIGNING_SECRET_FILE), legacy.toString("base64url"), { mode: 0o600 });
    const clock = new ManualClock(Date.UTC(2026, 6, 1));
    const first = await serve(dataDir, clock);
    assert.equal(existsSync(join(dataDir, SIGNING_SECRET_FILE)), false, "the secret lives in the store only");

    const client = new ApiClient(first.url, first.bootstrapKey!);
    const run = await client.createRun({ projectName: "legacy" });
    const upload = new URL(await registerFile(client, run));
    const fileId = Number(upload.pathname.split("/").at(-1));
    assert.doesNotThrow(
      () => verify(legacy, "upload", fileId, Object.fromEntries(upload.searchParams), clock.now()),
      "signed with the old secret",
    );

    await first.close();
    const second = await serve(dataDir, clock);
    const put = await fetch(on(second, upload.toString()), { method: "PUT", body: "bytes" });
    assert.equal(put.status, 200, "a URL signed before the restart works after it");
  });
});

describe("several server processes on one data directory", () => {
  it("when the sweeping process is killed, another process fails the stale run", { timeout: 60_000 }, async () => {
    const dataDir = makeTempDir();
    dirs.push(dataDir);
    // 2 s stale threshold: rounds every second, a lease of 3 s.
    const args = ["--stale-after", "2s"];
    const processes = [await spawnServer(dataDir, args), await spawnServer(dataDir, args)];
    try {
      const key = /sw_[A-Za-z0-9_-]{43}/.exec(processes[0]!.stdout())![0];
      const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
      const holderPid = () => {
        const row = db.prepare("SELECT holder FROM leases WHERE name = ?").get(SWEEPER_LEASE) as { holder: string } | undefined;
        return row === undefined ? undefined : Number(row.holder.split("/")[1]);
      };
      try {
        const sweeperPid = await waitFor(holderPid, { what: "a process to take the sweeper lease" });
        const sweeper = processes.find((p) => p.child.pid === sweeperPid)!;
        const survivor = processes.find((p) => p !== sweeper)!;
        sweeper.child.kill("SIGKILL");
        await sweeper.exited;

        const client = new ApiClient(survivor.url, key);
        const run = await client.createRun({ projectName: "crash", runName: "silent" });
        const status = await waitFor(
          async () => {
            const found: string = (await client.get(`/api/runs/details/${run.runId}`)).body.status;
            return found !== "RUNNING" && found;
          },
          { timeoutMs: 30_000, intervalMs: 250, what: "the silent run to be swept" },
        );
        assert.equal(status, "FAILED", "the surviving process took the lease over and swept");
        assert.equal(holderPid(), survivor.child.pid);
      } finally {
        db.close();
      }
    } finally {
      for (const p of processes) p.child.kill("SIGTERM");
      await Promise.all(processes.map((p) => p.exited));
    }
  });
});
