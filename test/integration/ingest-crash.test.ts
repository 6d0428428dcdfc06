import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { WRITER_THREAD_MIN_POINTS } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { expectedSummary, ingest, toNdjson } from "../helpers/ingest.js";
import { makeTestStoreLocation, spawnServer, type ServerProcess, type TestStoreLocation } from "../helpers/start-server.js";

const CLIENTS = 4;
const METRICS = 50;
const KILL_AFTER_ACKS = 40;

const pointValue = (client: number, metric: number, step: number) => client * 1000 + metric + step / 1000;

function batchBody(client: number, batch: number, stepsPerBatch: number): string {
  const lines = [];
  for (let k = 0; k < stepsPerBatch; k++) {
    const step = batch * stepsPerBatch + k;
    const data: Record<string, number> = {};
    for (let m = 0; m < METRICS; m++) data[`c${client}/m${m}`] = pointValue(client, m, step);
    lines.push({ step, data });
  }
  return toNdjson(lines);
}

describe("ingest durability", () => {
  let location: TestStoreLocation;
  beforeEach(async () => {
    location = await makeTestStoreLocation();
  });
  // A case that fails midway must not leave its server running (the test process would wait for it).
  const spawned: ServerProcess[] = [];
  afterEach(async () => {
    for (const server of spawned.splice(0)) server.child.kill("SIGKILL");
    await location.remove();
  });
  const serve = async (): Promise<ServerProcess> => {
    const server = await spawnServer(location.dataDir, location.args);
    spawned.push(server);
    return server;
  };

  // Batches of 1,000 points, which SQLite commits on its main thread; batches of 5,000 points, every
  // group of which its metric writer thread commits (WRITER_THREAD_MIN_POINTS): killed while it writes.
  for (const stepsPerBatch of [20, 100])
    it(`loses no acknowledged point and applies no batch by half when the server is killed mid-stream (${METRICS * stepsPerBatch}-point batches)`, async () => {
      await killMidStream(stepsPerBatch);
    });

  async function killMidStream(STEPS_PER_BATCH: number) {
    if (STEPS_PER_BATCH === 100) assert.ok(METRICS * STEPS_PER_BATCH >= WRITER_THREAD_MIN_POINTS, "batches reach the writer thread");
    const server = await serve();
    const key = /sw_[A-Za-z0-9_-]+/.exec(server.stdout())![0];
    const client = new ApiClient(server.url, key);
    const run = await client.createRun({ projectName: "crash" });

    const acknowledged: [number, number][] = [];
    const attempted: [number, number][] = [];
    let killed = false;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let batch = 0; !killed; batch++) {
          attempted.push([c, batch]);
          try {
            const response = await ingest(client, "metrics", run, batchBody(c, batch, STEPS_PER_BATCH));
            if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
            acknowledged.push([c, batch]);
            if (acknowledged.length === KILL_AFTER_ACKS && !killed) {
              killed = true;
              server.child.kill("SIGKILL");
            }
          } catch (error) {
            if (!killed) throw error;
            return; // the connection died with the server: this batch was never acknowledged
          }
        }
      }),
    );
    await server.exited;
    assert.ok(acknowledged.length >= KILL_AFTER_ACKS);

    // Restarting proves the database opens cleanly after the crash; then read what it holds.
    const restarted = await serve();
    assert.equal((await fetch(`${restarted.url}/api/health/ready`)).status, 200);
    restarted.child.kill("SIGTERM");
    await restarted.exited;

    const store = await location.openStore();
    try {
      const orgId = (await store.getOrganizationBySlug("default"))!.id;
      const acked = new Set(acknowledged.map(([c, b]) => `${c}:${b}`));
      for (const [c, batch] of attempted) {
        const first = batch * STEPS_PER_BATCH;
        const counts = [];
        for (let m = 0; m < METRICS; m++) {
          const points = await store.readMetricPoints(orgId, run.runId, `c${c}/m${m}`, first, first + STEPS_PER_BATCH - 1);
          counts.push(points.length);
          for (const point of points) assert.equal(point.value, pointValue(c, m, point.step));
        }
        const stored = counts.every((n) => n === STEPS_PER_BATCH);
        assert.ok(stored || counts.every((n) => n === 0), `batch ${c}:${batch} was applied by half: ${counts}`);
        if (acked.has(`${c}:${batch}`)) assert.ok(stored, `acknowledged batch ${c}:${batch} is missing`);
      }

      // Summaries must agree with the points that are on disk.
      for (const summary of await store.listMetricSummaries(orgId, run.runId)) {
        const points = await store.readMetricPoints(orgId, run.runId, summary.logName, 0, Number.MAX_SAFE_INTEGER);
        const model = new Map<number, number>();
        for (const point of points) model.set(point.step, point.value);
        const expected = expectedSummary(model);
        assert.equal(summary.count, expected.count, summary.logName);
        assert.equal(summary.lastStep, expected.lastStep, summary.logName);
        assert.equal(summary.lastValue, expected.lastValue, summary.logName);
        assert.ok(Math.abs(summary.mean - expected.mean) <= 1e-9 * Math.max(1, Math.abs(expected.mean)), summary.logName);
      }
    } finally {
      await store.close();
    }
  }
});
