import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkParsedJsonText, isStorableText } from "./text.js";

describe("storable text", () => {
  it("refuses NUL and unpaired surrogates, keeps every other character", () => {
    for (const good of ["", "plain", "tab\tnew\nline", "é 中文 　", "😀 a pair", "\uFFFD", "\u0001\u001f"])
      assert.equal(isStorableText(good), true, good);
    for (const bad of ["a\0b", "\0", "\uD800", "x\uD83Dy", "\uDE00", "😀\uDE00", "\uDE00\uD83D"])
      assert.equal(isStorableText(bad), false, JSON.stringify(bad));
  });

  it("walks values and keys of parsed JSON only when the text has a \\u escape", () => {
    const check = (raw: string) => () => checkParsedJsonText(raw, JSON.parse(raw), "body");
    assert.doesNotThrow(check('{"a":["\\u00e9",{"b":"\\ud83d\\ude00"}]}'));
    assert.throws(check('{"a":[1,{"b":"x\\u0000"}]}'), /body\.a\[1\]\.b: text must not contain U\+0000/);
    assert.throws(check('{"\\u0000":1}'), /body \(a key\): text must not/);
    assert.throws(check('["\\ud800"]'), /body\[0\]: text must not/);
    assert.throws(check('"\\udfff"'), /body: text must not/);
    // Without an escape the walk is skipped: such text cannot hold either.
    assert.doesNotThrow(() => checkParsedJsonText("{}", { a: "\0" }, "body"));
  });
});
