import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nonFiniteFlags, valueFlag, valueFlagOfFlags } from "./non-finite.js";

describe("valueFlagOfFlags", () => {
  it("reads back the flags nonFiniteFlags writes, as valueFlag spells them", () => {
    for (const value of [Number.NaN, Infinity, -Infinity, 0, -1.5, 1e308]) {
      assert.equal(valueFlagOfFlags(nonFiniteFlags(value)), valueFlag(value), String(value));
    }
  });
});
