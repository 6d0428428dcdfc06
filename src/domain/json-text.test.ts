import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import { parseJsonText } from "./json-text.js";

describe("parseJsonText", () => {
  it("parses JSON text of any value", () => {
    assert.deepEqual(parseJsonText('{"lr": 0.1, "layers": [1, 2], "nested": {"a": null}}', "config"), {
      lr: 0.1,
      layers: [1, 2],
      nested: { a: null },
    });
    assert.deepEqual(parseJsonText("[1, 2]", "config"), [1, 2]);
    assert.equal(parseJsonText("3.5", "config"), 3.5);
    assert.equal(parseJsonText('"text"', "config"), "text");
    assert.equal(parseJsonText("false", "config"), false);
  });

  it("treats absent, null, empty, blank and the text null as no value", () => {
    for (const text of [undefined, null, "", "   ", "null", " null "])
      assert.equal(parseJsonText(text, "config"), undefined, JSON.stringify(text));
  });

  it("rejects invalid JSON with an INVALID_INPUT error that names the field", () => {
    for (const text of ["{", "{'a': 1}", "NaN", "undefined", "[1,]", '{"a": 1} trailing']) {
      assert.throws(
        () => parseJsonText(text, "systemMetadata"),
        (error: unknown) => error instanceof DomainError && error.code === "INVALID_INPUT" && error.message.startsWith("systemMetadata:"),
        text,
      );
    }
  });
});
