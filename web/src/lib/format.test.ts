import assert from "node:assert/strict";
import { test } from "node:test";
import {
  formatAbsoluteTime,
  formatBytes,
  formatDuration,
  formatNumber,
  formatRelativeTime,
  formatTicks,
  formatRunDuration,
  formatValue,
} from "./format.ts";

test("numbers keep significant digits at every magnitude, never a rounded 0", () => {
  const cases: [number, string][] = [
    [0, "0"],
    [-0, "0"],
    [1, "1"],
    [1234567, "1,234,567"],
    [-42, "-42"],
    [0.123456789, "0.12346"],
    [0.1, "0.1"],
    [2.5, "2.5"],
    [123456.789, "123460"],
    [0.00042, "0.00042"],
    [-0.00042, "-0.00042"],
    [0.0001, "0.0001"],
    [0.00001234, "1.234e-5"],
    [1e-6, "1e-6"],
    [-1.5e-6, "-1.5e-6"],
    [1e-4 / 3, "3.3333e-5"],
    [5e-324, "4.9407e-324"],
    [3.2e9, "3.2e9"],
    [-3.2e9, "-3.2e9"],
    [999_999_999, "999,999,999"],
    [1e15 + 0.5, "1e15"],
    [1.7976931348623157e308, "1.7977e308"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
  ];
  for (const [value, text] of cases) assert.equal(formatNumber(value), text, `formatNumber(${value})`);
  assert.equal(formatNumber(null), "–");
  assert.equal(formatNumber(undefined), "–");
  // Every non-zero finite magnitude from 1e-300 to 1e300 reads as a non-zero number that parses back close to it.
  for (let exponent = -300; exponent <= 300; exponent++) {
    for (const value of [1.2345 * 10 ** exponent, -7.5 * 10 ** exponent]) {
      const text = formatNumber(value);
      const parsed = Number(text.replaceAll(",", ""));
      assert.ok(parsed !== 0 && Math.abs(parsed - value) <= Math.abs(value) * 1e-4, `${value} → ${text}`);
    }
  }
});

test("ticks get as many digits as it takes to tell them apart", () => {
  assert.deepEqual(formatTicks([0, 0.00002, 0.00004, 0.00006]), ["0", "2e-5", "4e-5", "6e-5"]);
  assert.deepEqual(formatTicks([1e-6, 1e-5, 1e-4]), ["1e-6", "1e-5", "0.0001"]);
  assert.deepEqual(formatTicks([1.00001, 1.00002, 1.00003]), ["1.00001", "1.00002", "1.00003"]);
  assert.deepEqual(formatTicks([0.1 + 0.2, 0.4]), ["0.3", "0.4"]);
  assert.deepEqual(formatTicks([0, 1e9, 2e9]), ["0", "1e9", "2e9"]);
  assert.deepEqual(formatTicks([-0.0004, -0.0002, 0]), ["-0.0004", "-0.0002", "0"]);
});

test("times: relative for reading, absolute with the zone for hovering", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  assert.equal(formatRelativeTime("2026-11-23T11:59:55Z", now), "just now");
  assert.equal(formatRelativeTime("2026-11-23T11:59:30Z", now), "30 s ago");
  assert.equal(formatRelativeTime("2026-11-23T11:57:00Z", now), "3 min ago");
  assert.equal(formatRelativeTime("2026-11-23T09:00:00Z", now), "3 h ago");
  assert.equal(formatRelativeTime("2026-11-22T11:00:00Z", now), "1 day ago");
  assert.equal(formatRelativeTime("2026-11-13T12:00:00Z", now), "10 days ago");
  assert.equal(formatRelativeTime("2026-11-23T12:01:00Z", now), "in the future");
  assert.equal(formatRelativeTime(null, now), "–");
  assert.match(formatAbsoluteTime("2026-11-23T12:00:00Z"), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC([+-]\d\d:\d\d)?( \(.+\))?$/);
});

test("durations show the two largest units", () => {
  assert.equal(formatDuration(0), "0s");
  assert.equal(formatDuration(59_000), "59s");
  assert.equal(formatDuration(3_723_000), "1h 2m");
  assert.equal(formatDuration(90_061_000), "1d 1h");
  assert.equal(formatDuration(-1), "–");
});

test("a run runs until its last status change, or until now while RUNNING (the server's runDuration on the API's times)", () => {
  const createdAt = "2026-01-01T00:00:00.000Z";
  const statusUpdated = "2026-01-01T00:01:00.000Z";
  assert.equal(formatRunDuration({ status: "COMPLETED", createdAt, statusUpdated }, Date.parse("2026-01-02")), "1m 0s");
  assert.equal(formatRunDuration({ status: "RUNNING", createdAt, statusUpdated }, Date.parse("2026-01-01T00:05:00Z")), "5m 0s");
  assert.equal(formatRunDuration({ status: "FAILED", createdAt, statusUpdated: null }, Date.parse("2026-01-01T00:00:07Z")), "7s");
});

test("sizes and values", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(2_500_000), "2.5 MB");
  assert.equal(formatValue({ a: 1 }), '{"a":1}');
  assert.equal(formatValue(null), "null");
  assert.equal(formatValue(undefined), "");
  assert.equal(formatValue(1e-6), "1e-6");
});
