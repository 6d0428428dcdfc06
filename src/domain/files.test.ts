import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkFileName, contentDispositionOf, contentTypeOfFile, isSafeInline, logTypeOfFile } from "./files.js";

describe("file types", () => {
  it("lists files under a log type from extensions and media types", () => {
    const cases: [string, string][] = [
      ["png", "IMAGE"],
      [".JPG", "IMAGE"],
      ["image/webp", "IMAGE"],
      ["mp4", "VIDEO"],
      ["video/x-raw", "VIDEO"],
      ["wav", "AUDIO"],
      ["txt", "TEXT"],
      ["text/markdown", "TEXT"],
      ["mask", "FILE"],
      ["", "FILE"],
      ["ckpt", "FILE"],
    ];
    for (const [fileType, logType] of cases) assert.equal(logTypeOfFile(fileType), logType, fileType);
  });

  it("serves a declared media type, else one known from the extension, else bytes", () => {
    assert.equal(contentTypeOfFile("image/png", "x"), "image/png");
    assert.equal(contentTypeOfFile("jpg", "x"), "image/jpeg");
    assert.equal(contentTypeOfFile("", "photo.PNG"), "image/png");
    assert.equal(contentTypeOfFile("mask", "m.bin"), "application/octet-stream");
  });

  it("finds no content type under an Object.prototype name", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      assert.equal(contentTypeOfFile(name, "x"), "application/octet-stream", name);
      assert.equal(contentTypeOfFile("", `x.${name}`), "application/octet-stream", name);
    }
  });

  it("shows only script-free types inline", () => {
    assert.ok(isSafeInline("image/png"));
    assert.ok(!isSafeInline("image/svg+xml"));
    assert.ok(!isSafeInline("text/html; charset=utf-8"));
    assert.ok(!isSafeInline("application/octet-stream"));
  });
});

describe("checkFileName", () => {
  it("accepts labels, nested ones included", () => {
    for (const name of ["a.png", "sub/dir/b.png", "..hidden", "x..y", "日本.txt"])
      assert.doesNotThrow(() => checkFileName(name, "f"), name);
  });

  it("refuses path escapes, absolute paths and control characters, naming the field", () => {
    for (const name of ["", "..", "../a", "a/../b", "./a", "/etc/passwd", "C:\\x", "c:x", "a\\b", "a\u0000b", "x".repeat(256)]) {
      assert.throws(() => checkFileName(name, "files[3].fileName"), /files\[3\]\.fileName/, JSON.stringify(name));
    }
  });
});

describe("contentDispositionOf", () => {
  it("shows safe types inline and downloads the rest, under the last segment of the name", () => {
    assert.equal(contentDispositionOf("image/png", "samples/cat 1.png"), "inline; filename*=UTF-8''cat%201.png");
    assert.equal(contentDispositionOf("image/svg+xml", "x.svg"), "attachment; filename*=UTF-8''x.svg");
    assert.equal(contentDispositionOf("text/html; charset=utf-8", "ä.html"), "attachment; filename*=UTF-8''%C3%A4.html");
  });
});
