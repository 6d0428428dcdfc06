import assert from "node:assert/strict";
import { test } from "node:test";
import { contrast, DARK_RUN_PALETTE, RUN_PALETTE, readableOn, runColor } from "./run-color.ts";

test("a run's colour depends on its ID only, the same on every call", () => {
  for (const id of [1, 2, 17, 123456, 2 ** 31 - 1]) {
    assert.equal(runColor(id), runColor(id));
    assert.ok(RUN_PALETTE.includes(runColor(id) as (typeof RUN_PALETTE)[number]));
  }
});

test("the colour does not follow a run's position: reordering a list keeps every run's colour", () => {
  const ids = [5, 9, 12, 40, 41];
  const before = new Map(ids.map((id) => [id, runColor(id)]));
  for (const id of [...ids].reverse()) assert.equal(runColor(id), before.get(id));
});

test("consecutive IDs spread over the palette", () => {
  const colours = new Set(Array.from({ length: 40 }, (_, i) => runColor(1000 + i)));
  assert.ok(colours.size >= 14, `40 consecutive runs use ${colours.size} of ${RUN_PALETTE.length} colours`);
  // Neighbours rarely share a colour.
  let same = 0;
  for (let id = 1; id < 200; id++) if (runColor(id) === runColor(id + 1)) same++;
  assert.ok(same < 20, `${same} of 199 neighbouring pairs share a colour`);
});

test("the palette has no duplicate colours", () => {
  assert.equal(new Set(RUN_PALETTE).size, RUN_PALETTE.length);
});

test("the dark scheme draws every run colour at 3:1 contrast or more on its surface, the same run in the same hue", () => {
  assert.ok(contrast("#393b79", "#1f2937") < 2, "the darkest palette colour nearly vanishes on the dark surface");
  for (const [i, color] of DARK_RUN_PALETTE.entries()) {
    assert.ok(contrast(color, "#1f2937") >= 3, `${RUN_PALETTE[i]} → ${color}`);
    if (contrast(RUN_PALETTE[i]!, "#1f2937") >= 3) assert.equal(color, RUN_PALETTE[i], "a readable colour is kept");
  }
  assert.equal(new Set(DARK_RUN_PALETTE).size, DARK_RUN_PALETTE.length, "still twenty distinct colours");
  for (const id of [1, 17, 123456]) assert.equal(runColor(id, true), DARK_RUN_PALETTE[RUN_PALETTE.indexOf(runColor(id, false) as never)]);
});

test("contrast and readableOn follow WCAG's formulas", () => {
  assert.equal(contrast("#000000", "#ffffff"), 21);
  assert.equal(contrast("#777777", "#777777"), 1);
  assert.equal(readableOn("#000000", "#000000", 21), "#ffffff");
  assert.equal(readableOn("#ffffff", "#000000", 3), "#ffffff", "already readable: unchanged");
});
