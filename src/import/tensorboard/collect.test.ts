import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { histogramRow, RunCollector } from "./collect.js";

const base = { min: 0, max: 0, num: 0, sum: 0, sumSquares: 0 };

describe("RunCollector", () => {
  it("turns a histogram into counts and one more increasing edge, empty end buckets dropped", () => {
    // tensorboardX: the first limit is the minimum, its bucket empty.
    const row = JSON.parse(histogramRow({ ...base, min: 1, max: 4, num: 5, bucketLimits: [1, 2, 3, 4], buckets: [0, 2, 0, 3] })!);
    assert.deepEqual([row.freq, row.bins, row.shape], [[2, 0, 3], [1, 2, 3, 4], "generic"]);
    // TensorFlow's default buckets end at ±DBL_MAX: those edges become the min and max.
    const tf = JSON.parse(
      histogramRow({ ...base, min: -5, max: 7, num: 3, bucketLimits: [-Number.MAX_VALUE, 0, Number.MAX_VALUE], buckets: [1, 1, 1] })!,
    );
    // The first bucket, (−DBL_MAX, −DBL_MAX], has no width once clamped: its count joins the next.
    assert.deepEqual(
      [tf.freq, tf.bins],
      [
        [2, 1],
        [-5, 0, 7],
      ],
    );
    assert.equal(histogramRow({ ...base, bucketLimits: [], buckets: [] }), undefined);
  });

  it("merges a restart in step order, the later file winning a step, and skips steps it cannot store", () => {
    const collector = new RunCollector();
    for (const step of [0, 1, 2]) collector.scalar("loss", step, 1000 + step, step);
    for (const step of [1, 2, 3]) collector.scalar("loss", step, 2000 + step, 10 + step);
    collector.scalar("loss", -1, 3000, 99);
    const [series] = collector.series();
    assert.deepEqual(
      [series!.steps, series!.values],
      [
        [0, 1, 2, 3],
        [0, 11, 12, 13],
      ],
    );
    assert.deepEqual(series!.times, [1_000_000, 2_001_000, 2_002_000, 2_003_000]);
    assert.deepEqual([collector.firstTime, collector.lastTime], [1_000_000, 2_003_000]);
    assert.deepEqual([...collector.notImportedKinds], [["step outside 0..2^53−1", 1]]);
  });
});
