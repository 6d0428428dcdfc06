import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Sqids from "sqids";
import { decodeRunId, displayPrefix, encodeRunId, formatDisplayId, parseDisplayId } from "./ids.js";

describe("encoded run IDs", () => {
  it("uses the sqids default alphabet with minimum length 5", () => {
    assert.equal(encodeRunId(1), "UkLWZ");
    assert.equal(encodeRunId(42), "JgaEB");
    assert.equal(decodeRunId("UkLWZ"), 1);
    assert.equal(decodeRunId("JgaEB"), 42);
  });

  it("round-trips many IDs, small and large", () => {
    const ids = [...Array.from({ length: 2000 }, (_, i) => i + 1), 65_535, 2 ** 31, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    for (const id of ids) {
      const encoded = encodeRunId(id);
      assert.ok(encoded.length >= 5, `${id} → ${encoded}`);
      assert.equal(decodeRunId(encoded), id, `${id} → ${encoded}`);
    }
  });

  it("rejects strings sqids decodes but that are not the canonical encoding of one ID", () => {
    const sqids = new Sqids({ minLength: 5 });
    // Each of these decodes to something with the library, so only the canonical check rejects it.
    for (const text of ["UkLW", "JgaEBx", "ukLWZ"]) {
      assert.ok(sqids.decode(text).length > 0, `precondition: sqids decodes '${text}'`);
      assert.equal(decodeRunId(text), undefined, text);
    }
  });

  it("rejects encodings of several numbers, of zero, and garbage", () => {
    assert.equal(decodeRunId(new Sqids({ minLength: 5 }).encode([1, 2])), undefined);
    assert.equal(decodeRunId(new Sqids({ minLength: 5 }).encode([0])), undefined);
    for (const text of ["", "!!!!!", "UkLWZ ", " UkLWZ", "12345", "UkLWZ/1"])
      assert.equal(decodeRunId(text), undefined, JSON.stringify(text));
  });

  it("never throws on arbitrary input, and accepts only strings that re-encode to themselves", () => {
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~é";
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      const id = decodeRunId(text);
      if (id === undefined) continue;
      accepted++;
      assert.equal(encodeRunId(id), text);
    }
    assert.ok(accepted < 200, `${accepted} random strings accepted`);
  });
});

describe("displayPrefix", () => {
  const examples: [string, string][] = [
    ["my-ml-project", "MMP"],
    ["training", "TRA"],
    ["resnet-50", "R50"],
    ["my-project", "MPR"],
    ["a-b", "AB"],
    ["ai", "AI"],
    ["my-ml_project.v2", "MMPV"],
    ["", "RUN"],
    ["---", "RUN"],
  ];
  for (const [name, prefix] of examples) {
    it(`${JSON.stringify(name)} → ${prefix}`, () => assert.equal(displayPrefix(name), prefix));
  }

  it("splits on spaces too and caps at four initials", () => {
    assert.equal(displayPrefix("deep learning image model v5"), "DLIM");
    assert.equal(displayPrefix("x y"), "XY");
  });

  it("splits on every whitespace, so each prefix parses back", () => {
    for (const [name, prefix] of [
      ["\tab", "AB"],
      ["\u00a0nbsp name", "NNA"],
      ["\u3000画像\u3000分類", "画分類"],
      ["x\u2003y\nz", "XYZ"],
    ] as const) {
      assert.equal(displayPrefix(name), prefix);
      assert.deepEqual(parseDisplayId(formatDisplayId(displayPrefix(name), 1)), { prefix, number: 1 });
    }
  });
});

describe("parseDisplayId", () => {
  it("splits <PREFIX>-<NUMBER> and upper-cases the prefix", () => {
    assert.deepEqual(parseDisplayId("MMP-12"), { prefix: "MMP", number: 12 });
    assert.deepEqual(parseDisplayId("mpr-3"), { prefix: "MPR", number: 3 });
  });

  it("round-trips formatDisplayId, including prefixes with digits", () => {
    for (const [prefix, number] of [
      ["R50", 7],
      ["RUN", 1],
      ["MMPV", 123456],
    ] as const) {
      assert.deepEqual(parseDisplayId(formatDisplayId(prefix, number)), { prefix, number });
    }
  });

  it("accepts every prefix displayPrefix can produce, non-ASCII included", () => {
    for (const name of ["my-ml-project", "ünïcode-test", "🚀 launch", "c++", "x", "ß-ß-ß-ß"]) {
      const prefix = displayPrefix(name);
      assert.deepEqual(parseDisplayId(`${prefix}-9`), { prefix, number: 9 }, name);
    }
  });

  it("rejects what is not <PREFIX>-<NUMBER> with a positive number", () => {
    for (const text of ["", "MMP", "MMP-", "-1", "MMP-0", "MMP-x", "MMP-1.5", "MMP--1", "M_P-1", "M P-1", "MMP-1234567890123456"]) {
      assert.equal(parseDisplayId(text), undefined, JSON.stringify(text));
    }
  });
});
