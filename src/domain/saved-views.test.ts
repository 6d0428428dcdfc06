import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import { MAX_VIEW_NAME_LENGTH, MAX_VIEW_STATE_BYTES, viewName, viewStateText } from "./saved-views.js";

const code = (code: string) => (error: unknown) => error instanceof DomainError && error.code === code;

describe("saved view rules", () => {
  it("keeps a name trimmed, refuses an empty or too long one", () => {
    assert.equal(viewName("  loss curves "), "loss curves");
    assert.throws(() => viewName("   "), code("INVALID_INPUT"));
    assert.equal(viewName("x".repeat(MAX_VIEW_NAME_LENGTH)).length, MAX_VIEW_NAME_LENGTH);
    assert.throws(() => viewName("x".repeat(MAX_VIEW_NAME_LENGTH + 1)), code("INVALID_INPUT"));
  });

  it("stores a state object as its JSON text, and nothing but an object", () => {
    assert.equal(viewStateText({ columns: [], layout: { cap: 20 } }), '{"columns":[],"layout":{"cap":20}}');
    for (const state of [null, [], "text", 3, true]) assert.throws(() => viewStateText(state), code("INVALID_INPUT"), String(state));
  });

  it("bounds the state in UTF-8 bytes, not characters", () => {
    const fits = { s: "x".repeat(MAX_VIEW_STATE_BYTES - '{"s":""}'.length) };
    assert.equal(Buffer.byteLength(viewStateText(fits)), MAX_VIEW_STATE_BYTES);
    assert.throws(() => viewStateText({ s: `${fits.s}x` }), code("PAYLOAD_TOO_LARGE"));
    // Two bytes a character: half as many characters already exceed the bound.
    assert.throws(() => viewStateText({ s: "é".repeat(MAX_VIEW_STATE_BYTES / 2) }), code("PAYLOAD_TOO_LARGE"));
  });
});
