import assert from "node:assert/strict";
import { test } from "node:test";
import { atOrBefore, isTextData, kindOf, previewOf, stepsOf } from "./logged-types.ts";

test("every log type the server lists has a view, and an unknown one is listed as other", () => {
  const types = ["METRIC", "IMAGE", "VIDEO", "AUDIO", "FILE", "TEXT", "ARTIFACT", "HISTOGRAM", "TABLE", "DATA"];
  assert.deepEqual(types.map(kindOf), ["metric", "media", "media", "media", "file", "text", "file", "histogram", "table", "text"]);
  assert.equal(kindOf("histogram"), "histogram");
  assert.equal(kindOf("constructor"), "other");
  assert.equal(kindOf("GRAPH"), "other");
});

test("string series are text data; histograms and graphs are not", () => {
  assert.ok(isTextData("string-series"));
  assert.ok(isTextData("TEXT"));
  assert.ok(!isTextData("GRAPH"));
  assert.ok(!isTextData("HISTOGRAM"));
});

test("files preview by declared type, pluto-ml's bare extensions, or name", () => {
  assert.equal(previewOf({ fileType: "image/png", fileName: "x" }), "image");
  assert.equal(previewOf({ fileType: "png", fileName: "x" }), "image");
  assert.equal(previewOf({ fileType: "", fileName: "clip.WAV" }), "audio");
  assert.equal(previewOf({ fileType: "video/mp4", fileName: "x" }), "video");
  assert.equal(previewOf({ fileType: "txt", fileName: "notes" }), "text");
  assert.equal(previewOf({ fileType: "application/json", fileName: "x" }), "text");
  assert.equal(previewOf({ fileType: "application/octet-stream", fileName: "model.bin" }), undefined);
});

test("steps in order, and the latest at or before a picked step", () => {
  assert.deepEqual(stepsOf([{ step: 5 }, { step: 1 }, { step: 5 }]), [1, 5]);
  assert.equal(atOrBefore([1, 5, 9], 6), 1);
  assert.equal(atOrBefore([1, 5, 9], 9), 2);
  assert.equal(atOrBefore([1, 5, 9], 0), undefined);
});
