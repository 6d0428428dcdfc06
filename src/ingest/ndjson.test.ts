import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DomainError } from "../domain/errors.js";
import { parseNdjson, quoteNonFiniteTokens } from "./ndjson.js";

const collect = async (body: string) => {
  const lines: [Record<string, unknown>, number][] = [];
  await parseNdjson(body, (value, n) => lines.push([value, n]));
  return lines;
};

describe("quoteNonFiniteTokens", async () => {
  it("quotes bare tokens outside strings only", async () => {
    assert.equal(quoteNonFiniteTokens('{"a": NaN, "b": -Infinity, "c": Infinity}'), '{"a": "NaN", "b": "-Infinity", "c": "Infinity"}');
    assert.equal(quoteNonFiniteTokens('{"NaN is \\"Infinity\\"": -5}'), '{"NaN is \\"Infinity\\"": -5}');
    assert.equal(quoteNonFiniteTokens('{"a":[NaN,1]}'), '{"a":["NaN",1]}');
  });
});

describe("parseNdjson", async () => {
  it("skips blank lines, counts a final line without newline, and numbers lines from 1", async () => {
    const lines = await collect('{"a":1}\n\n  \n{"a":2}');
    assert.deepEqual(lines, [
      [{ a: 1 }, 1],
      [{ a: 2 }, 4],
    ]);
  });

  it("names the bad line", async () => {
    await assert.rejects(
      collect('{"a":1}\n{"a":'),
      (error: DomainError) => error.code === "INVALID_INPUT" && error.message.startsWith("line 2:"),
    );
    await assert.rejects(collect('{"a":1}\n[1]'), /line 2: must be a JSON object/);
    await assert.rejects(collect("null"), /line 1: must be a JSON object/);
  });

  it("accepts CRLF line endings", async () => {
    assert.deepEqual(
      (await collect('{"a":1}\r\n{"a":2}\r\n')).map(([v]) => v),
      [{ a: 1 }, { a: 2 }],
    );
  });
});
