import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pointJsonBytes, sampleJsonBytes } from "./metric-pages.js";

describe("pages of metrics", () => {
  it("estimates a point's JSON at or above its longest real form", () => {
    for (const [logName, logGroup] of [
      ["loss", ""],
      ["train/loss", "train"],
      ['ü/"quoted"\n/Ω🙂', 'ü/"quoted"\n'],
    ]) {
      const longest = {
        logName,
        logGroup,
        time: "+275760-09-13T00:00:00.000Z",
        step: Number.MAX_SAFE_INTEGER,
        value: -Number.MIN_VALUE,
        nonFiniteFlags: 4,
        valueFlag: "-Inf",
      };
      for (const value of [-Number.MIN_VALUE, -Number.MAX_VALUE, -1.2345678901234567e-100]) {
        const bytes = Buffer.byteLength(`${JSON.stringify({ ...longest, value })},`);
        assert.ok(bytes <= pointJsonBytes(logName!, logGroup!), `${logName}: ${bytes} > ${pointJsonBytes(logName!, logGroup!)}`);
      }
    }
  });

  it("estimates a sample by the smaller of limit and the metric's points", () => {
    const metric = { logName: "loss", logGroup: "", count: 90, nonFiniteCount: 10 };
    assert.equal(sampleJsonBytes(metric, 2000), 100 * pointJsonBytes("loss", ""));
    assert.equal(sampleJsonBytes(metric, 7), 7 * pointJsonBytes("loss", ""));
  });
});
