import assert from "node:assert/strict";
import { test } from "node:test";
import {
  alignSeries,
  drawnAxis,
  lastStep,
  mergePoints,
  nonFiniteKind,
  logSplits,
  overlayRuns,
  pointsOfBatch,
  runSeries,
  stepsOfRange,
  toSeries,
  type Point,
} from "./series.ts";

const point = (step: number, value: number, nonFiniteFlags = 0): Point => ({
  step,
  value,
  nonFiniteFlags,
  time: new Date(1_700_000_000_000 + step * 1000).toISOString(),
});

test("non-finite points become markers and gaps in the line, never values", () => {
  const series = toSeries([point(0, 1), point(1, 0, 1), point(2, 0, 2), point(3, 0, 4), point(4, 2)], "step");
  assert.deepEqual(series.x, [0, 1, 2, 3, 4]);
  assert.deepEqual(series.y, [1, null, null, null, 2]);
  assert.deepEqual(series.markers, [
    { x: 1, kind: "NaN" },
    { x: 2, kind: "+Inf" },
    { x: 3, kind: "-Inf" },
  ]);
  assert.equal(nonFiniteKind(0), null);
});

test("a log scale drops non-positive values; the time axis is in seconds", () => {
  assert.deepEqual(toSeries([point(0, -1), point(1, 0), point(2, 3)], "step", true).y, [null, null, 3]);
  assert.deepEqual(toSeries([point(0, 1)], "time").x, [1_700_000_000]);
});

test("merging keeps step order and lets a re-sent step replace its value", () => {
  const merged = mergePoints([point(0, 1), point(2, 3)], [point(2, 30), point(3, 4), point(1, 2)]);
  assert.deepEqual(
    merged.map((p) => [p.step, p.value]),
    [
      [0, 1],
      [1, 2],
      [2, 30],
      [3, 4],
    ],
  );
  assert.equal(lastStep(merged), 3);
  assert.equal(lastStep([]), -1);
});

test("merging keeps every point of a step that holds several, in time order, the incoming ones replacing the step", () => {
  const at = (step: number, seconds: number, value: number) => ({ ...point(step, value), time: new Date(seconds * 1000).toISOString() });
  const merged = mergePoints([at(0, 1, 1), at(0, 2, 2)], [at(0, 1, 1), at(0, 2, 2), at(0, 3, 3)]);
  assert.deepEqual(
    merged.map((p) => p.value),
    [1, 2, 3],
  );
});

test("a chart whose points all sit at one step is drawn against time", () => {
  assert.equal(drawnAxis("step", [[0, 0, 0]], "time"), "time");
  assert.equal(drawnAxis("step", [[0, 0], [0]], "wall"), "wall");
  assert.equal(drawnAxis("step", [[0], [0]], "time"), "step", "one point per run: a step axis is fine");
  assert.equal(drawnAxis("step", [[0, 1]], "time"), "step");
  assert.equal(drawnAxis("step", [], "time"), "step");
  assert.equal(drawnAxis("relative", [[0, 0]], "wall"), "relative");
  assert.equal(drawnAxis("step", [[0, 1, 2]], "time", ["sys/cpu.percentage.avg"]), "time", "system metrics: against time");
  assert.equal(drawnAxis("step", [[0, 1, 2]], "wall", ["sys/gpu", "train/loss"]), "step", "a panel mixing them keeps steps");
});

test("aligning runs unions their x values and fills the rest with null", () => {
  const a = { x: [0, 2], y: [1, 3], markers: [] };
  const b = { x: [1, 2], y: [10, null], markers: [] };
  assert.deepEqual(alignSeries([a, b]), [
    [0, 1, 2],
    [1, null, 3],
    [null, 10, null],
  ]);
});

test("smoothing keeps the raw line, faint, behind the smoothed one; markers take the run's color", () => {
  const points = [point(0, 1), point(1, 0, 1), point(2, 3)];
  const plain = runSeries(points, { xAxis: "step", smoothing: 0, logScale: false }, "loss", "#123456");
  assert.deepEqual(plain.lines, [{ label: "loss", values: [1, null, 3], color: "#123456" }]);
  assert.deepEqual(plain.markers, [{ x: 1, kind: "NaN", color: "#123456", label: "loss" }]);
  const smoothed = runSeries(points, { xAxis: "step", smoothing: 0.5, logScale: false }, "loss", "#123456");
  assert.deepEqual(
    smoothed.lines.map((line) => [line.label, line.faint ?? false]),
    [
      ["loss (raw)", true],
      ["loss", false],
    ],
  );
  assert.ok(smoothed.lines[1]!.values[2]! < 3 && smoothed.lines[1]!.values[2]! > 1);
});

