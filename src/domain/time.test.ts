import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_EPOCH_MS, toIso } from "./time.js";

describe("toIso", () => {
  it("shows a time as ISO-8601 UTC with milliseconds", () => {
    assert.equal(toIso(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
    assert.equal(toIso(MAX_EPOCH_MS), "+275760-09-13T00:00:00.000Z");
  });

  it("shows a stored time beyond a date's range as the nearest one a date holds, never throws", () => {
    assert.equal(toIso(MAX_EPOCH_MS + 1), toIso(MAX_EPOCH_MS));
    assert.equal(toIso(Number.MAX_SAFE_INTEGER), toIso(MAX_EPOCH_MS));
    assert.equal(toIso(-Number.MAX_SAFE_INTEGER), toIso(-MAX_EPOCH_MS));
    assert.equal(toIso(Number.NaN), toIso(0));
  });
});
