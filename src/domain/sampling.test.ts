import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../test/helpers/ingest.js";
import { arraySeries, bucketEdgesOf, lowerBound, samplePoints, sampleSeries, type Point } from "./sampling.js";

/** A stored point as a sample shows it. */
const shown = ({ step, value, time }: Point) => ({ step, value, time });

const series = (values: number[], stepOf = (i: number) => i): Point[] =>
  values.map((value, i) => ({ step: stepOf(i), value, time: 1000 + i, writtenAt: 0 }));

/** What a bucket must keep, computed directly from its points: first, last, min, max (lowest step on ties), first of each non-finite kind. */
function requiredSteps(points: Point[]): number[] {
  if (points.length === 0) return [];
  const finite = points.filter((p) => Number.isFinite(p.value));
  const steps = [points[0]!.step, points.at(-1)!.step];
  if (finite.length) {
    const min = Math.min(...finite.map((p) => p.value));
    const max = Math.max(...finite.map((p) => p.value));
    steps.push(finite.find((p) => p.value === min)!.step, finite.find((p) => p.value === max)!.step);
  }
  for (const kind of [(v: number) => Number.isNaN(v), (v: number) => v === Infinity, (v: number) => v === -Infinity]) {
    const found = points.find((p) => kind(p.value));
    if (found) steps.push(found.step);
  }
  return steps;
}

describe("sampleSeries", () => {
  it("returns every point when there are no more than the limit", () => {
    const points = series([3, 1, 2]);
    assert.deepEqual(samplePoints(arraySeries(points), 3), points.map(shown));
  });

  it("keeps a local spike and an infinity that a larger value elsewhere would hide", () => {
    const values = Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 500));
    values[10] = 1e9; // the global maximum
    values[50_123] = 5; // a local spike, far below it
    values[70_001] = Infinity;
    values[80_002] = NaN;
    values[90_003] = -Infinity;
    const sample = samplePoints(arraySeries(series(values), 512), 1000);
    assert.ok(sample.length <= 1000);
    const steps = new Set(sample.map((p) => p.step));
    for (const step of [0, 10, 50_123, 70_001, 80_002, 90_003, 99_999]) assert.ok(steps.has(step), `step ${step} is kept`);
    assert.equal(sample.find((p) => p.step === 70_001)!.value, Infinity);
  });

  it("keeps every bucket's extremes and non-finite kinds, never exceeds the limit, whatever the block layout", () => {
    const random = seededRandom(3);
    for (let round = 0; round < 40; round++) {
      let step = 0;
      let walk = 0;
      const points = Array.from({ length: 300 + Math.floor(random() * 4000) }, (_, i): Point => {
        step += 1 + Math.floor(random() * (random() < 0.05 ? 300 : 3));
        walk += random() - 0.5;
        const r = random();
        const value =
          r < 0.01 ? NaN : r < 0.02 ? Infinity : r < 0.03 ? -Infinity : r < 0.05 ? walk + (random() < 0.5 ? -1 : 1) * 1e6 * random() : walk;
        return { step, value, time: i, writtenAt: 0 };
      });
      const last = points.at(-1)!.step;
      const low = random() < 0.5 ? -Infinity : Math.floor(random() * last * 0.5);
      const high = random() < 0.5 ? Infinity : low + Math.floor(random() * last);
      const inWindow = points.filter((p) => p.step >= low && p.step <= high);
      for (const limit of [1, 3, 7, 20, 100, 1000]) {
        const label = `round ${round}, window ${low}..${high}, limit ${limit}`;
        const { points: sample, bucketEdges } = sampleSeries(arraySeries(points, 1 + Math.floor(random() * 600), low, high), limit);
        assert.deepEqual(sample, sampleSeries(arraySeries(points, 1 + Math.floor(random() * 600), low, high), limit).points, label);
        assert.ok(sample.length <= limit, `${label}: ${sample.length} points`);
        const byStep = new Map(inWindow.map((p) => [p.step, p]));
        for (const [i, p] of sample.entries()) {
          assert.deepEqual(p, shown(byStep.get(p.step)!), `${label}: a stored point`);
          if (i > 0) assert.ok(p.step > sample[i - 1]!.step, `${label}: ascending, one per step`);
        }
        if (bucketEdges.length === 0) {
          assert.deepEqual(sample, inWindow.map(shown), label);
          continue;
        }
        if (limit < 7) continue; // a single bucket then gives up points by rank
        const kept = new Set(sample.map((p) => p.step));
        for (let k = 0; k + 1 < bucketEdges.length; k++) {
          const bucket = inWindow.filter((p) => p.step >= bucketEdges[k]! && p.step < bucketEdges[k + 1]!);
          for (const required of requiredSteps(bucket)) assert.ok(kept.has(required), `${label}: bucket ${k} keeps step ${required}`);
        }
      }
    }
  });

  it("uses fewer, wider buckets when non-finite points would push it past the limit", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? NaN : i % 3 === 1 ? Infinity : -Infinity));
    for (let i = 0; i < values.length; i += 7) values[i] = Math.sin(i);
    const { points, bucketEdges } = sampleSeries(arraySeries(series(values)), 700);
    assert.ok(points.length <= 700, `${points.length}`);
    assert.ok(bucketEdges.length - 1 < 175 && bucketEdges.length - 1 >= 100, `${bucketEdges.length - 1} buckets`);
  });

  it("divides steps, not points, into buckets", () => {
    assert.deepEqual(bucketEdgesOf(0, 9, 3), [0, 3, 6, 10]);
    // 1,000 points crowded in steps 0..999, then 10 points spread over 1,000..100,000.
    const steps = [...Array.from({ length: 1000 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 10_000 * (i + 1))];
    const sample = samplePoints(
      arraySeries(
        series(
          steps.map(() => 1),
          (i) => steps[i]!,
        ),
      ),
      50,
    );
    assert.equal(sample.filter((p) => p.step >= 1000).length, 10);
  });
});

describe("lowerBound", () => {
  it("finds the first key at or above the target", () => {
    const keys = [1, 3, 3, 7];
    assert.deepEqual(
      [0, 1, 3, 4, 8].map((t) => lowerBound(keys.length, (i) => keys[i]!, t)),
      [0, 0, 1, 3, 4],
    );
  });
});
