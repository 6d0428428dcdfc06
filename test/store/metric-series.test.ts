import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { arraySeries, samplePoints, type Point } from "../../src/domain/sampling.js";
import type { Store } from "../../src/store/store.js";
import { seededRandom } from "../helpers/ingest.js";
import { BACKENDS } from "./contract/backends.js";

/**
 * The chunk-backed sampler must choose exactly the points the in-memory sampler chooses from the
 * same series, on every backend: chunk aggregates, index look-ups and (on PostgreSQL) fetching
 * chunk points in batches are an optimization, not new semantics.
 */
for (const backend of BACKENDS)
  describe(`stored series sampling: ${backend.name}`, () => {
    let store: Store;
    let destroy: () => Promise<void>;
    const actor = { userId: null, apiKeyId: null };
    let orgId = "";
    after(() => destroy());
    before(async () => {
      ({ store, destroy } = await backend.open());
      orgId = (await store.createOrganization("o", 1)).id;
    });

    async function runWith(points: { step: number; value: number }[], batch: number, fork?: { runId: number; step: number }) {
      const { run } = await store.createRun(
        orgId,
        { projectName: "p", name: "r", tags: [], now: 1, fork: fork && { ...fork, inheritConfig: true, inheritTags: false } },
        actor,
      );
      for (let i = 0; i < points.length; i += batch) {
        const part = points.slice(i, i + batch);
        await store.appendMetricPoints(
          orgId,
          run.id,
          [{ logName: "m", steps: part.map((p) => p.step), values: part.map((p) => p.value), times: part.map((p) => p.step) }],
          5,
        );
      }
      return run.id;
    }

    it("matches the in-memory sampler over random series, batch sizes and windows", async () => {
      const random = seededRandom(7);
      for (let round = 0; round < 12; round++) {
        let step = 0;
        const points = Array.from({ length: 200 + Math.floor(random() * 3000) }, () => {
          step += 1 + Math.floor(random() * (random() < 0.05 ? 500 : 3));
          const r = random();
          return { step, value: r < 0.03 ? NaN : r < 0.05 ? -Infinity : Math.round(random() * 100) };
        });
        const runId = await runWith(points, 1 + Math.floor(random() * 700));
        const last = points.at(-1)!.step;
        for (const [from, to] of [
          [0, Number.MAX_SAFE_INTEGER],
          [Math.floor(last / 3), Math.floor(last / 2)],
          [5, 5 + Math.floor(random() * 200)],
        ] as const) {
          const expected = points.filter((p) => p.step >= from && p.step <= to).map((p): Point => ({ ...p, time: p.step, writtenAt: 5 }));
          for (const limit of [1, 4, 7, 50, 400]) {
            const got = await store.sampleMetricPoints(orgId, runId, "m", from, to, limit);
            assert.deepEqual(got, samplePoints(arraySeries(expected), limit), `round ${round} window ${from}..${to} limit ${limit}`);
          }
          assert.deepEqual(await store.readMetricPoints(orgId, runId, "m", from, to), expected);
        }
      }
    });

    it("samples a fork of a fork over its inherited segments", async () => {
      const grand = await runWith(
        Array.from({ length: 1000 }, (_, i) => ({ step: i, value: i % 97 })),
        300,
      );
      const parent = await runWith(
        Array.from({ length: 500 }, (_, i) => ({ step: 601 + i, value: -i })),
        64,
        { runId: grand, step: 600 },
      );
      const child = await runWith(
        Array.from({ length: 300 }, (_, i) => ({ step: 901 + i, value: i * 2 })),
        1000,
        { runId: parent, step: 900 },
      );
      const expected: Point[] = [
        ...Array.from({ length: 601 }, (_, i) => ({ step: i, value: i % 97 })),
        ...Array.from({ length: 300 }, (_, i) => ({ step: 601 + i, value: -i })),
        ...Array.from({ length: 300 }, (_, i) => ({ step: 901 + i, value: i * 2 })),
      ].map((p) => ({ ...p, time: p.step, writtenAt: 5 }));
      assert.deepEqual(await store.readMetricPoints(orgId, child, "m", 0, Number.MAX_SAFE_INTEGER), expected);
      for (const limit of [5, 100, 1000]) {
        assert.deepEqual(
          await store.sampleMetricPoints(orgId, child, "m", 0, Number.MAX_SAFE_INTEGER, limit),
          samplePoints(arraySeries(expected), limit),
        );
        assert.deepEqual(
          await store.sampleMetricPoints(orgId, child, "m", 550, 950, limit),
          samplePoints(arraySeries(expected.filter((p) => p.step >= 550 && p.step <= 950)), limit),
        );
      }
      const [summary] = await store.listMetricSummaries(orgId, child);
      const values = expected.map((p) => p.value);
      assert.equal(summary!.count, values.length);
      assert.equal(summary!.min, Math.min(...values));
      assert.equal(summary!.max, Math.max(...values));
      const mean = values.reduce((a, b) => a + b, 0) / values.length;
      assert.ok(Math.abs(summary!.mean - mean) < 1e-12 * Math.abs(mean), `mean ${summary!.mean} vs ${mean}`);
      assert.equal(summary!.lastValue, 598);
      assert.equal(summary!.firstStep, 0);
    });
  });