test("a dragged range becomes the whole steps inside it, through the points' times on a time axis", () => {
  assert.deepEqual(stepsOfRange([], "step", 10.2, 20.7), [11, 20]);
  assert.deepEqual(stepsOfRange([], "step", -3, 2), [0, 2]);
  const points = [0, 1, 2, 3, 4].map((step) => point(step * 10, step));
  assert.deepEqual(stepsOfRange(points, "time", 1_700_000_005, 1_700_000_031), [10, 30]);
  assert.equal(stepsOfRange(points, "time", 1_800_000_000, 1_800_000_001), null);
});

test("no step from points to an overlaid chart drops a non-finite point", () => {
  // 3,000 steps with one +Inf at 1501 and a NaN at the end, as the server's sampler returns them at 1,000 points.
  const sampled = [...Array.from({ length: 999 }, (_, i) => point(i * 3, Math.sin(i))), point(1501, 0, 2), point(2999, 0, 1)].sort(
    (a, b) => a.step - b.step,
  );
  const live = mergePoints(sampled, [point(3000, 0, 4)]); // a live update adds a -Inf
  const settings = [
    { xAxis: "step", smoothing: 0, logScale: false },
    { xAxis: "step", smoothing: 0.9, logScale: true },
    { xAxis: "time", smoothing: 0.5, logScale: false },
  ] as const;
  for (const chartSettings of settings) {
    const a = runSeries(live, chartSettings, "a", "#111111");
    const b = runSeries([point(0, 1), point(1500, 0, 1)], chartSettings, "b", "#222222");
    const overlay = overlayRuns([a, b]);
    const kinds = overlay.markers.map((marker) => `${marker.label}:${marker.kind}:${marker.color}`);
    assert.deepEqual(kinds, ["a:+Inf:#111111", "a:NaN:#111111", "a:-Inf:#111111", "b:NaN:#222222"], JSON.stringify(chartSettings));
    for (const marker of overlay.markers) assert.ok(overlay.x.includes(marker.x), "every marker lies on the shared x axis");
    assert.equal(overlay.lines.length, chartSettings.smoothing > 0 ? 4 : 2);
    for (const line of overlay.lines) {
      assert.equal(line.values.length, overlay.x.length);
      // A line's own points (drawn instead of walking the shared axis) agree with its aligned values.
      assert.ok(line.own && line.own.x.length > 0, "each line carries its own points");
      for (const [i, x] of line.own.x.entries()) assert.equal(line.values[overlay.x.indexOf(x)], line.own.y[i]);
    }
  }
});

test("log axis ticks: whole decades, thinned to at most six; geometric values inside two decades", () => {
  assert.deepEqual(logSplits(1e-18, 10), [1e-15, 1e-11, 1e-7, 1e-3, 10]);
  assert.deepEqual(logSplits(0.001, 1), [0.001, 0.01, 0.1, 1]);
  const narrow = logSplits(2, 9);
  assert.ok(narrow.length >= 4 && narrow.every((value) => value >= 2 && value <= 9), `${narrow}`);
  assert.deepEqual(logSplits(0, 1), []);
  assert.deepEqual(logSplits(5, 5), []);
});

test("pointsOfBatch turns the batch read's parallel arrays into the points of /api/runs/metrics", () => {
  const series = { steps: [3, 4], values: [0.5, 0], nonFiniteFlags: [0, 2], times: [1_700_000_000_000, 1_700_000_001_000] };
  assert.deepEqual(pointsOfBatch(series), [
    { step: 3, time: "2023-11-14T22:13:20.000Z", value: 0.5, nonFiniteFlags: 0 },
    { step: 4, time: "2023-11-14T22:13:21.000Z", value: 0, nonFiniteFlags: 2 },
  ]);
});
