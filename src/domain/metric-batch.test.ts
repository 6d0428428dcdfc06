import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BATCH_MAX_POINTS, batchTooLarge, bucketsForRuns, pointsPerSeriesBound, sampleLimitOf } from "./metric-batch.js";

describe("metric batch bounds", () => {
  it("bounds a series by 4 points a bucket plus the non-finite kinds", () => {
    assert.equal(sampleLimitOf(250), 1000);
    assert.equal(pointsPerSeriesBound(250), 1003);
  });

  it("accepts a batch up to the cap and refuses one point past it, saying why", () => {
    assert.equal(batchTooLarge(1, 1, 1), undefined);
    assert.equal(batchTooLarge(20, 50, 250), undefined); // 1,003,000 points
    // 2 × 997 × 1003 = 1,999,982 ≤ cap; 2 × 998 × 1003 = 2,001,988 > cap.
    assert.equal(batchTooLarge(2, 997, 250), undefined);
    const message = batchTooLarge(2, 998, 250);
    assert.match(message ?? "", /batch too large: 2 runs × 998 logNames × 1003 points per series .*= 2001988 points, more than 2000000/);
    assert.ok(batchTooLarge(200, 100, 1000));
    assert.equal(BATCH_MAX_POINTS, 2_000_000);
  });
});

it("overlaid runs: 250 buckets a series up to 50 runs, then about 12,500 across them, never below 50", () => {
  assert.deepEqual([0, 1, 20, 50, 51, 100, 200, 250, 1000].map(bucketsForRuns), [250, 250, 250, 250, 245, 125, 62, 50, 50]);
});
