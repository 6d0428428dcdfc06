import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { arraySeries, lowerBound, samplePoints, type Point } from "./sampling.js";

const series = (values: number[], stepOf = (i: number) => i): Point[] => values.map((value, i) => ({ step: stepOf(i), value, time: i, writtenAt: 0 }));

describe("samplePoints", () => {
  it("returns every point when there are no more than the limit", () => {
    const points = series([3, 1, 2]);
    assert.deepEqual(samplePoints(arraySeries(points), 3), points);
  });

  it("always keeps first, last, minimum and maximum, and stays within the limit", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 50));
    values[4321] = -7;
    values[777] = 9;
    const sample = samplePoints(arraySeries(series(values)), 100);
    assert.ok(sample.length <= 100 && sample.length >= 90, `size ${sample.length}`);
    const steps = sample.map((p) => p.step);
    for (const step of [0, 9999, 4321, 777]) assert.ok(steps.includes(step), `missing ${step}`);
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b));
  });

  it("spreads the rest evenly over steps, not over points", () => {
    // 1,000 points crowded in steps 0..999, then 10 points spread over 1,000..100,000.
    const steps = [...Array.from({ length: 1000 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 10_000 * (i + 1))];
    const sample = samplePoints(arraySeries(series(steps.map(() => 1), (i) => steps[i]!)), 50);
    const late = sample.filter((p) => p.step >= 1000).length;
    assert.ok(late >= 9, `only ${late} points after step 1000`);
  });

  it("ignores non-finite values for the extremes and is deterministic", () => {
    const values = Array.from({ length: 500 }, (_, i) => (i % 10 === 0 ? NaN : i));
    values[250] = Infinity;
    const a = samplePoints(arraySeries(series(values)), 20);
    const b = samplePoints(arraySeries(series(values)), 20);
    assert.deepEqual(a, b);
    assert.ok(a.some((p) => p.step === 1), "the finite minimum (step 1) is kept");
    assert.ok(a.some((p) => p.step === 499), "the finite maximum (step 499) is kept");
  });

  it("keeps the lowest step on tied extremes", () => {
    const { min, max } = arraySeries(series([5, 1, 9, 1, 9])).extremes();
    assert.equal(min!.step, 1);
    assert.equal(max!.step, 2);
  });
});

describe("lowerBound", () => {
  it("finds the first key at or above the target", () => {
    const keys = [1, 3, 3, 7];
    assert.deepEqual([0, 1, 3, 4, 8].map((t) => lowerBound(keys.length, (i) => keys[i]!, t)), [0, 0, 1, 3, 4]);
  });
});
