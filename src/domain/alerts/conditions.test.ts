import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  alertLevel,
  clientAlertFires,
  evaluateMetricValues,
  evaluateStalled,
  evaluateStatus,
  INITIAL_STATE,
  type MetricCondition,
  summarizeValues,
} from "./conditions.js";

const nonFinite: MetricCondition = { type: "non_finite", metric: "loss" };
const above = (value: number, consecutive = 1): MetricCondition => ({ type: "threshold", metric: "loss", op: "above", value, consecutive });

/** Feeds batches one after another; answers which batches fired and the last state. */
function run(condition: MetricCondition, batches: number[][]) {
  let state = INITIAL_STATE;
  const fired: boolean[] = [];
  for (const batch of batches) {
    const evaluation = evaluateMetricValues(condition, batch, state);
    fired.push(evaluation.fired);
    state = evaluation.state;
  }
  return { fired, state };
}

describe("alert conditions: once per condition change", () => {
  it("non_finite fires when a value becomes NaN or ±Inf, not again while it stays, and again after a finite value re-arms it", () => {
    assert.deepEqual(run(nonFinite, [[1, 2], [Number.NaN], [Number.NaN, Infinity], [3], [-Infinity]]).fired, [
      false,
      true,
      false,
      false,
      true,
    ]);
    const inOneBatch = evaluateMetricValues(nonFinite, [1, Number.NaN, 2, Infinity], INITIAL_STATE);
    assert.deepEqual(
      [inOneBatch.fired, inOneBatch.value, inOneBatch.state.active],
      [true, Number.NaN, true],
      "a batch fires once, with its first value",
    );
  });

  it("threshold fires on the crossing, strictly above, and re-arms below", () => {
    assert.deepEqual(run(above(5), [[5], [6], [7], [4], [8]]).fired, [false, true, false, false, true]);
    assert.equal(evaluateMetricValues(above(5), [Number.NaN], INITIAL_STATE).fired, false, "NaN is on neither side");
    const below: MetricCondition = { type: "threshold", metric: "m", op: "below", value: 0, consecutive: 1 };
    assert.equal(evaluateMetricValues(below, [-1], INITIAL_STATE).fired, true);
  });

  it("threshold with consecutive points counts across batches, resets on a point on the other side, and stops counting once active", () => {
    assert.deepEqual(run(above(0, 3), [[1, 1], [1], [1, 1, 1]]).fired, [false, true, false]);
    assert.deepEqual(run(above(0, 3), [[1, 1], [-1], [1, 1], [1]]).fired, [false, false, false, true]);
    assert.deepEqual(
      run(above(0, 3), [[1, 1, 1, 1, 1]]).state,
      { active: true, streak: 3 },
      "the streak is capped: no write per point while active",
    );
  });

  it("status holds while the run is in one of the statuses; RUNNING re-arms", () => {
    const condition = { type: "status" as const, statuses: ["FAILED" as const] };
    const failed = evaluateStatus(condition, "FAILED", INITIAL_STATE);
    assert.equal(failed.fired, true);
    assert.equal(evaluateStatus(condition, "FAILED", failed.state).fired, false);
    assert.equal(evaluateStatus(condition, "COMPLETED", INITIAL_STATE).fired, false);
    const resumed = evaluateStatus(condition, "RUNNING", failed.state);
    assert.deepEqual([resumed.fired, resumed.state.active], [false, false]);
  });

  it("stalled holds for a RUNNING run silent for afterSeconds, and not for a finished one", () => {
    const condition = { type: "stalled" as const, afterSeconds: 60 };
    assert.equal(evaluateStalled(condition, { status: "RUNNING", lastActivityAt: 0 }, 59_999, INITIAL_STATE).fired, false);
    const stalled = evaluateStalled(condition, { status: "RUNNING", lastActivityAt: 0 }, 60_000, INITIAL_STATE);
    assert.equal(stalled.fired, true);
    assert.equal(evaluateStalled(condition, { status: "RUNNING", lastActivityAt: 0 }, 120_000, stalled.state).fired, false);
    assert.equal(evaluateStalled(condition, { status: "COMPLETED", lastActivityAt: 0 }, 120_000, stalled.state).state.active, false);
  });

  it("client alerts fire rules whose minimum level they reach", () => {
    assert.equal(alertLevel("warning"), "WARN");
    assert.equal(alertLevel("whatever"), "INFO");
    assert.equal(clientAlertFires({ type: "client_alert", minLevel: "WARN" }, "INFO"), false);
    assert.equal(clientAlertFires({ type: "client_alert", minLevel: "WARN" }, "ERROR"), true);
  });

  it("decides from the series' summary exactly as from its values", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = () => [Number.NaN, Infinity, -Infinity, 0, 1, 2, 5, -3][Math.floor(random() * 8)]!;
    const conditions: MetricCondition[] = [
      nonFinite,
      above(1),
      above(1, 2),
      { type: "threshold", metric: "m", op: "below", value: 0, consecutive: 3 },
    ];
    const states = [INITIAL_STATE, { active: true, streak: 1 }, { active: false, streak: 1 }, { active: true, streak: 3 }];
    for (let i = 0; i < 5000; i++) {
      const values = Array.from({ length: 1 + Math.floor(random() * 4) }, pick);
      for (const condition of conditions)
        for (const state of states)
          assert.deepEqual(
            evaluateMetricValues(condition, values, state, summarizeValues(values)),
            evaluateMetricValues(condition, values, state),
            `${JSON.stringify(condition)} ${values} ${JSON.stringify(state)}`,
          );
    }
  });
});
