import assert from "node:assert/strict";
import { test } from "node:test";
import { smooth } from "./smoothing.ts";

test("weight 0 leaves values alone", () => {
  assert.deepEqual(smooth([1, null, 3], 0), [1, null, 3]);
});

test("a constant series stays constant (debiased, no pull towards zero)", () => {
  for (const value of smooth([5, 5, 5, 5], 0.9)) assert.ok(Math.abs((value ?? 0) - 5) < 1e-12);
});

test("smoothing follows a step slowly and skips nulls", () => {
  const result = smooth([0, 0, null, 10, 10], 0.5);
  assert.equal(result[0], 0);
  assert.equal(result[2], null);
  const afterStep = result[3] ?? NaN;
  assert.ok(afterStep > 0 && afterStep < 10, `got ${afterStep}`);
  assert.ok((result[4] ?? 0) > afterStep);
});
