import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { columnsOf, decodeChunk, encodeChunk, mergeColumns, SAMPLED_BYTES_PER_POINT, viewChunk } from "./metric-chunks.js";

describe("metric chunks", () => {
  it("round-trips columns, including non-finite values, through a chunk", () => {
    const columns = columnsOf([0, 1, 2], [1.5, NaN, -Infinity], [10, 11, 12], 99);
    const blob = encodeChunk(columns);
    // An unaligned copy, as SQLite hands blobs back.
    const unaligned = Buffer.alloc(blob.length + 1).subarray(1);
    blob.copy(unaligned);
    const back = decodeChunk(unaligned, 3);
    assert.deepEqual([...back.steps], [0, 1, 2]);
    assert.deepEqual([...back.values], [1.5, NaN, -Infinity]);
    assert.deepEqual([...back.times], [10, 11, 12]);
    assert.deepEqual([...back.writtenAt], [99, 99, 99]);
  });

  it("views a whole chunk, and the sampled part of one (aligned or not), as the same points", () => {
    const values = [1.7e308, -Number.MAX_VALUE, NaN, Infinity, -Infinity, 5e-324, -0];
    const blob = encodeChunk(columnsOf([0, 1, 2, 3, 4, 5, 6], values, [10, 11, 12, 13, 14, 15, 16], 99));
    const sampled = Buffer.from(blob.subarray(0, values.length * SAMPLED_BYTES_PER_POINT));
    const unaligned = Buffer.alloc(sampled.length + 1).subarray(1);
    sampled.copy(unaligned);
    for (const part of [blob, sampled, unaligned]) {
      const view = viewChunk(part, values.length);
      const points = Array.from({ length: view.count }, (_, i) => [view.stepAt(i), view.valueAt(i), view.timeAt(i)]);
      assert.deepEqual(
        points,
        values.map((value, i) => [i, value, 10 + i]),
      );
    }
  });

  it("encodes a slice", () => {
    const columns = columnsOf([0, 1, 2, 3], [0, 10, 20, 30], [0, 0, 0, 0], 1);
    assert.deepEqual([...decodeChunk(encodeChunk(columns, 1, 3), 2).values], [10, 20]);
  });

  it("merges with the incoming point winning and reports only changed points", () => {
    const stored = columnsOf([0, 2, 4], [1, 2, 3], [0, 0, 0], 1);
    const incoming = columnsOf([2, 3, 4], [2, 7, 8], [5, 5, 5], 2);
    const { merged, removed, added } = mergeColumns(stored, incoming);
    assert.deepEqual([...merged.steps], [0, 2, 3, 4]);
    assert.deepEqual([...merged.values], [1, 2, 7, 8]);
    assert.deepEqual([...merged.writtenAt], [1, 2, 2, 2]);
    assert.deepEqual(removed, { steps: [4], values: [3] });
    assert.deepEqual(added, { steps: [3, 4], values: [7, 8] });
  });

  it("treats a re-sent NaN as unchanged", () => {
    const { removed, added } = mergeColumns(columnsOf([1], [NaN], [0], 1), columnsOf([1], [NaN], [0], 2));
    assert.deepEqual(removed, { steps: [], values: [] });
    assert.deepEqual(added, { steps: [], values: [] });
  });
});
