import assert from "node:assert/strict";
import { test } from "node:test";
import { correlationRatio, featureOf, forestImportance, importances, pearson } from "./importance.ts";

/** A sweep: lr × optimizer × seed, a metric that depends on lr mostly, a little on the optimizer. */
function sweep() {
  const runs: Record<string, unknown>[] = [];
  const y: number[] = [];
  for (const lr of [0.0001, 0.001, 0.01, 0.1])
    for (const optimizer of ["adam", "sgd"])
      for (const seed of [0, 1, 2, 3]) {
        runs.push({ lr, optimizer, seed, constant: 7 });
        y.push(Math.log10(lr) * 1.0 + (optimizer === "sgd" ? 0.2 : 0) + ((seed * 37) % 5) * 0.01);
      }
  return { runs, y };
}

test("a metric that depends on lr ranks lr first, then the optimizer; a constant key gets nothing", () => {
  const { runs, y } = sweep();
  const ranked = importances(["constant", "lr", "optimizer", "seed"], (key) => runs.map((run) => run[key]), y);
  assert.deepEqual(
    ranked.map((entry) => entry.key),
    ["lr", "optimizer", "seed", "constant"],
  );
  assert.ok(ranked[0]!.importance > 0.8, `lr takes ${ranked[0]!.importance}`);
  assert.equal(ranked.find((entry) => entry.key === "constant")!.importance, 0);
  assert.equal(ranked.find((entry) => entry.key === "constant")!.correlation, null, "no spread, no correlation");
  const sum = ranked.reduce((total, entry) => total + entry.importance, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9);
  // The same runs, the same answer.
  assert.deepEqual(
    importances(["lr", "optimizer", "seed"], (key) => runs.map((run) => run[key]), y),
    importances(["lr", "optimizer", "seed"], (key) => runs.map((run) => run[key]), y),
  );
});

test("mixed types: numbers and booleans are numeric, any other mix categorical, missing values counted", () => {
  const numbers = featureOf("lr", [0.1, undefined, 0.01, null]);
  assert.equal(numbers.kind, "numeric");
  assert.equal(numbers.missing, 2);
  assert.deepEqual(
    [...numbers.codes].map((code) => (Number.isNaN(code) ? "NaN" : code)),
    [0.1, "NaN", 0.01, "NaN"],
  );
  const booleans = featureOf("amp", [true, false, true]);
  assert.equal(booleans.kind, "numeric");
  assert.deepEqual([...booleans.codes], [1, 0, 1]);
  const mixed = featureOf("lr", [0.1, "auto", true, { a: 1 }, undefined]);
  assert.equal(mixed.kind, "categorical");
  assert.deepEqual([...mixed.levels].sort(), ["0.1", "auto", "true", '{"a":1}'].sort());
  assert.equal(mixed.missing, 1);
  // "1" and 1 are different levels in a categorical key.
  assert.equal(featureOf("k", ["1", 1, "x"]).levels.length, 3);
});

test("a key that only some runs have still ranks by what it explains (missing is a value of its own)", () => {
  const y = [1, 1, 1, 1, 5, 5, 5, 5];
  const warmup = [undefined, undefined, undefined, undefined, 100, 100, 100, 100];
  const noise = [1, 2, 3, 4, 1, 2, 3, 4];
  const ranked = importances(["noise", "warmup"], (key) => (key === "warmup" ? warmup : noise), y);
  assert.equal(ranked[0]!.key, "warmup");
  assert.equal(ranked[0]!.missing, 4);
});

test("correlations: Pearson for numbers (signed), the correlation ratio for levels (0 to 1)", () => {
  assert.equal(pearson([1, 2, 3, 4], [2, 4, 6, 8]), 1);
  assert.ok(Math.abs(pearson([1, 2, 3, 4], [8, 6, 4, 2])! + 1) < 1e-12);
  assert.equal(pearson([1, Number.NaN, 3], [1, 2, 3]), null, "fewer than 3 pairs");
  assert.equal(correlationRatio([0, 0, 1, 1], [1, 1, 3, 3]), 1);
  assert.equal(correlationRatio([0, 1, 0, 1], [1, 1, 3, 3]), 0);
});

test("over 2,000 runs × 10 keys of both kinds the forest finds the key y follows", () => {
  const n = 2000;
  const features = Array.from({ length: 10 }, (_, f) =>
    featureOf(
      `k${f}`,
      Array.from({ length: n }, (_, i) => (f === 3 ? ["a", "b", "c"][i % 3] : ((i * (f + 7)) % 101) / 10)),
    ),
  );
  const y = Array.from({ length: n }, (_, i) => 5 * (i % 3) + ((i * 7) % 11) / 100);
  const shares = forestImportance(features, y);
  assert.equal(shares.indexOf(Math.max(...shares)), 3, "the key y follows most (its levels add 0, 1, 2)");
});
