import assert from "node:assert/strict";
import { test } from "node:test";
import { cellAt, heatColor, heatmapOf, MAX_BINS, parseHistogram, positionOf, sampleIndices, totalCount } from "./histogram.ts";

// What pluto-ml's Histogram.to_dict() sends, JSON-encoded into the data row's `data`.
const uniform = JSON.stringify({
  freq: [1, 3, 0, 4],
  maxFreq: 4,
  bins: { min: -1, max: 1, num: 4 },
  shape: "uniform",
  type: "Histogram",
  v: 1,
});
const generic = JSON.stringify({ freq: [2, 5], bins: [0, 1, 10], shape: "generic", type: "Histogram", v: 1 });

test("reads pluto-ml's uniform histograms into evenly spaced edges, and its generic ones as given", () => {
  assert.deepEqual(parseHistogram(uniform), { ok: true, value: { edges: [-1, -0.5, 0, 0.5, 1], counts: [1, 3, 0, 4] } });
  assert.deepEqual(parseHistogram(generic), { ok: true, value: { edges: [0, 1, 10], counts: [2, 5] } });
  const single = parseHistogram(JSON.stringify({ freq: [7], bins: { min: 2, max: 2, num: 1 } }));
  assert.deepEqual(single, { ok: true, value: { edges: [1.5, 2.5], counts: [7] } }, "one value logged: a bin around it");
});

test("a malformed histogram is an error naming what is wrong, never an exception", () => {
  const cases: [string, RegExp][] = [
    ["{", /not JSON/],
    ["[1,2]", /not a JSON object/],
    ["null", /not a JSON object/],
    ['{"bins":{"min":0,"max":1}}', /freq is not/],
    ['{"freq":[],"bins":{"min":0,"max":1}}', /freq is not/],
    ['{"freq":[1,-2],"bins":{"min":0,"max":1}}', /not a count/],
    ['{"freq":[1,"2"],"bins":{"min":0,"max":1}}', /not a count/],
    ['{"freq":[1,2]}', /neither/],
    ['{"freq":[1,2],"bins":[0,1]}', /3|2 bin edges for 2 counts/],
    ['{"freq":[1,2],"bins":[0,2,1]}', /do not increase/],
    ['{"freq":[1,2],"bins":[0,null,1]}', /not a finite number/],
    ['{"freq":[1,2],"bins":{"min":1,"max":0,"num":2}}', /below/],
    ['{"freq":[1,2],"bins":{"min":0,"max":1,"num":3}}', /bins.num is 3/],
    ['{"freq":[1],"bins":{"min":"a","max":1}}', /not a finite number/],
    ['{"freq":[1],"bins":{"min":0,"max":1e999}}', /not a finite number/],
    ['{"freq":[1,2],"bins":{"__proto__":{"min":0}}}', /not a finite number/],
  ];
  for (const [text, error] of cases) {
    const parsed = parseHistogram(text);
    assert.equal(parsed.ok, false, text);
    if (!parsed.ok) assert.match(parsed.error, error, text);
  }
  const huge = parseHistogram(JSON.stringify({ freq: Array(MAX_BINS + 1).fill(1), bins: { min: 0, max: 1 } }));
  assert.equal(huge.ok, false);
});

test("histograms spanning the whole double range keep finite edges and place their counts", () => {
  const parsed = parseHistogram(JSON.stringify({ freq: [1, 1], bins: { min: -1.7e308, max: 1.7e308, num: 2 } }));
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.deepEqual(parsed.value.edges, [-1.7e308, 0, 1.7e308]);
  const map = heatmapOf([{ step: 0, histogram: parsed.value }], 2)!;
  assert.deepEqual([...map.cells], [0.5, 0.5]);
  assert.equal(positionOf(1.7e308, -1.7e308, 1.7e308), 1);
});

test("samples at most the given number of indices, evenly, keeping the first and the last", () => {
  assert.deepEqual(sampleIndices(5, 10), [0, 1, 2, 3, 4]);
  assert.deepEqual(sampleIndices(11, 3), [0, 5, 10]);
  assert.deepEqual(sampleIndices(100_000, 1), [99_999]);
  assert.deepEqual(sampleIndices(0, 4), []);
  const picked = sampleIndices(100_000, 300);
  assert.ok(picked.length <= 300 && picked[0] === 0 && picked.at(-1) === 99_999);
});

test("a heatmap puts every step on one value grid, each column a share of its step's total", () => {
  const a = { edges: [0, 1, 2], counts: [1, 3] };
  const b = { edges: [2, 4], counts: [10] };
  const map = heatmapOf(
    [
      { step: 0, histogram: a },
      { step: 5, histogram: b },
    ],
    4,
  )!;
  assert.deepEqual(map.steps, [0, 5]);
  assert.equal(map.low, 0);
  assert.equal(map.high, 4);
  // Step 0: value bins [0,1) and [1,2) hold 1/4 and 3/4; step 5's one bin [2,4) spreads over rows 2 and 3.
  assert.deepEqual([...map.cells], [0.25, 0.75, 0, 0, 0, 0, 0.5, 0.5]);
  assert.equal(map.peak, 0.75);
  for (let column = 0; column < 2; column++) {
    const sum = [...map.cells.slice(column * 4, column * 4 + 4)].reduce((x, y) => x + y, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12, "each column sums to 1");
  }
  assert.equal(totalCount(a), 4);
  assert.equal(heatmapOf([], 4), undefined);
  const empty = heatmapOf([{ step: 1, histogram: { edges: [0, 1], counts: [0] } }], 3)!;
  assert.deepEqual([...empty.cells], [0, 0, 0], "a step with no samples is blank, not NaN");
});

test("the cell under the pointer: its step, value range and share; nothing outside the map", () => {
  const map = heatmapOf(
    [
      { step: 10, histogram: { edges: [0, 1, 2], counts: [1, 3] } },
      { step: 20, histogram: { edges: [2, 4], counts: [10] } },
    ],
    4,
  )!;
  // Top left: step 10's highest value row [3, 4), empty; bottom right: step 20's lowest [0, 1), empty.
  assert.deepEqual(cellAt(map, 0, 0), { step: 10, column: 0, from: 3, to: 4, share: 0 });
  assert.deepEqual(cellAt(map, 0.1, 0.7), { step: 10, column: 0, from: 1, to: 2, share: 0.75 });
  assert.deepEqual(cellAt(map, 0.9, 0.3), { step: 20, column: 1, from: 2, to: 3, share: 0.5 });
  assert.equal(cellAt(map, 1, 0.5), undefined);
  assert.equal(cellAt(map, -0.1, 0.5), undefined);
  assert.equal(cellAt(map, Number.NaN, 0.5), undefined);
});

test("heat colours darken with the share", () => {
  assert.equal(heatColor(0), "rgb(239, 246, 255)");
  assert.equal(heatColor(1), "rgb(30, 58, 138)");
  assert.equal(heatColor(2), heatColor(1));
});
