import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addPoints, EMPTY_SUMMARY, meanAndVariance, removePoints } from "./summaries.js";

describe("metric summaries", () => {
  it("counts finite values only and tracks steps over all points", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [2, NaN, 4, Infinity]);
    assert.deepEqual(s, { count: 2, nonFiniteCount: 2, min: 2, max: 4, sum: 6, sumSq: 20, firstStep: 0, lastStep: 3, lastValue: 4, lastValueStep: 2 });
  });

  it("asks for a rescan when a removed value was an extreme or the last value", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2], [5, 1, 3]);
    assert.equal(removePoints(s, [0], [5]).rescan, true);
    assert.equal(removePoints(s, [1], [1]).rescan, true);
    assert.equal(removePoints(s, [2], [3]).rescan, true);
    const middle = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [5, 2, 1, 3]);
    const { state, rescan } = removePoints(middle, [1], [2]);
    assert.equal(rescan, false);
    assert.equal(state.count, 3);
    assert.equal(state.sum, 9);
  });

  it("computes the population variance", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [1, 2, 3, 4]);
    assert.deepEqual(meanAndVariance(s), { mean: 2.5, variance: 1.25 });
    assert.deepEqual(meanAndVariance(EMPTY_SUMMARY), { mean: null, variance: null });
    assert.equal(meanAndVariance(addPoints(EMPTY_SUMMARY, [0, 1, 2], [0.1, 0.1, 0.1])).variance! >= 0, true);
  });
});
