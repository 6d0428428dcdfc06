import assert from "node:assert/strict";
import { test } from "node:test";
import {
  addCustomPanel,
  batchPlan,
  type BatchSeries,
  compareSections,
  DEFAULT_PANEL_OPTIONS,
  EMPTY_LAYOUT,
  isDownsampled,
  lineOf,
  matchesSearch,
  minMaxBand,
  moveCustomPanel,
  nextCap,
  optionsOf,
  parseHiddenRuns,
  parseLayout,
  removeCustomPanel,
  sortByValue,
  toggleCollapsed,
  withOptions,
  workspaceSections,
} from "./workspace.ts";

test("sections: train and val first, then the rest alphabetically, the ungrouped last", () => {
  const names = ["zeta/a", "", "val", "alpha", "train", "eval", "system"];
  assert.deepEqual([...names].sort(compareSections), ["train", "val", "alpha", "eval", "system", "zeta/a", ""]);
});

test("workspace sections group metrics by log group, names sorted, added panels first", () => {
  const metrics = ["val/loss", "train/loss", "train/acc", "epoch", "sys/gpu", "lr/x/y", "eval/f1"];
  const sections = workspaceSections(metrics, EMPTY_LAYOUT, "");
  assert.deepEqual(
    sections.map(([name, panels]) => [name, panels.map((panel) => panel.id)]),
    [
      ["train", ["train/acc", "train/loss"]],
      ["val", ["val/loss"]],
      ["eval", ["eval/f1"]],
      ["lr/x", ["lr/x/y"]],
      ["sys", ["sys/gpu"]],
      ["", ["epoch"]],
    ],
  );
  const layout = addCustomPanel(EMPTY_LAYOUT, ["train/loss", "val/loss"]);
  const withCustom = workspaceSections(metrics, layout, "");
  assert.deepEqual(withCustom[0], ["Custom panels", [{ id: "custom:1", logNames: ["train/loss", "val/loss"], custom: true }]]);
});

test("metric search is a plain substring, case-insensitive, regex characters match themselves", () => {
  assert.ok(matchesSearch("train/Loss", "loss"));
  assert.ok(matchesSearch("a.b(c)", "b(c"));
  assert.ok(!matchesSearch("axb", "a.b"));
  assert.ok(matchesSearch("anything", ""));
  const sections = workspaceSections(["train/loss", "val/loss", "train/acc"], EMPTY_LAYOUT, "LOSS");
  assert.deepEqual(
    sections.flatMap(([, panels]) => panels.map((panel) => panel.id)),
    ["train/loss", "val/loss"],
  );
  // An added panel shows while any of its metrics matches.
  const layout = addCustomPanel(EMPTY_LAYOUT, ["train/acc", "val/loss"]);
  assert.equal(workspaceSections(["train/acc", "val/loss"], layout, "acc")[0]![0], "Custom panels");
  assert.notEqual(workspaceSections(["train/acc", "val/loss"], layout, "nothing")[0]?.[0], "Custom panels");
});

test("the cap rises 20 → 50 → 100 → 200 and stops", () => {
  assert.equal(nextCap(20), 50);
  assert.equal(nextCap(50), 100);
  assert.equal(nextCap(100), 200);
  assert.equal(nextCap(200), null);
});

test("a layout survives its round trip through storage", () => {
  let layout = addCustomPanel(EMPTY_LAYOUT, ["train/loss", "val/loss", "train/loss"]);
  layout = addCustomPanel(layout, ["epoch"]);
  layout = withOptions(layout, "train/loss", { logScale: true, smoothing: 0.6, xAxis: "metric", xMetric: "epoch" });
  layout = toggleCollapsed(layout, "val");
  layout = { ...layout, cap: 100 };
  const read = parseLayout(JSON.stringify(layout));
  assert.deepEqual(read, layout);
  assert.deepEqual(read.custom[0]!.logNames, ["train/loss", "val/loss"], "duplicate names dropped");
  assert.deepEqual(optionsOf(read, "train/loss"), { logScale: true, smoothing: 0.6, xAxis: "metric", xMetric: "epoch" });
  assert.deepEqual(optionsOf(read, "val/loss"), DEFAULT_PANEL_OPTIONS);
  assert.deepEqual(toggleCollapsed(read, "val").collapsed, []);
});

test("layout edits: move, remove", () => {
  let layout = addCustomPanel(addCustomPanel(addCustomPanel(EMPTY_LAYOUT, ["a"]), ["b"]), ["c"]);
  layout = moveCustomPanel(layout, "custom:3", -1);
  assert.deepEqual(
    layout.custom.map((panel) => panel.id),
    ["custom:1", "custom:3", "custom:2"],
  );
  assert.equal(moveCustomPanel(layout, "custom:1", -1), layout, "the first stays first");
  layout = withOptions(layout, "custom:3", { ...DEFAULT_PANEL_OPTIONS, logScale: true });
  layout = removeCustomPanel(layout, "custom:3");
  assert.deepEqual(
    layout.custom.map((panel) => panel.id),
    ["custom:1", "custom:2"],
  );
  assert.deepEqual(layout.options, []);
  assert.equal(addCustomPanel(layout, ["d"]).custom[2]!.id, "custom:3", "a fresh ID");
});

