import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeConsoleLines, decodeDataRows, decodeMetrics, MAX_METRICS_PER_LINE, orderByStep } from "./decode.js";

describe("decodeMetrics", () => {
  it("groups points per metric, skips nulls and reads bare and quoted non-finite values", () => {
    const batch = decodeMetrics(
      '{"time": 10, "step": 0, "data": {"loss": 1.5, "acc": NaN, "n": null}}\n{"time": 11, "step": 1, "data": {"loss": "Infinity", "acc": -Infinity}}',
    );
    assert.equal(batch.pointCount, 4);
    const loss = batch.series.find((s) => s.logName === "loss")!;
    assert.deepEqual(loss, { logName: "loss", steps: [0, 1], values: [1.5, Infinity], times: [10, 11] });
    const acc = batch.series.find((s) => s.logName === "acc")!;
    assert.ok(Number.isNaN(acc.values[0]));
    assert.equal(acc.values[1], -Infinity);
    assert.equal(batch.series.some((s) => s.logName === "n"), false);
  });

  it("keeps the last value sent for a step and orders steps", () => {
    const batch = decodeMetrics('{"time":1,"step":5,"data":{"a":1}}\n{"time":2,"step":3,"data":{"a":2}}\n{"time":3,"step":5,"data":{"a":3}}');
    assert.deepEqual(batch.series[0], { logName: "a", steps: [3, 5], values: [2, 3], times: [2, 3] });
    assert.equal(batch.pointCount, 2);
  });

  it("rejects bad lines with their number", () => {
    const cases: [string, RegExp][] = [
      ['{"time":1,"step":-1,"data":{}}', /line 1: step/],
      ['{"time":1,"step":1.5,"data":{}}', /line 1: step/],
      ['{"time":1,"data":{}}', /line 1: step/],
      ['{"step":1,"data":{}}', /line 1: time/],
      ['{"time":1,"step":1,"data":[1]}', /line 1: data must be an object/],
      ['{"time":1,"step":1,"data":{"a":"x"}}', /line 1: data.a must be a number/],
      ['{"time":1,"step":1,"data":{"a":true}}', /line 1: data.a must be a number/],
      ['{"time":1,"step":1,"data":{"":1}}', /line 1: metric names/],
      [`{"time":1,"step":1,"data":{"${"x".repeat(256)}":1}}`, /line 1: metric names/],
    ];
    for (const [body, message] of cases) {
      assert.throws(() => decodeMetrics(body), message);
      assert.throws(() => decodeMetrics(`{"time":1,"step":0,"data":{"ok":1}}\n${body}`), /^.*line 2: /);
    }
  });

  it("caps the number of metrics per line", () => {
    const data = Object.fromEntries(Array.from({ length: MAX_METRICS_PER_LINE + 1 }, (_, i) => [`m${i}`, i]));
    assert.throws(() => decodeMetrics(JSON.stringify({ time: 1, step: 0, data })), /more than 10000 metrics/);
  });
});

describe("orderByStep", () => {
  it("returns the same object when already ordered", () => {
    const series = { logName: "a", steps: [1, 2], values: [1, 2], times: [0, 0] };
    assert.equal(orderByStep(series), series);
  });
});

describe("decodeConsoleLines and decodeDataRows", () => {
  it("keeps messages verbatim and validates fields", () => {
    const lines = decodeConsoleLines('{"time":1,"message":"a\\r\\tb ✓","lineNumber":3,"logType":"ERROR"}');
    assert.deepEqual(lines, [{ time: 1, message: "a\r\tb ✓", lineNumber: 3, logType: "ERROR", step: null }]);
    assert.throws(() => decodeConsoleLines('{"time":1,"message":"x","lineNumber":1,"logType":"LOUD"}'), /line 1: logType/);
    assert.throws(() => decodeConsoleLines('{"time":1,"message":5,"lineNumber":1,"logType":"INFO"}'), /line 1: message/);
  });

  it("decodes data rows", () => {
    const rows = decodeDataRows('{"time":1,"step":2,"logName":"h/w","dataType":"histogram","data":"{\\"bins\\":[]}"}');
    assert.deepEqual(rows, [{ time: 1, step: 2, logName: "h/w", dataType: "histogram", data: '{"bins":[]}' }]);
    assert.throws(() => decodeDataRows('{"time":1,"step":2,"logName":"h","dataType":"t","data":{}}'), /line 1: data must be a string/);
  });
});
