import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeConsoleLines, decodeDataRows, decodeMetrics, MAX_METRICS_PER_LINE, orderByStep } from "./decode.js";

describe("decodeMetrics", async () => {
  it("groups points per metric, skips nulls and reads bare and quoted non-finite values", async () => {
    const batch = await decodeMetrics(
      '{"time": 10, "step": 0, "data": {"loss": 1.5, "acc": NaN, "n": null}}\n{"time": 11, "step": 1, "data": {"loss": "Infinity", "acc": -Infinity}}',
    );
    assert.equal(batch.pointCount, 4);
    const loss = batch.series.find((s) => s.logName === "loss")!;
    assert.deepEqual(loss, { logName: "loss", steps: [0, 1], values: [1.5, Infinity], times: [10, 11] });
    const acc = batch.series.find((s) => s.logName === "acc")!;
    assert.ok(Number.isNaN(acc.values[0]));
    assert.equal(acc.values[1], -Infinity);
    assert.equal(
      batch.series.some((s) => s.logName === "n"),
      false,
    );
  });

  it("keeps the last value sent for a step and orders steps", async () => {
    const batch = await decodeMetrics(
      '{"time":1,"step":5,"data":{"a":1}}\n{"time":2,"step":3,"data":{"a":2}}\n{"time":3,"step":5,"data":{"a":3}}',
    );
    assert.deepEqual(batch.series[0], { logName: "a", steps: [3, 5], values: [2, 3], times: [2, 3] });
    assert.equal(batch.pointCount, 2);
  });

  it("rejects bad lines with their number", async () => {
    const cases: [string, RegExp][] = [
      ['{"time":1,"step":-1,"data":{}}', /line 1: step/],
      ['{"time":1,"step":9007199254740992,"data":{}}', /line 1: step must be an integer from 0 to 9007199254740991/],
      ['{"time":1,"step":1e300,"data":{}}', /line 1: step/],
      ['{"time":1,"step":1.5,"data":{}}', /line 1: step/],
      ['{"time":1,"data":{}}', /line 1: step/],
      ['{"step":1,"data":{}}', /line 1: time/],
      ['{"time":1,"step":1,"data":[1]}', /line 1: data must be an object/],
      ['{"time":1,"step":1,"data":{"a":"x"}}', /line 1: data.a must be a number/],
      ['{"time":1,"step":1,"data":{"a":true}}', /line 1: data.a must be a number/],
      ['{"time":1,"step":1,"data":{"a":1e400}}', /line 1: data.a must be a number within the double range/],
      ['{"time":1,"step":1,"data":{"a":-1e400}}', /line 1: data.a must be a number within the double range/],
      ...["constructor", "__proto__", "valueOf", "toString", "hasOwnProperty", "nan", "inf", "-inf", "+Infinity"].map(
        (spelling): [string, RegExp] => [`{"time":1,"step":1,"data":{"a":"${spelling}"}}`, /line 1: data.a must be a number/],
      ),
      ['{"time":1,"step":1,"data":{"":1}}', /line 1: metric names/],
      [`{"time":1,"step":1,"data":{"${"x".repeat(256)}":1}}`, /line 1: metric names/],
    ];
    for (const [body, message] of cases) {
      await assert.rejects(decodeMetrics(body), message);
      await assert.rejects(decodeMetrics(`{"time":1,"step":0,"data":{"ok":1}}\n${body}`), /^.*line 2: /);
    }
  });

  it("accepts the largest exact step", async () => {
    const batch = await decodeMetrics('{"time":1,"step":9007199254740991,"data":{"a":1}}');
    assert.deepEqual(batch.series[0]!.steps, [Number.MAX_SAFE_INTEGER]);
  });

  it("caps the number of metrics per line", async () => {
    const data = Object.fromEntries(Array.from({ length: MAX_METRICS_PER_LINE + 1 }, (_, i) => [`m${i}`, i]));
    await assert.rejects(decodeMetrics(JSON.stringify({ time: 1, step: 0, data })), /more than 10000 metrics/);
  });
});

describe("orderByStep", async () => {
  it("returns the same object when already ordered", async () => {
    const series = { logName: "a", steps: [1, 2], values: [1, 2], times: [0, 0] };
    assert.equal(orderByStep(series), series);
  });
});

describe("decodeConsoleLines and decodeDataRows", async () => {
  it("keeps messages verbatim and validates fields", async () => {
    const lines = await decodeConsoleLines('{"time":1,"message":"a\\r\\tb ✓","lineNumber":3,"logType":"ERROR"}');
    assert.deepEqual(lines, [{ time: 1, message: "a\r\tb ✓", lineNumber: 3, logType: "ERROR", step: null }]);
    await assert.rejects(decodeConsoleLines('{"time":1,"message":"x","lineNumber":1,"logType":"LOUD"}'), /line 1: logType/);
    await assert.rejects(decodeConsoleLines('{"time":1,"message":5,"lineNumber":1,"logType":"INFO"}'), /line 1: message/);
  });

  it("refuses line numbers and steps a double cannot hold exactly, naming the line and the field", async () => {
    const console = (fields: string) =>
      `{"time":1,"message":"ok","lineNumber":1,"logType":"INFO"}\n{"time":1,"message":"x","logType":"INFO",${fields}}`;
    const cases: [string, RegExp][] = [
      ['"lineNumber":9007199254740993', /line 2: lineNumber must be an integer from 0 to 9007199254740991$/],
      ['"lineNumber":9007199254740992', /line 2: lineNumber/],
      ['"lineNumber":1e300', /line 2: lineNumber/],
      ['"lineNumber":1.5', /line 2: lineNumber/],
      ['"lineNumber":-1', /line 2: lineNumber/],
      ['"lineNumber":"1"', /line 2: lineNumber/],
      ['"lineNumber":1,"step":1e300', /line 2: step must be an integer from 0/],
      ['"lineNumber":1,"step":9007199254740993', /line 2: step/],
      ['"lineNumber":1,"step":0.5', /line 2: step/],
    ];
    for (const [fields, message] of cases) await assert.rejects(decodeConsoleLines(console(fields)), message, fields);
    const top = await decodeConsoleLines('{"time":1,"message":"x","lineNumber":9007199254740991,"logType":"INFO","step":9007199254740991}');
    assert.deepEqual([top[0]!.lineNumber, top[0]!.step], [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);

    const row = (step: string) => `{"time":1,"step":${step},"logName":"h","dataType":"t","data":""}`;
    for (const step of ["1e300", "9007199254740993", "2.5", "-1"]) {
      await assert.rejects(decodeDataRows(`${row("0")}\n${row(step)}`), /line 2: step must be an integer from 0/, step);
    }
  });

  it("decodes data rows", async () => {
    const rows = await decodeDataRows('{"time":1,"step":2,"logName":"h/w","dataType":"histogram","data":"{\\"bins\\":[]}"}');
    assert.deepEqual(rows, [{ time: 1, step: 2, logName: "h/w", dataType: "histogram", data: '{"bins":[]}' }]);
    await assert.rejects(decodeDataRows('{"time":1,"step":2,"logName":"h","dataType":"t","data":{}}'), /line 1: data must be a string/);
  });
});
