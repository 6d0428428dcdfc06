import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { comparePoints, orderDistinct, samePoint } from "../../src/domain/metric-points.js";
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

    /** The stored points under MLflow's rule: distinct by (step, time, value), in the point order. */
    function distinctSorted(points: Point[]): Point[] {
      const sorted = [...points].sort((a, b) => comparePoints(a.step, a.time, a.value, b.step, b.time, b.value));
      return sorted.filter(
        (p, i) => i === 0 || !samePoint(sorted[i - 1]!.step, sorted[i - 1]!.time, sorted[i - 1]!.value, p.step, p.time, p.value),
      );
    }

    async function writeKeepingEveryPoint(runId: number, points: Point[]) {
      const ordered = orderDistinct({
        logName: "m",
        steps: points.map((p) => p.step),
        values: points.map((p) => p.value),
        times: points.map((p) => p.time),
      });
      await store.appendMetricPoints(orgId, runId, [{ ...ordered, rule: "keep-every-point" }], 5);
    }

    it("keeps every distinct point of steps holding many (MLflow's rule), whatever the batches, in the point order", async () => {
      const random = seededRandom(11);
      for (let round = 0; round < 8; round++) {
        const { run } = await store.createRun(orgId, { projectName: "p", name: `many-${round}`, tags: [], now: 1 }, actor);
        // Few steps, many points each (up to ~3 chunks at one step), some NaN; times mostly rising.
        const all: Point[] = Array.from({ length: 300 + Math.floor(random() * 1800) }, (_, i) => {
          const r = random();
          return {
            step: Math.floor(random() * (round % 2 === 0 ? 3 : 40)),
            time: random() < 0.8 ? 1000 + i : 1000 + Math.floor(random() * i),
            value: r < 0.03 ? NaN : Math.round(random() * 50),
            writtenAt: 5,
          };
        });
        for (let i = 0; i < all.length; ) {
          const size = 1 + Math.floor(random() * 300);
          // Some batches are sent twice (a retry): identical points are kept once.
          const batch = all.slice(i, i + size);
          await writeKeepingEveryPoint(run.id, batch);
          if (random() < 0.2) await writeKeepingEveryPoint(run.id, batch);
          i += size;
        }
        const expected = distinctSorted(all);
        const label = `round ${round}`;
        assert.deepEqual(await store.readMetricPoints(orgId, run.id, "m", 0, Number.MAX_SAFE_INTEGER), expected, label);
        const skip = Math.floor(random() * expected.length);
        assert.deepEqual(
          await store.readMetricPoints(orgId, run.id, "m", 0, Number.MAX_SAFE_INTEGER, 100, skip),
          expected.slice(skip, skip + 100),
        );
        const oneStep = expected.filter((p) => p.step === 1);
        assert.deepEqual(await store.readMetricPoints(orgId, run.id, "m", 1, 1), oneStep, `${label}: one step`);
        for (const limit of [7, 100, 1000]) {
          assert.deepEqual(
            await store.sampleMetricPoints(orgId, run.id, "m", 0, Number.MAX_SAFE_INTEGER, limit),
            samplePoints(arraySeries(expected), limit),
            `${label}: sample of ${limit}`,
          );
          assert.deepEqual(
            await store.sampleMetricPoints(orgId, run.id, "m", 1, 1, limit),
            samplePoints(arraySeries(oneStep), limit),
            `${label}: sample of one step`,
          );
        }
        const [summary] = await store.listMetricSummaries(orgId, run.id);
        const finite = expected.filter((p) => Number.isFinite(p.value));
        assert.equal(summary!.count, finite.length, label);
        assert.equal(summary!.nonFiniteCount, expected.length - finite.length, label);
        assert.equal(summary!.lastStep, expected.at(-1)!.step, label);
        assert.equal(summary!.lastValue, finite.at(-1)!.value, `${label}: the last finite value in the point order`);
        assert.equal(summary!.lastTime, expected.at(-1)!.time, `${label}: the last point's time`);
        const window = await store.listRunMetricSummaries(orgId, (await store.getRun(orgId, run.id))!.projectId, "m", [run.id]);
        assert.equal(window[0]!.summary.lastValue, finite.at(-1)!.value);
      }
    });

    it("keeps the point order when a merge rewrites a chunk whose last step continues in the next chunk", async () => {
      const { run } = await store.createRun(orgId, { projectName: "p", name: "boundary", tags: [], now: 1 }, actor);
      // Chunks (4..5) and (5..5): step 5's 1,023 points span both.
      const first: Point[] = [
        { step: 4, time: 0, value: 0, writtenAt: 5 },
        ...Array.from({ length: 1023 }, (_, i) => ({ step: 5, time: 1 + i, value: i, writtenAt: 5 })),
      ];
      await writeKeepingEveryPoint(run.id, first);
      // A point at step 4 rewrites the first chunk; its step-5 points must stay before the second chunk's.
      const late = { step: 4, time: 5, value: 1, writtenAt: 5 };
      await writeKeepingEveryPoint(run.id, [late]);
      assert.deepEqual(await store.readMetricPoints(orgId, run.id, "m", 0, Number.MAX_SAFE_INTEGER), distinctSorted([...first, late]));
    });

    it("replaces every point of a step sent again under Stepwise's rule", async () => {
      const { run } = await store.createRun(orgId, { projectName: "p", name: "replace", tags: [], now: 1 }, actor);
      const many: Point[] = Array.from({ length: 1500 }, (_, i) => ({ step: i < 1200 ? 3 : 4, time: i, value: i, writtenAt: 5 }));
      await writeKeepingEveryPoint(run.id, many);
      await store.appendMetricPoints(orgId, run.id, [{ logName: "m", steps: [3], values: [-1], times: [7] }], 5);
      const points = await store.readMetricPoints(orgId, run.id, "m", 0, Number.MAX_SAFE_INTEGER);
      assert.deepEqual(points, [{ step: 3, time: 7, value: -1, writtenAt: 5 }, ...many.slice(1200)]);
      const [summary] = await store.listMetricSummaries(orgId, run.id);
      assert.equal(summary!.count, 301);
      assert.equal(summary!.min, -1);
    });
  });
