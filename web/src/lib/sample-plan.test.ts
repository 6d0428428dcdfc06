import assert from "node:assert/strict";
import { test } from "node:test";
import { samplePlan } from "./sample-plan.ts";

const RUN_PAGE = { head: 1000, chunks: 20, chunkRows: 25, maxBytes: 32 * 1024 * 1024 };

test("chunks spread over what the head did not read, the last ending at the last row", () => {
  const plan = samplePlan(5000, 1000, 1000 * 500, RUN_PAGE);
  assert.equal(plan.length, 20);
  assert.deepEqual(plan[0], [1000, 25]);
  assert.deepEqual(plan.at(-1), [4975, 25]);
  for (let i = 1; i < plan.length; i++) assert.ok(plan[i]![0] >= plan[i - 1]![0] + 25, "chunks do not overlap");
});

test("one chunk is the last rows; nothing left to read is no chunk", () => {
  assert.deepEqual(samplePlan(5000, 50, 5000, { head: 50, chunks: 1, chunkRows: 1, maxBytes: 1e6 }), [[4999, 1]]);
  assert.deepEqual(
    samplePlan(8, 5, 50, { head: 5, chunks: 1, chunkRows: 5, maxBytes: 1e6 }),
    [[3, 5]],
    "the last 5, the head's among them",
  );
  assert.deepEqual(samplePlan(1000, 1000, 1e5, RUN_PAGE), []);
});

test("large rows get fewer, shorter chunks within the byte budget", () => {
  const row = 4 * 1024 * 1024;
  // 4 rows of 4 MiB read first (16 MiB, half the budget): 4 more rows fit, one per chunk.
  const plan = samplePlan(100_000, 4, 4 * row, RUN_PAGE);
  assert.deepEqual(
    plan.map(([, rows]) => rows),
    [1, 1, 1, 1],
  );
  assert.deepEqual(plan.at(-1), [99_999, 1]);
  const bytes = plan.reduce((sum, [, rows]) => sum + rows * row, 4 * row);
  assert.ok(bytes <= RUN_PAGE.maxBytes, `${bytes} bytes`);
  // Past the budget already: still the last row, so the newest step shows.
  assert.deepEqual(samplePlan(100_000, 10, 10 * row, RUN_PAGE), [[99_999, 1]]);
});

test("a rest that fits is read whole", () => {
  assert.deepEqual(samplePlan(1030, 1000, 1e5, RUN_PAGE), [[1000, 30]]);
});
