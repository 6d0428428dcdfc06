import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sliceBySize, sliceSeries } from "./ingest-slices.js";

const series = (logName: string, length: number) => {
  const steps = Array.from({ length }, (_, i) => i);
  return { logName, steps, values: steps.map((s) => s * 2), times: steps.map((s) => s + 100) };
};

/** The slices' pieces of each series, joined again in slice order. */
function rejoin(slices: ReturnType<typeof series>[][]) {
  const joined = new Map<string, ReturnType<typeof series>>();
  for (const slice of slices)
    for (const piece of slice) {
      const into = joined.get(piece.logName) ?? { logName: piece.logName, steps: [], values: [], times: [] };
      into.steps.push(...piece.steps);
      into.values.push(...piece.values);
      into.times.push(...piece.times);
      joined.set(piece.logName, into);
    }
  return [...joined.values()];
}

describe("sliceSeries", () => {
  it("keeps a batch that fits as one slice, the same objects", () => {
    const batch = [series("a", 3), series("b", 2)];
    const slices = sliceSeries(batch, 5);
    assert.equal(slices.length, 1);
    assert.equal(slices[0], batch);
  });

  it("slices a large batch into slices of at most maxPoints, every point once and in order", () => {
    const batch = [series("a", 23), series("b", 7), series("c", 1)];
    const slices = sliceSeries(batch, 10);
    for (const slice of slices) assert.ok(slice.reduce((n, s) => n + s.steps.length, 0) <= 10);
    assert.equal(slices.length, 4);
    assert.deepEqual(rejoin(slices), batch);
  });

  it("names every series in the first slice, so a batch's new metrics are all created (and counted) first", () => {
    const batch = [series("a", 50), series("b", 50), series("c", 50)];
    const [first] = sliceSeries(batch, 10);
    assert.deepEqual(
      first!.map((s) => s.logName),
      ["a", "b", "c"],
    );
    const many = Array.from({ length: 30 }, (_, i) => series(`m${i}`, 2));
    const slices = sliceSeries(many, 10);
    assert.equal(slices[0]!.length, 30, "more series than maxPoints: one point of each in the first slice");
    assert.deepEqual(rejoin(slices), many);
  });
});

describe("sliceBySize", () => {
  it("groups consecutive items up to the size, an oversized item alone, nothing lost", () => {
    assert.deepEqual(
      sliceBySize([3, 3, 3, 9, 1], (n) => n, 6),
      [[3, 3], [3], [9], [1]],
    );
    assert.deepEqual(
      sliceBySize([], (n: number) => n, 6),
      [[]],
    );
  });
});
