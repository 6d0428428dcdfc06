import assert from "node:assert/strict";
import { test } from "node:test";
import { formatBytes, formatDuration, formatNumber, formatValue, runDuration } from "./format.ts";

test("numbers: integers grouped, fractions to five significant digits, extremes in exponent form", () => {
  assert.equal(formatNumber(1234567), "1,234,567");
  assert.equal(formatNumber(0.123456789), "0.12346");
  assert.equal(formatNumber(0.00001234), "1.234e-5");
  assert.equal(formatNumber(null), "–");
  assert.equal(formatNumber(NaN), "NaN");
});

test("durations show the two largest units", () => {
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(59_000), "59s");
  assert.equal(formatDuration(3_723_000), "1h 2m");
  assert.equal(formatDuration(90_061_000), "1d 1h");
  assert.equal(formatDuration(-1), "–");
});

test("a run runs until its last status change, or until now while RUNNING", () => {
  const createdAt = "2026-01-01T00:00:00.000Z";
  assert.equal(runDuration({ status: "COMPLETED", createdAt, statusUpdated: "2026-01-01T00:01:00.000Z" }, Date.parse("2026-01-02")), 60_000);
  assert.equal(runDuration({ status: "RUNNING", createdAt, statusUpdated: "2026-01-01T00:01:00.000Z" }, Date.parse("2026-01-01T00:05:00Z")), 300_000);
});

test("sizes and values", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(2_500_000), "2.5 MB");
  assert.equal(formatValue({ a: 1 }), '{"a":1}');
  assert.equal(formatValue(null), "null");
  assert.equal(formatValue(undefined), "");
});
