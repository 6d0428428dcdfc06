import assert from "node:assert/strict";
import { test } from "node:test";
import { assignRunColors, contrast, DARK_RUN_PALETTE, parsePickedColors, RUN_PALETTE, readableOn, runColor } from "./run-color.ts";

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
  for (const id of [1, 17, 123456])
    assert.equal(runColor(id, undefined, true), DARK_RUN_PALETTE[RUN_PALETTE.indexOf(runColor(id, undefined, false) as never)]);
});

test("contrast and readableOn follow WCAG's formulas", () => {
  assert.equal(contrast("#000000", "#ffffff"), 21);
  assert.equal(contrast("#777777", "#777777"), 1);
  assert.equal(readableOn("#000000", "#000000", 21), "#ffffff");
  assert.equal(readableOn("#ffffff", "#000000", 3), "#ffffff", "already readable: unchanged");
});

test("runs drawn together: 20 runs take 20 distinct colours, whatever their IDs (a hash gave 12 of 20 a shared colour)", () => {
  for (const ids of [
    Array.from({ length: 20 }, (_, i) => i + 1),
    Array.from({ length: 20 }, (_, i) => 1000 + i * 37),
    [3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765, 10946, 17711, 28657],
  ]) {
    const colors = assignRunColors(ids, new Map(), false);
    assert.equal(new Set(colors.values()).size, 20);
  }
});

test("runs drawn together keep their colours in any order; past 20 a colour is reused 20 runs apart", () => {
  const ids = Array.from({ length: 45 }, (_, i) => 7 + i * 3);
  const colors = assignRunColors(ids, new Map(), false);
  assert.deepEqual(assignRunColors([...ids].reverse(), new Map(), false), colors);
  const sorted = [...ids].sort((a, b) => a - b);
  for (const [i, id] of sorted.entries()) {
    const sharing = sorted.filter((other) => colors.get(other) === colors.get(id));
    assert.ok(sharing.length <= 3);
    if (i >= 20) assert.equal(colors.get(id), colors.get(sorted[i - 20]!));
  }
});

test("a picked colour is kept and no other run of the first 20 takes it", () => {
  const ids = Array.from({ length: 20 }, (_, i) => i + 1);
  const picked = new Map([
    [5, RUN_PALETTE[0] as string],
    [9, "#123456"],
  ]);
  const colors = assignRunColors(ids, picked, false);
  assert.equal(colors.get(5), RUN_PALETTE[0]);
  assert.equal(colors.get(9), "#123456");
  const others = ids.filter((id) => id !== 5 && id !== 9).map((id) => colors.get(id));
  assert.ok(!others.includes(RUN_PALETTE[0]), "the picked palette colour is not handed out again");
  assert.equal(new Set(others).size, others.length);
  // The dark scheme lightens a picked colour as it does the palette.
  assert.ok(contrast(assignRunColors([9], new Map([[9, "#123456"]]), true).get(9)!, "#1f2937") >= 3);
});

test("stored colour picks keep well-formed pairs only", () => {
  assert.deepEqual(parsePickedColors(null), new Map());
  assert.deepEqual(parsePickedColors("not json"), new Map());
  assert.deepEqual(parsePickedColors('{"1":"#ffffff"}'), new Map());
  assert.deepEqual(
    parsePickedColors('[[1,"#a0B0c0"],[2,"red"],["3","#000000"],[4,"#0000001"],[1.5,"#000000"],[5,"#00ff00"]]'),
    new Map([
      [1, "#a0B0c0"],
      [5, "#00ff00"],
    ]),
  );
});
