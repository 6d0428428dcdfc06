import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiClient } from "../helpers/client.js";
import { makeTestStoreLocation, spawnServer, startTestServer, type TestServer, type TestStoreLocation } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

/** A raw TCP connection to the server, recording what it answers and when it closes. */
function openSocket(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("error", () => {}); // a reset is one of the ways the server may close it
    const closed = new Promise<number>((done) => socket.once("close", () => done(performance.now())));
    socket.once("connect", () => resolve({ socket, received: () => text, closed }));
    socket.once("error", reject);
  });
}

/** Writes one byte every `everyMs` until the socket closes or `bytes` run out. */
async function trickle(socket: Socket, bytes: string, everyMs: number): Promise<void> {
  for (const byte of bytes) {
    if (socket.destroyed) return;
    socket.write(byte);
    await sleep(everyMs); // the slowness is the point: a client too slow for its timeout
  }
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe("slow and idle clients", () => {
  const servers: TestServer[] = [];
  const start = async (flags: Record<string, string>) => {
    const test = await startTestServer({ flags });
    servers.push(test);
    return test;
  };
  after(async () => {
    for (const test of servers) await test.close();
  });

  it("closes a connection whose request head trickles in past the headers timeout", async () => {
    const test = await start({ "--headers-timeout": "1s" });
    const { socket, closed } = await openSocket(test.url);
    const opened = performance.now();
    void trickle(socket, "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 100);
    const at = await within(4000, "closing the slow head", closed);
    assert.ok(at - opened >= 900, `closed after ${at - opened} ms, not before the timeout`);
  });

  it("closes a connection whose body brings less than 1 KiB per body timeout, before any handler sees it", async () => {
    const test = await start({ "--body-timeout": "1s" });
    const run = await test.client.createRun({ projectName: "slow" });
    const { socket, closed, received } = await openSocket(test.url);
    const body = "x".repeat(2000);
    socket.write(
      `POST /ingest/metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${test.client.key}\r\nX-Run-Id: ${run.runId}\r\n` +
        `X-Project-Name: slow\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const opened = performance.now();
    void trickle(socket, body, 50); // 20 bytes a second: progress, but far below the floor
    const at = await within(4000, "closing the slow body", closed);
    assert.ok(at - opened >= 900, `closed after ${at - opened} ms`);
    assert.equal(received(), "", "no answer: the request never reached a handler");
  });

  it("lets a slow but steady upload run far past the body timeout", async () => {
    const test = await start({ "--body-timeout": "1s", "--headers-timeout": "1s" });
    const run = await test.client.createRun({ projectName: "steady" });
    const registered = await test.client.raw(
      "POST",
      "/files",
      JSON.stringify({ files: [{ fileName: "w.bin", fileSize: 1, fileType: "bin", time: 0, step: 0, logName: "model" }] }),
      { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": "steady" },
    );
    const uploadUrl = new URL(Object.values(registered.body.model[0] as Record<string, string>)[0]!);
    const chunk = Buffer.alloc(8 * 1024, 3);
    const chunks = 40; // 8 KiB every 100 ms: 4 s in all, four body timeouts
    const { socket, closed, received } = await openSocket(test.url);
    socket.write(
      `PUT ${uploadUrl.pathname}${uploadUrl.search} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
        `Content-Length: ${chunk.length * chunks}\r\n\r\n`,
    );
    const began = performance.now();
    for (let i = 0; i < chunks; i++) {
      assert.ok(!socket.destroyed, `cut after ${i} chunks`);
      socket.write(chunk);
      await sleep(100); // the slowness is the point: steady progress over several body timeouts
    }
    await within(5000, "the answer", closed);
    assert.ok(performance.now() - began > 3000);
    assert.match(received(), /^HTTP\/1\.1 200 /, received());
    const files = await test.client.get("/api/runs/files", { runId: run.runId, projectName: "steady" });
    assert.equal(files.body.files[0].fileSize, chunk.length * chunks);
  });

  it("closes a connection that stops reading its response", async () => {
    const test = await start({ "--body-timeout": "1s" });
    const run = await test.client.createRun({ projectName: "reader" });
    const size = 32 * 1024 * 1024; // more than loopback socket buffers absorb
    const registered = await test.client.raw(
      "POST",
      "/files",
      JSON.stringify({ files: [{ fileName: "big.bin", fileSize: size, fileType: "bin", time: 0, step: 0, logName: "model" }] }),
      { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": "reader" },
    );
    const uploadUrl = Object.values(registered.body.model[0] as Record<string, string>)[0]!;
    assert.equal((await fetch(uploadUrl, { method: "PUT", body: Buffer.alloc(size, 5) })).status, 200);
    const files = await test.client.get("/api/runs/files", { runId: run.runId, projectName: "reader" });
    const downloadUrl = new URL(files.body.files[0].url);

    const { socket, closed, received } = await openSocket(test.url);
    socket.write(`GET ${downloadUrl.pathname}${downloadUrl.search} HTTP/1.1\r\nHost: x\r\n\r\n`);
    socket.pause(); // reads nothing: the server's writes back up
    await sleep(3000); // three body timeouts: the time spent not reading is the point
    socket.resume(); // reads what the kernel holds, then sees the server's close
    await within(5000, "the end of the cut connection", closed);
    assert.ok(received().length < size, `received ${received().length} of ${size} bytes`);
  });

  it("keeps answering /api/health while more half-open connections than the cap are open", async () => {
    const test = await start({ "--max-connections": "50", "--headers-timeout": "60s" });
    const sockets: Socket[] = [];
    for (let i = 0; i < 200; i++) {
      const { socket } = await openSocket(test.url);
      socket.write("GET /api/health HTTP/1.1\r\nHost: x\r\n"); // and never the blank line that ends the head
      sockets.push(socket);
    }
    try {
      const began = performance.now();
      const response = await within(1000, "/api/health", fetch(`${test.url}/api/health`));
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "OK");
      console.log(`/api/health answered in ${Math.round(performance.now() - began)} ms beside 200 half-open connections`);
      await waitFor(() => sockets.filter((socket) => socket.destroyed).length >= 150, {
        timeoutMs: 5000,
        what: "the oldest half-open connections to be closed",
      });
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("at the cap with every connection busy, closes the slowest upload the server waits on to let a new client in", async () => {
    const test = await start({ "--max-connections": "20", "--body-timeout": "60s" });
    const run = await test.client.createRun({ projectName: "slow" });
    const uploads: Awaited<ReturnType<typeof openSocket>>[] = [];
    for (let i = 0; i < 20; i++) {
      const upload = await openSocket(test.url);
      // Compliant but slow: a head, a few body bytes, then nothing within the 60 s body timeout.
      upload.socket.write(
        `POST /ingest/metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${test.client.key}\r\nX-Run-Id: ${run.runId}\r\n` +
          `X-Project-Name: slow\r\nContent-Length: 100000\r\n\r\n{"time":1`,
      );
      uploads.push(upload);
    }
    try {
      await sleep(1200); // past the grace a request gets before its rate counts: the time passing is the point
      for (let i = 0; i < 3; i++) {
        const response = await within(1000, "/api/health", fetch(`${test.url}/api/health`, { headers: { connection: "close" } }));
        assert.equal(response.status, 200);
        await response.text();
      }
      await waitFor(() => uploads.some((upload) => upload.socket.destroyed), { timeoutMs: 5000, what: "a slow upload to be closed" });
      const closed = uploads.filter((upload) => upload.socket.destroyed).length;
      assert.ok(closed >= 1 && closed <= 3, `one slow upload closed per newcomer, got ${closed}`);
    } finally {
      for (const upload of uploads) upload.socket.destroy();
    }
  });

  it("does not close a connection with a request in flight to make room", async () => {
    const test = await start({ "--max-connections": "2", "--headers-timeout": "60s", "--body-timeout": "60s" });
    const run = await test.client.createRun({ projectName: "busy" });
    const body = '{"time":1700000000000,"step":0,"data":{"loss":1}}';
    const busy = await openSocket(test.url);
    const reached = once(test.server.app.server, "request"); // its head is read: the request is in flight
    busy.socket.write(
      `POST /ingest/metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${test.client.key}\r\nX-Run-Id: ${run.runId}\r\n` +
        `X-Project-Name: busy\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await reached;
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${test.url}/api/health`, { headers: { connection: "close" } });
      assert.equal(response.status, 200);
      await response.text();
    }
    assert.ok(!busy.socket.destroyed, "the request in flight keeps its connection");
    busy.socket.write(body.slice(5));
    await within(2000, "the answer", busy.closed);
    assert.match(busy.received(), /^HTTP\/1\.1 200 /, busy.received());
  });
});

describe("shutdown", () => {
  let store: TestStoreLocation;
  before(async () => {
    store = await makeTestStoreLocation();
  });
  after(async () => store.remove());

  it("cuts a request still in flight at the shutdown timeout and exits 0", async () => {
    // At log level info the server logs each request as its head arrives ("incoming request").
    const server = await spawnServer(store.dataDir, [
      "--shutdown-timeout",
      "1s",
      "--body-timeout",
      "60s",
      "--log-level",
      "info",
      ...store.args,
    ]);
    const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
    const run = await new ApiClient(server.url, key).createRun({ projectName: "stuck" });
    const { socket, closed } = await openSocket(server.url);
    socket.write(
      `POST /ingest/metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Run-Id: ${run.runId}\r\n` +
        `X-Project-Name: stuck\r\nContent-Length: 1000\r\n\r\n{"step":`,
    );
    // The request has reached the server, and its body will never end.
    const logged = (line: string) => line.includes('"incoming request"') && line.includes("/ingest/metrics");
    await waitFor(() => server.stdout().split("\n").some(logged), { what: "the server to log the request" });
    const signalled = performance.now();
    server.child.kill("SIGTERM");
    const code = await within(5000, "exiting", server.exited);
    assert.equal(code, 0, server.stdout());
    const took = performance.now() - signalled;
    assert.ok(took >= 900 && took < 4000, `exited ${Math.round(took)} ms after SIGTERM`);
    await within(1000, "the cut connection", closed);
    assert.match(server.stdout(), /shutdown timeout reached/);
  });
});
