import assert from "node:assert/strict";
import { test } from "node:test";
import { hasAnsi, parseAnsi, plainText, spanClasses, xterm256 } from "./ansi.ts";

const ESC = "\u001b";

test("a plain line is one span of its text", () => {
  assert.deepEqual(parseAnsi("epoch 3 done"), [{ text: "epoch 3 done" }]);
  assert.deepEqual(parseAnsi(""), []);
  assert.equal(hasAnsi("epoch 3 done"), false);
});

test("foreground colours 30–37 and 90–97, reset by 39 and 0", () => {
  assert.deepEqual(parseAnsi(`${ESC}[31mError${ESC}[39m: x ${ESC}[92mok${ESC}[0m.`), [
    { text: "Error", fg: 1 },
    { text: ": x " },
    { text: "ok", fg: 10 },
    { text: "." },
  ]);
});

test("bold, several parameters in one sequence, and an empty sequence resets", () => {
  assert.deepEqual(parseAnsi(`${ESC}[1;33mWARN${ESC}[m rest`), [{ text: "WARN", fg: 3, bold: true }, { text: " rest" }]);
  assert.deepEqual(parseAnsi(`${ESC}[1mA${ESC}[22mB`), [{ text: "A", bold: true }, { text: "B" }]);
});

test("backgrounds and 256 colours; 24-bit colours are skipped whole", () => {
  assert.deepEqual(parseAnsi(`${ESC}[41;97mX${ESC}[38;5;208mY${ESC}[48;5;17mZ`), [
    { text: "X", fg: 15, bg: 1 },
    { text: "Y", fg: 208, bg: 1 },
    { text: "Z", fg: 208, bg: 17 },
  ]);
  assert.deepEqual(parseAnsi(`${ESC}[38;2;255;0;0;1mR`), [{ text: "R", bold: true }]);
  assert.deepEqual(parseAnsi(`${ESC}[38;5;999mQ`), [{ text: "Q" }], "an out-of-range colour is ignored");
});

test("other escape sequences and a lone ESC never reach the text", () => {
  assert.deepEqual(parseAnsi(`a${ESC}[2Kb${ESC}[1Ac${ESC}d${ESC}[?25l`), [{ text: "abcd" }]);
  assert.deepEqual(parseAnsi(`100%${ESC}[`), [{ text: "100%[" }], "an unfinished sequence drops only the ESC");
});

test("the plain text of a line is what it shows, so a search finds `RuntimeError: CUDA` across a colour change", () => {
  assert.equal(plainText(`${ESC}[1;31mRuntimeError${ESC}[0m: CUDA ${ESC}[2K${ESC}`), "RuntimeError: CUDA ");
  assert.equal(plainText("no escapes"), "no escapes");
  const line = `${ESC}[33mwarn${ESC}[39m ${ESC}[38;5;208mx`;
  assert.equal(
    plainText(line),
    parseAnsi(line)
      .map((span) => span.text)
      .join(""),
  );
});

test("markup stays text: the parser never produces HTML", () => {
  assert.deepEqual(parseAnsi(`${ESC}[31m<img src=x onerror=alert(1)>`), [{ text: "<img src=x onerror=alert(1)>", fg: 1 }]);
});

test("span classes: basic colours as classes, 256 colours inline", () => {
  assert.deepEqual(spanClasses({ text: "a", fg: 1, bold: true }), { classes: "ansi-fg-1 ansi-bold" });
  assert.deepEqual(spanClasses({ text: "a", fg: 196, bg: 9 }), { classes: "ansi-bg-9", color: "rgb(255, 0, 0)" });
  assert.equal(xterm256(16), "rgb(0, 0, 0)");
  assert.equal(xterm256(231), "rgb(255, 255, 255)");
  assert.equal(xterm256(232), "rgb(8, 8, 8)");
  assert.equal(xterm256(255), "rgb(238, 238, 238)");
});
