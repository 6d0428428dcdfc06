import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeTestStoreLocation, spawnServer, type TestStoreLocation } from "../helpers/start-server.js";

/** Long enough for leaks and stalls to show, short enough for CI (the whole test stays under a minute). */
const SOAK_MS = 20_000;
/** The server idles near 100 MB; the leaks this guards against grew it by gigabytes. */
const RSS_BOUND_MB = 300;
const HEALTH_BOUND_MS = 1000;

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

/** A client that opens a connection, sends part of a request one byte at a time, and opens another when cut. */
async function slowClient(url: string, request: string, until: () => boolean): Promise<number> {
  const { hostname, port } = new URL(url);
  let cut = 0;
  while (until()) {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.on("error", () => {});
      socket.once("close", () => {
        cut++;
        resolve();
      });
      socket.once("connect", async () => {
        for (const byte of request) {
          if (socket.destroyed || !until()) break;
          socket.write(byte);
          await sleep(250); // the slowness is the point: a client that holds connections open
        }
        socket.destroy();
      });
    });
  }
  return cut;
}

describe("soak", () => {
  let store: TestStoreLocation;
  before(async () => {
    store = await makeTestStoreLocation();
  });
  after(async () => store.remove());

  it("holds memory and health latency under their bounds through ingest, reads and slow clients", { timeout: 60_000 }, async () => {
    const server = await spawnServer(store.dataDir, [
      "--headers-timeout",
      "2s",
      "--body-timeout",
      "2s",
      "--max-connections",
      "200",
      ...store.args,
    ]);
    try {
      const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
      const client = new ApiClient(server.url, key);
      const runs = await Promise.all([0, 1, 2].map((i) => client.createRun({ projectName: "soak", runName: `r${i}`, tags: [`t${i}`] })));
      const deadline = Date.now() + SOAK_MS;
      const running = () => Date.now() < deadline;
      const statuses = new Map<number, number>();
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

      const writer = async (w: number) => {
        const run = runs[w % runs.length]!;
        for (let batch = 0; running(); batch++) {
          const step = (w * 1_000_000 + batch) * 10;
          const lines = Array.from({ length: 10 }, (_, k) => ({
            step: step + k,
            data: Object.fromEntries(Array.from({ length: 50 }, (_, m) => [`w${w}/m${m}`, Math.sin(step + k + m)])),
          }));
          count((await ingest(client, "metrics", run, toNdjson(lines))).status);
          const log = Array.from({ length: 20 }, (_, k) =>
            JSON.stringify({ time: Date.now(), lineNumber: batch * 20 + k, logType: "INFO", message: `line ${k}` }),
          );
          count((await ingest(client, "logs", run, log.join("\n"))).status);
        }
      };
      const reader = async (r: number) => {
        for (let i = 0; running(); i++) {
          const run = runs[i % runs.length]!;
          const tags = Array.from({ length: (i % 400) + 1 }, (_, k) => `t${k}`).join(",");
          count((await client.get("/api/runs/list", { projectName: "soak", tags, search: "r".repeat((i % 3) + 1) })).status);
          count((await client.get("/api/runs/metrics", { runId: run.runId, projectName: "soak", logName: `w${r}/m${i % 50}` })).status);
          count((await client.get(`/api/runs/details/${run.runId}`)).status);
        }
      };

      const rss: number[] = [];
      const healthMs: number[] = [];
      const monitor = async () => {
        while (running()) {
          rss.push(rssMb(server.child.pid!));
          const began = performance.now();
          const response = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(5000) });
          assert.equal(response.status, 200);
          await response.text();
          healthMs.push(performance.now() - began);
          await sleep(200); // the sampling interval of the monitor, not a wait for anything
        }
      };

      const head = `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(100)}`;
      const body = `POST /ingest/metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Run-Id: ${runs[0]!.runId}\r\nX-Project-Name: soak\r\nContent-Length: 5000\r\n\r\n${"x".repeat(100)}`;
      const results = await Promise.all([
        monitor(),
        ...[0, 1, 2, 3].map(writer),
        ...[0, 1].map(reader),
        ...Array.from({ length: 30 }, (_, i) => slowClient(server.url, i % 2 ? head : body, running)),
      ]);
      const cut = (results.slice(7) as number[]).reduce((a, b) => a + b, 0);

      const worst = Math.max(...healthMs);
      console.log(
        `soak: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(", ")}; ${cut} slow connections cut; ` +
          `RSS ${Math.round(Math.min(...rss))}–${Math.round(Math.max(...rss))} MB; health worst ${Math.round(worst)} ms over ${healthMs.length} probes`,
      );
      assert.deepEqual([...statuses.keys()], [200], "every request of the well-behaved clients succeeded");
      assert.ok(cut >= 30, `slow clients were cut (${cut})`);
      assert.ok(Math.max(...rss) < RSS_BOUND_MB, `RSS peaked at ${Math.round(Math.max(...rss))} MB`);
      assert.ok(worst < HEALTH_BOUND_MS, `/api/health took ${Math.round(worst)} ms`);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });
});
