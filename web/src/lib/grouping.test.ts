import assert from "node:assert/strict";
import { test } from "node:test";
import { groupLine, groupRuns, groupValue, NO_GROUPING, parseGrouping } from "./grouping.ts";

const run = (id: number, config: Record<string, unknown>, tags: string[] = []) => ({ id, tags, config });

test("runs fold into groups by the values of the grouping keys, in the order their first member comes", () => {
  const runs = [
    run(1, { optimizer: "adam", lr: 0.1, seed: 1 }),
    run(2, { optimizer: "sgd", lr: 0.1, seed: 1 }),
    run(3, { optimizer: "adam", lr: 0.1, seed: 2 }),
    run(4, { optimizer: "adam", lr: 0.01, seed: 1 }),
    run(5, { lr: 0.1 }),
  ];
  assert.deepEqual(groupRuns(runs, ["config.optimizer"]), [
    { label: "optimizer=adam", runIds: [1, 3, 4] },
    { label: "optimizer=sgd", runIds: [2] },
    { label: "optimizer=—", runIds: [5] },
  ]);
  assert.deepEqual(
    groupRuns(runs, ["config.optimizer", "config.lr"]).map((group) => group.runIds),
    [[1, 3], [2], [4], [5]],
  );
  // Numbers, booleans and strings that print alike stay apart ("1" is not 1).
  assert.equal(groupRuns([run(1, { a: "1" }), run(2, { a: 1 }), run(3, { a: true })], ["config.a"]).length, 3);
  // Inherited properties are not config values.
  assert.deepEqual(groupRuns([run(1, {})], ["config.constructor"]), [{ label: "constructor=—", runIds: [1] }]);
  // Tags: the same set in any order is one group.
  assert.deepEqual(
    groupRuns([run(1, {}, ["b", "a"]), run(2, {}, ["a", "b"]), run(3, {})], ["tags"]).map((group) => group.label),
    ["tags=a, b", "tags=—"],
  );
});

test("a group's line: mean or median per x range, with a min–max or ±std band, each member counted once", () => {
  const members = [
    { x: [0, 1, 2], y: [1, 2, 3] },
    { x: [0, 1, 2], y: [3, 4, 5] },
    { x: [0, 1, 2], y: [2, 9, null] },
  ];
  const line = groupLine(members, { line: "mean", band: "minmax" }, 3);
  assert.deepEqual(line.x, [0, 1, 2]);
  assert.deepEqual(line.y, [2, 5, 4]);
  assert.deepEqual(line.lo, [1, 2, 3]);
  assert.deepEqual(line.hi, [3, 9, 5]);
  assert.deepEqual(line.count, [3, 3, 2]);
  assert.deepEqual(groupLine(members, { line: "median", band: "minmax" }, 3).y, [2, 4, 4]);
  const std = groupLine(members, { line: "mean", band: "std" }, 3);
  assert.ok(Math.abs(std.hi[0]! - (2 + Math.sqrt(2 / 3))) < 1e-12);
  assert.ok(Math.abs(std.lo[2]! - 3) < 1e-12);
  // A densely sampled member weighs as much as a sparse one in a range they share.
  const dense = groupLine(
    [
      { x: [0, 0.1, 0.2, 0.3], y: [10, 10, 10, 10] },
      { x: [0.2], y: [0] },
      { x: [10], y: [1] },
    ],
    { line: "mean", band: "minmax" },
    2,
  );
  assert.equal(dense.y[0], 5);
  assert.deepEqual(dense.count, [2, 1]);
  assert.deepEqual(groupLine([{ x: [1], y: [null] }], NO_GROUPING).x, []);
});

test("a group's summary value: mean or median of the members' finite values", () => {
  assert.equal(groupValue([1, 2, 6, null, Number.NaN], "mean"), 3);
  assert.equal(groupValue([1, 2, 6, undefined], "median"), 2);
  assert.equal(groupValue([null, Number.POSITIVE_INFINITY], "mean"), null);
});

test("a stored grouping keeps config keys and tags; anything else reads as none", () => {
  assert.deepEqual(parseGrouping(null), NO_GROUPING);
  assert.deepEqual(parseGrouping({ keys: ["config.lr", "tags", "status", 3, "config.lr"], line: "median", band: "std" }), {
    keys: ["config.lr", "tags"],
    line: "median",
    band: "std",
  });
  assert.deepEqual(parseGrouping({ keys: "config.lr", line: "max" }), NO_GROUPING);
});
