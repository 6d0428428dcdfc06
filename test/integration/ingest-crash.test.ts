import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "../helpers/client.js";
import { expectedSummary, ingest, toNdjson } from "../helpers/ingest.js";
import { makeTestStoreLocation, spawnServer, type TestStoreLocation } from "../helpers/start-server.js";

const CLIENTS = 4;
const METRICS = 50;
const STEPS_PER_BATCH = 20;
const KILL_AFTER_ACKS = 40;

const pointValue = (client: number, metric: number, step: number) => client * 1000 + metric + step / 1000;

function batchBody(client: number, batch: number): string {
  const lines = [];
  for (let k = 0; k < STEPS_PER_BATCH; k++) {
    const step = batch * STEPS_PER_BATCH + k;
    const data: Record<string, number> = {};
    for (let m = 0; m < METRICS; m++) data[`c${client}/m${m}`] = pointValue(client, m, step);
    lines.push({ step, data });
  }
  return toNdjson(lines);
}

describe("ingest durability", () => {
  let location: TestStoreLocation;
  before(async () => {
    location = await makeTestStoreLocation();
  });
  after(async () => location.remove());

  it("loses no acknowledged point and applies no batch by half when the server is killed mid-stream", async () => {
    const server = await spawnServer(location.dataDir, location.args);
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
            const response = await ingest(client, "metrics", run, batchBody(c, batch));
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
    const restarted = await spawnServer(location.dataDir, location.args);
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
  });
});
