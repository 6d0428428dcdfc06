import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffDelay, batchNames } from "./retry.ts";

test("retries back off from 1 s, doubling, to at most 15 s", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 50].map(backoffDelay), [1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
});

test("metric names go in as few requests as the name cap and the URL budget allow, in order", () => {
  const names = Array.from({ length: 7 }, (_, i) => `m${i}`);
  assert.deepEqual(batchNames(names, 3), [["m0", "m1", "m2"], ["m3", "m4", "m5"], ["m6"]]);
  assert.deepEqual(batchNames(names, 500), [names]);
  assert.deepEqual(batchNames([], 500), []);
  const long = ["a".repeat(100), "b".repeat(100), "c".repeat(100)];
  assert.deepEqual(
    batchNames(long, 500, 250).map((batch) => batch.length),
    [2, 1],
  );
  assert.deepEqual(batchNames(["x".repeat(1000)], 500, 250), [["x".repeat(1000)]]);
});