test("a malformed or foreign stored layout falls back to defaults part by part", () => {
  assert.deepEqual(parseLayout(null), EMPTY_LAYOUT);
  assert.deepEqual(parseLayout("{not json"), EMPTY_LAYOUT);
  assert.deepEqual(parseLayout("[1,2]").custom, []);
  const read = parseLayout(
    JSON.stringify({
      custom: [{ id: "custom:1", logNames: ["a", 3] }, { id: 5 }, null, { id: "custom:2", logNames: [] }],
      options: [["__proto__", { logScale: "yes", smoothing: 7, xAxis: "bogus" }], "x", [1, {}]],
      collapsed: ["train", 4],
      cap: 1000,
    }),
  );
  assert.deepEqual(read.custom, [{ id: "custom:1", logNames: ["a"] }]);
  assert.deepEqual(read.options, [["__proto__", DEFAULT_PANEL_OPTIONS]]);
  assert.deepEqual(read.collapsed, ["train"]);
  assert.equal(read.cap, 20);
});

test("hidden runs parse as a list of integers", () => {
  assert.deepEqual(parseHiddenRuns('[3, 5, "x", 1.5, null]'), [3, 5]);
  assert.deepEqual(parseHiddenRuns("{}"), []);
  assert.deepEqual(parseHiddenRuns("nope"), []);
  assert.deepEqual(parseHiddenRuns(null), []);
});

const series = (partial: Partial<BatchSeries>): BatchSeries => ({
  runId: 1,
  logName: "loss",
  steps: [0, 1, 2, 3],
  values: [4, 0, 2, 1],
  nonFiniteFlags: [0, 2, 0, 0],
  times: [1_000_000, 1_010_000, 1_020_000, 1_030_000],
  ...partial,
});

test("a series on each x axis keeps its non-finite points as markers", () => {
  const step = lineOf(series({}), DEFAULT_PANEL_OPTIONS, 0);
  assert.deepEqual(step, { x: [0, 1, 2, 3], y: [4, null, 2, 1], markers: [{ x: 1, kind: "+Inf" }] });
  const relative = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "relative" }, 990_000);
  assert.deepEqual(relative.x, [10, 20, 30, 40]);
  assert.deepEqual(relative.markers, [{ x: 20, kind: "+Inf" }]);
  const wall = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "wall" }, 0);
  assert.deepEqual(wall.x, [1000, 1010, 1020, 1030]);
  // x = epoch at the same step; step 3 has no epoch and step 0 a NaN one: both left out.
  const epoch = series({ logName: "epoch", steps: [0, 1, 2], values: [0, 0.5, 1], nonFiniteFlags: [1, 0, 0] });
  const byEpoch = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "metric", xMetric: "epoch" }, 0, epoch);
  assert.deepEqual(byEpoch, { x: [0.5, 1], y: [null, 2], markers: [{ x: 0.5, kind: "+Inf" }] });
  // A log scale cannot draw values ≤ 0.
  const log = lineOf(series({ values: [1, -1, 0, 2], nonFiniteFlags: [0, 0, 0, 0] }), { ...DEFAULT_PANEL_OPTIONS, logScale: true }, 0);
  assert.deepEqual(log.y, [1, null, null, 2]);
});

test("a downsampled line gets a min/max band per bucket; a raw one none", () => {
  const line = { x: [0, 1, 2, 3, 4, 5, 6, 7], y: [1, 5, null, 2, 3, 9, 4, 4], markers: [] };
  assert.equal(minMaxBand(line, 8), null);
  assert.deepEqual(minMaxBand(line, 2), { x: [0, 4], lo: [1, 3], hi: [5, 9] });
  const every = (count: number, stride: number) =>
    series({ steps: Array.from({ length: count }, (_, i) => i * stride), values: [], nonFiniteFlags: [], times: [] });
  assert.ok(!isDownsampled(every(600, 1), 250), "600 consecutive steps came whole");
  assert.ok(isDownsampled(every(1000, 7), 250), "1,000 points over 7,000 steps were sampled");
  assert.ok(!isDownsampled(every(200, 7), 250), "fewer points than buckets: whole");
});

test("tooltip rows: highest value first, then non-finite, then missing", () => {
  const rows = [
    { name: "a", value: 1 },
    { name: "b", value: null, kind: "NaN" as const },
    { name: "c", value: 3 },
    { name: "d", value: null },
    { name: "e", value: -2 },
  ];
  assert.deepEqual(
    sortByValue(rows).map((row) => row.name),
    ["c", "a", "e", "b", "d"],
  );
});

test("batch requests stay within the batch read's limits, as few as they allow", () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);
  const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  // 20 runs × 50 metrics at 250 buckets: 1,000 series × 1,003 points fit in one request.
  assert.equal(batchPlan(ids(20), names(50), 250).length, 1);
  // 200 runs at 250 buckets: 9 metrics a request (200 × 9 × 1,003 ≤ 2,000,000 < 200 × 10 × 1,003).
  const wide = batchPlan(ids(200), names(20), 250);
  assert.deepEqual(
    wide.map((request) => request.logNames.length),
    [9, 9, 2],
  );
  // 150 metrics: at most 100 a request; 250 runs: at most 200 a request.
  assert.ok(batchPlan(ids(2), names(150), 250).every((request) => request.logNames.length <= 100));
  assert.deepEqual(
    batchPlan(ids(250), names(1), 250).map((request) => request.runIds.length),
    [200, 50],
  );
  for (const request of [...wide, ...batchPlan(ids(250), names(150), 1000)])
    assert.ok(request.runIds.length * request.logNames.length * (4 * 250 + 3) <= 2_000_000 || request.logNames.length === 1);
  assert.deepEqual(batchPlan(ids(3), [], 250), []);
});
