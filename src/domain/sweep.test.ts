import assert from "node:assert/strict";
import { test } from "node:test";
import { parseSweepMetrics, SWEEP_MAX_KEYS, sweepKeys, valuesOf } from "./sweep.js";

test("the keys that differ (a missing one too), at most SWEEP_MAX_KEYS, the rest counted", () => {
  assert.deepEqual(
    sweepKeys([
      { lr: 1, seed: 1, toString: "x" },
      { lr: 2, seed: 1 },
    ]),
    {
      differing: ["lr", "toString"],
      constant: ["seed"],
      more: 0,
    },
  );
  const wide = Array.from({ length: 2 }, (_, r) =>
    Object.fromEntries(Array.from({ length: SWEEP_MAX_KEYS + 5 }, (_, k) => [`k${String(k).padStart(3, "0")}`, r])),
  );
  const { differing, more } = sweepKeys(wide);
  assert.equal(differing.length, SWEEP_MAX_KEYS);
  assert.equal(differing[0], "k000");
  assert.equal(more, 5);
});

test("a run's values of the keys: own keys only, a key it lacks is absent", () => {
  assert.deepEqual(valuesOf({ lr: 0.1 }, ["lr", "constructor", "toString"]), { lr: 0.1 });
  assert.deepEqual(valuesOf({ constructor: 3 }, ["constructor"]), { constructor: 3 });
});

test("the metrics parameter: a JSON array of distinct names, bounded", () => {
  assert.deepEqual(parseSweepMetrics(undefined), []);
  assert.deepEqual(parseSweepMetrics('["a","b","a"]'), ["a", "b"]);
  for (const bad of ["a", "[1]", '[""]', "{}", JSON.stringify(Array.from({ length: 51 }, (_, i) => `m${i}`))])
    assert.throws(() => parseSweepMetrics(bad), /metrics/, bad);
});
