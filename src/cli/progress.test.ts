import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { duration, Progress } from "./progress.js";

/** A stream that keeps what is written, as a terminal (isTTY) or a pipe. */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join("") });
}

describe("Progress", () => {
  it("redraws one line in place on a terminal, with rate and ETA, and ends it with the total", () => {
    let clock = 0;
    const stream = sink(true);
    const progress = new Progress("run a", { unit: "points", total: 1000, stream, now: () => clock });
    clock = 1000;
    progress.update(250);
    clock = 2000;
    progress.update(500);
    clock = 4000;
    progress.update(1000);
    progress.finish(", 2 records skipped");
    const text = stream.text();
    assert.ok(text.startsWith("\rrun a: 250/1,000 points (25%), 250 points/s, ETA 3.0s\x1b[K"), text);
    assert.ok(text.includes("\rrun a: 500/1,000 points (50%), 250 points/s, ETA 2.0s\x1b[K"), text);
    assert.ok(text.endsWith("\rrun a: 1,000 points in 4.0s (250 points/s), 2 records skipped\x1b[K\n"), text);
    assert.equal(text.split("\n").length, 2, "one line, ended once");
  });

  it("prints plain lines no more often than the interval when not on a terminal", () => {
    let clock = 0;
    const stream = sink(false);
    const progress = new Progress("export", { unit: "rows", stream, now: () => clock, plainIntervalMs: 5000 });
    for (let second = 1; second <= 12; second++) {
      clock = second * 1000;
      progress.update(second * 100_000);
    }
    progress.finish();
    const lines = stream.text().trimEnd().split("\n");
    assert.deepEqual(lines, [
      "export: 100,000 rows, 100k rows/s",
      "export: 600,000 rows, 100k rows/s",
      "export: 1,100,000 rows, 100k rows/s",
      "export: 1,200,000 rows in 12s (100k rows/s)",
    ]);
    assert.ok(!stream.text().includes("\r"));
  });

  it("adds a described detail to the redrawn lines, not to the final one", () => {
    let clock = 0;
    const stream = sink(false);
    const progress = new Progress("experiment 'x'", { unit: "points", stream, now: () => clock, plainIntervalMs: 0 });
    progress.describe("1 of 4 runs, ETA 30s");
    clock = 1000;
    progress.update(500);
    progress.finish(", 4 runs");
    assert.deepEqual(stream.text().trimEnd().split("\n"), [
      "experiment 'x': 500 points, 500 points/s, 1 of 4 runs, ETA 30s",
      "experiment 'x': 500 points in 1.0s (500 points/s), 4 runs",
    ]);
  });

  it("writes durations as seconds, minutes and hours", () => {
    assert.equal(duration(4.25), "4.3s");
    assert.equal(duration(42), "42s");
    assert.equal(duration(185), "3m05s");
    assert.equal(duration(7620), "2h07m");
  });
});
