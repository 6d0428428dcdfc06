import assert from "node:assert/strict";
import { test } from "node:test";
import { RUN_PALETTE, runColor } from "./run-color.ts";

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
