import assert from "node:assert/strict";
import { test } from "node:test";
import { bucketsForRuns } from "../../../src/domain/shared-with-ui.ts";
import type { BatchSeries } from "../types.ts";
import {
  addCustomPanel,
  batchPlan,
  clipLine,
  compareSections,
  DEFAULT_PANEL_OPTIONS,
  EMPTY_LAYOUT,
  isDownsampled,
  lineOf,
  matchesSearch,
  minMaxBand,
  movePanel,
  nextCap,
  optionsOf,
  parseHiddenRuns,
  parseLayout,
  removeCustomPanel,
  sortByValue,
  toggleCollapsed,
  withOptions,
  workspaceSections,
  zoomStepWindow,
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

test("the cap rises 20 → 50 → 100 → 200 → 500 → 1,000 and stops", () => {
  assert.equal(nextCap(20), 50);
  assert.equal(nextCap(50), 100);
  assert.equal(nextCap(100), 200);
  assert.equal(nextCap(200), 500);
  assert.equal(nextCap(500), 1000);
  assert.equal(nextCap(1000), null);
});

test("a layout survives its round trip through storage", () => {
  let layout = addCustomPanel(EMPTY_LAYOUT, ["train/loss", "val/loss", "train/loss"]);
  layout = addCustomPanel(layout, ["epoch"]);
  layout = withOptions(layout, "train/loss", { logScale: true, smoothing: 0.6, xAxis: "metric", xMetric: "epoch", clipY: true });
  layout = toggleCollapsed(layout, "val");
  layout = { ...layout, cap: 100, order: ["train/loss", "train/acc"] };
  const read = parseLayout(JSON.stringify(layout));
  assert.deepEqual(read, layout);
  assert.deepEqual(read.custom[0]!.logNames, ["train/loss", "val/loss"], "duplicate names dropped");
  assert.deepEqual(optionsOf(read, "train/loss"), { logScale: true, smoothing: 0.6, xAxis: "metric", xMetric: "epoch", clipY: true });
  assert.deepEqual(optionsOf(read, "val/loss"), DEFAULT_PANEL_OPTIONS);
  assert.deepEqual(toggleCollapsed(read, "val").collapsed, []);
});

test("layout edits: move an added panel, remove", () => {
  let layout = addCustomPanel(addCustomPanel(addCustomPanel(EMPTY_LAYOUT, ["a"]), ["b"]), ["c"]);
  layout = movePanel(layout, ["a", "b", "c"], "", "custom:3", -1);
  assert.deepEqual(
    layout.custom.map((panel) => panel.id),
    ["custom:1", "custom:3", "custom:2"],
  );
  assert.equal(movePanel(layout, ["a", "b", "c"], "", "custom:1", -1), layout, "the first stays first");
  assert.equal(movePanel(layout, ["a", "b", "c"], "", "custom:2", 1), layout, "the last stays last");
  assert.deepEqual(layout.order, [], "added panels move in their own list");
  layout = withOptions(layout, "custom:3", { ...DEFAULT_PANEL_OPTIONS, logScale: true });
  layout = removeCustomPanel(layout, "custom:3");
  assert.deepEqual(
    layout.custom.map((panel) => panel.id),
    ["custom:1", "custom:2"],
  );
  assert.deepEqual(layout.options, []);
  assert.equal(addCustomPanel(layout, ["d"]).custom[2]!.id, "custom:3", "a fresh ID");
});

const idsBySection = (sections: ReturnType<typeof workspaceSections>) =>
  sections.map(([name, panels]) => [name, panels.map((panel) => panel.id)]);

test("a metric panel moves within its section only, and keeps its place as metrics come and go", () => {
  const metrics = ["train/a", "train/b", "train/c", "val/loss", "epoch"];
  let layout = movePanel(EMPTY_LAYOUT, metrics, "", "train/c", -1);
  assert.deepEqual(idsBySection(workspaceSections(metrics, layout, "")), [
    ["train", ["train/a", "train/c", "train/b"]],
    ["val", ["val/loss"]],
    ["", ["epoch"]],
  ]);
  assert.deepEqual(layout.order, ["train/a", "train/c", "train/b"], "the section's whole order is kept");
  layout = movePanel(layout, metrics, "", "train/c", -1);
  assert.deepEqual(
    workspaceSections(metrics, layout, "")[0]![1].map((panel) => panel.id),
    ["train/c", "train/a", "train/b"],
  );
  // At a section's edge a panel stays: it never crosses into the next section.
  assert.equal(movePanel(layout, metrics, "", "train/c", -1), layout);
  assert.equal(movePanel(layout, metrics, "", "train/b", 1), layout);
  assert.equal(movePanel(layout, metrics, "", "val/loss", 1), layout);
  assert.equal(movePanel(layout, metrics, "", "nonexistent", 1), layout);
  // Another section's move leaves this one's order alone.
  layout = movePanel(layout, [...metrics, "val/acc"], "", "val/loss", -1);
  assert.deepEqual(idsBySection(workspaceSections([...metrics, "val/acc"], layout, "")).slice(0, 2), [
    ["train", ["train/c", "train/a", "train/b"]],
    ["val", ["val/loss", "val/acc"]],
  ]);
  // A new metric of a moved section comes after the placed ones; a gone one leaves no gap.
  const later = ["train/0new", "train/a", "train/c", "val/loss", "val/acc"];
  assert.deepEqual(
    workspaceSections(later, layout, "")[0]![1].map((panel) => panel.id),
    ["train/c", "train/a", "train/0new"],
  );
  // Kept through storage.
  assert.deepEqual(parseLayout(JSON.stringify(layout)), layout);
});

test("with a search on, a panel moves past the neighbour shown, wherever it sits in the whole section", () => {
  const metrics = ["train/a_loss", "train/b", "train/c", "train/d_loss", "train/e_loss"];
  // Shown: a_loss, d_loss, e_loss. Moving d_loss earlier puts it just before a_loss.
  const layout = movePanel(EMPTY_LAYOUT, metrics, "loss", "train/d_loss", -1);
  assert.deepEqual(
    workspaceSections(metrics, layout, "")[0]![1].map((panel) => panel.id),
    ["train/d_loss", "train/a_loss", "train/b", "train/c", "train/e_loss"],
  );
  // Moving a_loss later (shown neighbour d_loss… now before it; next shown: e_loss) puts it just after e_loss.
  const next = movePanel(layout, metrics, "loss", "train/a_loss", 1);
  assert.deepEqual(
    workspaceSections(metrics, next, "")[0]![1].map((panel) => panel.id),
    ["train/d_loss", "train/b", "train/c", "train/e_loss", "train/a_loss"],
  );
  // Added panels too: the neighbour is the next one the search shows.
  let custom = addCustomPanel(addCustomPanel(addCustomPanel(EMPTY_LAYOUT, ["x_loss"]), ["y"]), ["z_loss"]);
  custom = movePanel(custom, ["x_loss", "y", "z_loss"], "loss", "custom:3", -1);
  assert.deepEqual(
    custom.custom.map((panel) => panel.id),
    ["custom:3", "custom:1", "custom:2"],
  );
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
      cap: 1001,
      order: ["b", 3, "a", "b", null],
    }),
  );
  assert.deepEqual(read.order, ["b", "a"], "names only, each once");
  assert.deepEqual(parseLayout(JSON.stringify({ order: "train/loss" })).order, []);
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
  assert.deepEqual(step, { x: [0, 1, 2, 3], steps: [0, 1, 2, 3], y: [4, null, 2, 1], markers: [{ x: 1, kind: "+Inf" }] });
  const relative = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "relative" }, 990_000);
  assert.deepEqual(relative.x, [10, 20, 30, 40]);
  assert.deepEqual(relative.markers, [{ x: 20, kind: "+Inf" }]);
  const wall = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "wall" }, 0);
  assert.deepEqual(wall.x, [1000, 1010, 1020, 1030]);
  // x = epoch at the same step; step 3 has no epoch and step 0 a NaN one: both left out.
  const epoch = series({ logName: "epoch", steps: [0, 1, 2], values: [0, 0.5, 1], nonFiniteFlags: [1, 0, 0] });
  const byEpoch = lineOf(series({}), { ...DEFAULT_PANEL_OPTIONS, xAxis: "metric", xMetric: "epoch" }, 0, epoch);
  assert.deepEqual(byEpoch, { x: [0.5, 1], steps: [1, 2], y: [null, 2], markers: [{ x: 0.5, kind: "+Inf" }] });
  // A log scale cannot draw values ≤ 0.
  const log = lineOf(series({ values: [1, -1, 0, 2], nonFiniteFlags: [0, 0, 0, 0] }), { ...DEFAULT_PANEL_OPTIONS, logScale: true }, 0);
  assert.deepEqual(log.y, [1, null, null, 2]);
});

