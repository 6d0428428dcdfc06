import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkJsonDepth, MAX_JSON_DEPTH } from "./json-depth.js";

const nested = (levels: number): unknown => JSON.parse(`${'{"a":['.repeat(levels / 2)}1${"]}".repeat(levels / 2)}`);

describe("checkJsonDepth", () => {
  it("accepts scalars and values nested up to the limit", () => {
    for (const value of [null, 1, "text", [], {}, nested(MAX_JSON_DEPTH)]) assert.doesNotThrow(() => checkJsonDepth(value, "config"));
  });

  it("refuses one level more, naming the field, at any depth without overflowing", () => {
    for (const levels of [MAX_JSON_DEPTH + 2, 200_000]) {
      assert.throws(
        () => checkJsonDepth(nested(levels), "config"),
        (error: Error) => error.message === `config: nested deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    assert.throws(() => checkJsonDepth([1, { a: nested(MAX_JSON_DEPTH) }], "body"), /body: nested deeper/);
    assert.throws(() => checkJsonDepth([nested(MAX_JSON_DEPTH)], "body"), /body: nested deeper/);
    assert.doesNotThrow(() => checkJsonDepth([[1], nested(MAX_JSON_DEPTH - 2)], "body"));
  });
});
