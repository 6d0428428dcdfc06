import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { projectNameReadings } from "./ingest-target.js";

/** What Node hands over for a header sent as these UTF-8 bytes: one Latin-1 character per byte. */
const asReceived = (name: string) => Buffer.from(name, "utf8").toString("latin1");

describe("projectNameReadings", () => {
  it("reads raw UTF-8 bytes and percent-encoded UTF-8 as the name they encode", () => {
    for (const name of ["проект-ü", "项目", "🚀-runs"]) {
      assert.ok(projectNameReadings(asReceived(name)).includes(name), name);
      assert.ok(projectNameReadings(encodeURIComponent(name)).includes(name), name);
    }
  });

  it("keeps the literal value, so Latin-1 names and names with a literal % still match", () => {
    assert.deepEqual(projectNameReadings("plain"), ["plain"]);
    assert.deepEqual(projectNameReadings("ü"), ["ü"]); // one byte 0xFC: not UTF-8
    assert.deepEqual(projectNameReadings("100%"), ["100%"]);
    assert.deepEqual(projectNameReadings("a%20b"), ["a%20b", "a b"]);
  });
});