test("a downsampled line gets a min/max band per bucket; a raw one none", () => {
  const line = { x: [0, 1, 2, 3, 4, 5, 6, 7], steps: [0, 1, 2, 3, 4, 5, 6, 7], y: [1, 5, null, 2, 3, 9, 4, 4], markers: [] };
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

test("200 runs at the buckets they are read with take 39 metrics a request", () => {
  assert.equal(bucketsForRuns(200), 62);
  const plan = batchPlan(
    Array.from({ length: 200 }, (_, i) => i + 1),
    Array.from({ length: 40 }, (_, i) => `m${i}`),
    bucketsForRuns(200),
  );
  assert.deepEqual(
    plan.map((request) => request.logNames.length),
    [39, 1],
  ); // 200 × 39 × 251 ≤ 2,000,000
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

test("a zoomed x range not on steps reads the steps its drawn points cover, widened past the edges", () => {
  // Two runs against wall time (x in seconds); the second run's points are a sample (every 10th step).
  const first = { x: [100, 110, 120, 130, 140], steps: [0, 1, 2, 3, 4] };
  const second = { x: [105, 125, 145, 165], steps: [0, 10, 20, 30] };
  // Range 118–132: first has steps 2, 3 inside; second step 10 (x 125): steps 2–10. Widened to the
  // drawn points just beyond them in step order (1 and 0 below, 20 above): the window 0–20 holds
  // every point whose x can fall in the range, even between the second run's sampled points.
  assert.deepEqual(zoomStepWindow([first, second], 118, 132), [0, 20]);
  // Only the first run in range, at its ends: nothing beyond to widen to.
  assert.deepEqual(zoomStepWindow([first], 95, 101), [0, 1]);
  assert.deepEqual(zoomStepWindow([first], 139, 200), [3, 4]);
  assert.equal(zoomStepWindow([first, second], 200, 300), null, "no drawn point in range");
  assert.equal(zoomStepWindow([], 0, 1), null);
});

test("a zoomed line is clipped to its range, markers too", () => {
  const line = { x: [1, 2, 3, 4], steps: [10, 20, 30, 40], y: [5, null, 7, 8], markers: [{ x: 2, kind: "NaN" as const }] };
  assert.deepEqual(clipLine(line, 2, 3), { x: [2, 3], steps: [20, 30], y: [null, 7], markers: [{ x: 2, kind: "NaN" }] });
  assert.deepEqual(clipLine(line, 5, 6), { x: [], steps: [], y: [], markers: [] });
});
