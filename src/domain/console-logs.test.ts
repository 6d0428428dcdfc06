import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareConsoleLines } from "./console-logs.js";

describe("compareConsoleLines", () => {
  it("orders by time, then line number, then log type", () => {
    const lines = [
      { time: 2, lineNumber: 1, logType: "INFO" },
      { time: 1, lineNumber: 2, logType: "INFO" },
      { time: 1, lineNumber: 1, logType: "INFO" },
      { time: 1, lineNumber: 1, logType: "ERROR" },
    ];
    assert.deepEqual([...lines].sort(compareConsoleLines), [lines[3], lines[2], lines[1], lines[0]]);
  });

  it("is zero only for the same (logType, lineNumber, time): lines of two processes with one number differ", () => {
    assert.equal(compareConsoleLines({ time: 5, lineNumber: 1, logType: "INFO" }, { time: 5, lineNumber: 1, logType: "INFO" }), 0);
    assert.notEqual(compareConsoleLines({ time: 5, lineNumber: 1, logType: "INFO" }, { time: 9, lineNumber: 1, logType: "INFO" }), 0);
  });
});
