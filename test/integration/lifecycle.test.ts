import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { execFile } from "node:child_process";
import { request, type IncomingMessage } from "node:http";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { toNdjson } from "../helpers/ingest.js";
import {
  BIN,
  makeTempDir,
  makeTestStoreLocation,
  spawnServe,
  spawnServer,
  startTestServer,
  type ServerProcess,
  type TestStoreLocation,
} from "../helpers/start-server.js";

const KEY = /sw_[A-Za-z0-9_-]{43}/g;

/** Polls `condition` until it holds; fails after the deadline instead of sleeping a fixed time. */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Whether a new TCP connection to the server is refused, i.e. it has stopped listening. */
function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

async function stop(server: ServerProcess): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("server lifecycle", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = makeTempDir();
    dirs.push(dir);
    return dir;
  };
  // A data directory, and with TEST_BACKEND postgres a database of its own, for the tests that restart a server on it.
  const stores: TestStoreLocation[] = [];
  const freshStore = async () => {
    const store = await makeTestStoreLocation();
    stores.push(store);
    return store;
  };
  after(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    for (const store of stores) await store.remove();
  });

  it("prints the URL and a working bootstrap key on first start of an empty data directory, and no key after", async () => {
    const store = await freshStore();
    const first = await spawnServer(store.dataDir, store.args);
    const keys = first.stdout().match(KEY) ?? [];
    assert.equal(keys.length, 1, first.stdout());
    assert.match(first.stdout(), /keys create --org default/);
    assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const validated = await new ApiClient(first.url, keys[0]).get("/api/runs/auth/validate");
    assert.equal(validated.status, 200);
    assert.equal(validated.body.organization.slug, "default");
    assert.equal(await stop(first), 0);

    const second = await spawnServer(store.dataDir, store.args);
    assert.doesNotMatch(second.stdout(), KEY);
    assert.equal(
      (await new ApiClient(second.url, keys[0]).get("/api/runs/auth/validate")).status,
      200,
      "the first key survives the restart",
    );
    assert.equal(await stop(second), 0);
  });

  it("finishes a request in flight on SIGTERM, exits 0, and leaves the database intact", async () => {
    const store = await freshStore();
    const server = await spawnServer(store.dataDir, ["--log-level", "info", ...store.args]);
    const key = server.stdout().match(KEY)![0];
    const client = new ApiClient(server.url, key);
    const run = await client.createRun({ runName: "graceful", projectName: "shutdown" });
    const body = toNdjson(Array.from({ length: 500 }, (_, step) => ({ step, data: { loss: step / 2 } })));
    const half = body.length >> 1;

    // Expect: 100-continue: the "continue" proves the server has the request before the signal is sent.
    const url = new URL("/ingest/metrics", server.url);
    const pending = request(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/x-ndjson",
        "content-length": Buffer.byteLength(body),
        "x-run-id": String(run.runId),
        "x-project-name": run.projectName,
        expect: "100-continue",
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      pending.once("response", (response: IncomingMessage) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString()));
        response.once("end", () => resolve({ status: response.statusCode!, text }));
      });
      pending.once("error", reject);
    });
    await new Promise<void>((resolve) => pending.once("continue", resolve));
    pending.write(body.slice(0, half));

    server.child.kill("SIGTERM");
    await waitFor("the shutdown log line", () => server.stdout().includes("shutting down"));
    await waitFor("the server to stop listening", () => refusesConnections(server.url));
    pending.end(body.slice(half));

    const response = await answered;
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(JSON.parse(response.text), { accepted: 500 });
    assert.equal(await server.exited, 0, server.stdout());

    const restarted = await spawnServer(store.dataDir, store.args);
    try {
      const again = new ApiClient(restarted.url, key);
      const details = await again.get(`/api/runs/details/${run.runId}`);
      assert.equal(details.status, 200);
      assert.equal(details.body.name, "graceful");
      const raw = await again.get("/api/runs/metrics/raw", { runId: run.runId, projectName: run.projectName, logName: "loss" });
      assert.equal(raw.status, 200, JSON.stringify(raw.body));
      assert.equal(raw.body.rows.length, 500);
      assert.deepEqual(raw.body.rows.at(-1).value, 499 / 2);
    } finally {
      assert.equal(await stop(restarted), 0);
    }
  });

  it("keeps idle connections open for at least 65 s, above the 60 s of common client pools", async () => {
    const test = await startTestServer();
    try {
      assert.ok(test.server.app.server.keepAliveTimeout >= 65_000, String(test.server.app.server.keepAliveTimeout));
      const response = await fetch(`${test.url}/api/health`);
      await response.text();
      const advertised = /timeout=(\d+)/.exec(response.headers.get("keep-alive") ?? "");
      assert.ok(advertised && Number(advertised[1]) >= 65, `keep-alive header: ${response.headers.get("keep-alive")}`);
    } finally {
      await test.close();
    }
  });

  it("honours STEPWISE_PORT and STEPWISE_DATA_DIR when no flags are given", async () => {
    const dataDir = join(tempDir(), "from-env");
    const port = await freePort();
    const server = await spawnServe(["--log-level", "warn"], { STEPWISE_PORT: String(port), STEPWISE_DATA_DIR: dataDir });
    try {
      assert.equal(server.url, `http://127.0.0.1:${port}`);
      assert.ok(existsSync(join(dataDir, DATABASE_FILE)), "the database is in STEPWISE_DATA_DIR");
      const key = server.stdout().match(KEY)![0];
      assert.equal((await new ApiClient(server.url, key).get("/api/runs/auth/validate")).status, 200);
    } finally {
      assert.equal(await stop(server), 0);
    }
  });

  it("exits non-zero with a clear message when the port is taken, without using up the bootstrap key", async () => {
    const store = await freshStore();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN, "serve", "--data-dir", store.dataDir, "--port", String(port), "--log-level", "warn", ...store.args],
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    await new Promise((resolve) => taken.close(resolve));
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`));
    assert.doesNotMatch(result.stdout + result.stderr, KEY);

    const server = await spawnServer(store.dataDir, store.args);
    try {
      assert.equal((server.stdout().match(KEY) ?? []).length, 1, "the first start that listens prints the bootstrap key");
    } finally {
      assert.equal(await stop(server), 0);
    }
  });
});
