import assert from "node:assert/strict";
import { test } from "node:test";
import { clipRange, gapStarts, MIN_GAP_SECONDS, outsideNote, segmentsOf, sideOf } from "./chart-marks.ts";

const DAY = 86_400;

test("a resumed run's segments days apart break the line; the usual spacing does not", () => {
  const first = Array.from({ length: 50 }, (_, i) => 1_700_000_000 + i * 10);
  const second = Array.from({ length: 50 }, (_, i) => 1_700_000_000 + 3 * DAY + i * 10);
  assert.deepEqual(gapStarts([...first, ...second]), [50]);
  assert.deepEqual(gapStarts(first), []);
  // Three segments: a fork's parent, the fork, a resume.
  const third = second.map((x) => x + 2 * DAY);
  assert.deepEqual(gapStarts([...first, ...second, ...third]), [50, 100]);
});

test("a gap must also be longer than the minimum: a fast run's short pause is no break", () => {
  // One point a second, then a 10-minute pause: 600 × the spacing, but under 15 minutes.
  const x = [...Array.from({ length: 20 }, (_, i) => i), ...Array.from({ length: 20 }, (_, i) => 619 + i)];
  assert.deepEqual(gapStarts(x), []);
  assert.deepEqual(gapStarts(x, 20, 60), [20], "with a one-minute minimum it is one");
  // Hourly points (a slow validation metric) stay joined: the gap is their usual spacing.
  assert.deepEqual(gapStarts(Array.from({ length: 10 }, (_, i) => i * 3600)), []);
  assert.ok(MIN_GAP_SECONDS >= 600);
});

test("one long gap among two spacings is a gap (the lower median); two points never are", () => {
  assert.deepEqual(gapStarts([0, 60, 60 + 3 * DAY]), [2]);
  assert.deepEqual(gapStarts([0, 3 * DAY]), []);
  assert.deepEqual(gapStarts([]), []);
});

test("segments cover the line between gap starts", () => {
  assert.deepEqual(segmentsOf(10, [4, 7]), [
    [0, 4],
    [4, 7],
    [7, 10],
  ]);
  assert.deepEqual(segmentsOf(3, []), [[0, 3]]);
  assert.deepEqual(segmentsOf(0, []), []);
});

test("the clipped range holds the bulk with a margin and leaves spikes outside", () => {
  const values = [...Array.from({ length: 500 }, (_, i) => 1 + (i % 10) / 10), 1e6, -5e5, 2e6];
  const range = clipRange(values, false)!;
  assert.ok(range[0] < 1 && range[0] > 0.8, `low: ${range}`);
  assert.ok(range[1] > 1.9 && range[1] < 2.1, `high: ${range}`);
  assert.equal(values.filter((value) => sideOf(value, range) === 1).length, 2);
  assert.equal(values.filter((value) => sideOf(value, range) === -1).length, 1);
});

test("no clipping when nothing lies outside; non-finite and missing values are ignored", () => {
  assert.equal(clipRange([1, 2, 3, 4], false), null);
  assert.equal(clipRange([null, undefined, Number.NaN, Infinity], false), null);
  assert.equal(clipRange([5, 5, 5], false), null, "a flat series");
  assert.equal(sideOf(null, [0, 1]), 0);
});

test("on a log scale the range is taken in decades over the positive values", () => {
  const values = [...Array.from({ length: 300 }, (_, i) => 10 ** -(i % 3)), 1e9, -1, 0];
  const range = clipRange(values, true)!;
  assert.ok(range[0] > 0 && range[0] < 0.01, `low: ${range}`);
  assert.ok(range[1] > 1 && range[1] < 10, `high: ${range}`);
  assert.equal(sideOf(1e9, range), 1);
});

test("the outside note counts both sides", () => {
  assert.equal(outsideNote(0, 0), null);
  assert.equal(outsideNote(1, 0), "1 point outside the clipped range (1 above)");
  assert.equal(outsideNote(2, 1), "3 points outside the clipped range (2 above, 1 below)");
});
