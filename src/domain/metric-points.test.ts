import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { comparePoints, compareValues, orderDistinct, samePoint } from "./metric-points.js";

describe("the point order", () => {
  it("orders by step, then time, then value, with −Infinity first and NaN last", () => {
    assert.ok(comparePoints(1, 9, 9, 2, 0, 0) < 0);
    assert.ok(comparePoints(1, 5, 9, 1, 6, 0) < 0);
    assert.ok(comparePoints(1, 5, 0.25, 1, 5, 0.5) < 0);
    const values = [NaN, 1, Infinity, -Infinity, -1];
    assert.deepEqual(values.sort(compareValues), [-Infinity, -1, 1, Infinity, NaN]);
    assert.equal(compareValues(NaN, NaN), 0);
  });

  it("names a point by step, time and value, NaN included", () => {
    assert.ok(samePoint(0, 1, NaN, 0, 1, NaN));
    assert.ok(!samePoint(0, 1, 2, 0, 2, 2));
  });

  it("puts a request's points in the point order with identical ones once, and returns ordered ones as they are", () => {
    const ordered = { steps: [0, 0, 1], values: [1, 2, 3], times: [5, 6, 7] };
    assert.equal(orderDistinct(ordered), ordered);
    const sent = { logName: "m", steps: [0, 0, 0, 0], values: [3, 1, 3, 2], times: [9, 5, 9, 5] };
    assert.deepEqual(orderDistinct(sent), { logName: "m", steps: [0, 0, 0], values: [1, 2, 3], times: [5, 5, 9] });
  });
});
