import assert from "node:assert/strict";
import { test } from "node:test";
import { columnId, defaultColumns, parseColumns } from "./run-columns.ts";

test("default columns: the config keys that differ between the runs, then the main metrics", () => {
  const configs = [
    { lr: 0.1, optimizer: "adam", seed: 1, epochs: 10 },
    { lr: 0.01, optimizer: "sgd", seed: 1, epochs: 10 },
    { lr: 0.01, optimizer: "adam", epochs: 10 },
  ];
  assert.deepEqual(defaultColumns(configs, ["sys/cpu", "train/loss", "val/loss"]), [
    { source: "config", key: "lr" },
    { source: "config", key: "optimizer" },
    { source: "config", key: "seed" }, // missing in one run: it differs
    { source: "summary", key: "val/loss" },
    { source: "summary", key: "train/loss" },
  ]);
  // One run: nothing differs.
  assert.deepEqual(defaultColumns([configs[0]!], []), []);
  // A key named like an Object property is a key like any other.
  assert.deepEqual(defaultColumns([{ constructor: 1 }, {}], []), [{ source: "config", key: "constructor" }]);
});

test("a summary column with another aggregate is another column", () => {
  assert.equal(columnId({ source: "summary", key: "val/loss" }), "summary.val/loss");
  assert.equal(columnId({ source: "summary", key: "val/loss", aggregate: "last" }), "summary.val/loss");
  assert.equal(columnId({ source: "summary", key: "val/loss", aggregate: "min" }), "summary.val/loss.min");
  assert.equal(columnId({ source: "config", key: "lr" }), "config.lr");
});

test("stored columns: never chosen is null; malformed entries are left out", () => {
  assert.equal(parseColumns(null), null);
  assert.equal(parseColumns({ source: "config" }), null);
  assert.deepEqual(parseColumns([]), []);
  assert.deepEqual(
    parseColumns([
      { source: "config", key: "lr" },
      { source: "summary", key: "val/loss", aggregate: "max" },
      { source: "summary", key: "acc", aggregate: "median" },
      { source: "config", key: "x", aggregate: "min" },
      { source: "__proto__", key: "y" },
      { source: "config", key: 3 },
      "config.lr",
    ]),
    [
      { source: "config", key: "lr" },
      { source: "summary", key: "val/loss", aggregate: "max" },
      { source: "summary", key: "acc" },
      { source: "config", key: "x" },
    ],
  );
});
