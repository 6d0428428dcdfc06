import assert from "node:assert/strict";
import { test } from "node:test";
import type { BatchSeries } from "../types.ts";
import { appendSeries, livePlan, REBUCKET_FACTOR } from "./live-series.ts";

const series = (runId: number, logName: string, steps: number[], value = (step: number) => step): BatchSeries => ({
  runId,
  logName,
  steps,
  values: steps.map(value),
  nonFiniteFlags: steps.map(() => 0),
  times: steps.map((step) => 1_700_000_000_000 + step * 1000),
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test("a refresh reads each run from its last loaded step, runs at the same step together", () => {
  const plan = livePlan(
    [
      { runId: 1, logName: "loss", series: series(1, "loss", range(0, 99)) },
      { runId: 1, logName: "acc", series: series(1, "acc", range(0, 99)) },
      { runId: 2, logName: "loss", series: series(2, "loss", range(0, 99)) },
      { runId: 2, logName: "acc", series: series(2, "acc", range(0, 99)) },
      { runId: 3, logName: "loss", series: series(3, "loss", range(0, 40)) },
      { runId: 3, logName: "acc", series: series(3, "acc", range(0, 40)) },
    ],
    251,
  );
  assert.deepEqual(plan, [
    { runIds: [1, 2], logNames: ["loss", "acc"], stepMin: 99 },
    { runIds: [3], logNames: ["loss", "acc"], stepMin: 40 },
  ]);
});

test("a metric logged less often sets its run's start; a metric never loaded is left to the first load", () => {
  const plan = livePlan(
    [
      { runId: 1, logName: "loss", series: series(1, "loss", range(0, 99)) },
      { runId: 1, logName: "val/loss", series: series(1, "val/loss", [0, 50]) },
      { runId: 1, logName: "other", series: undefined },
    ],
    251,
  );
  assert.deepEqual(plan, [{ runIds: [1], logNames: ["loss", "val/loss"], stepMin: 50 }]);
});

test("a run whose series are still empty is read from step 0", () => {
  assert.deepEqual(livePlan([{ runId: 4, logName: "loss", series: series(4, "loss", []) }], 251), [
    { runIds: [4], logNames: ["loss"], stepMin: 0 },
  ]);
});

test("a series grown past the re-bucketing bound is read whole, sampled anew", () => {
  const bound = 11;
  const plan = livePlan(
    [
      { runId: 1, logName: "loss", series: series(1, "loss", range(0, REBUCKET_FACTOR * bound)) },
      { runId: 1, logName: "acc", series: series(1, "acc", range(0, 5)) },
    ],
    bound,
  );
  assert.deepEqual(plan, [
    { runIds: [1], logNames: ["acc"], stepMin: 5 },
    { runIds: [1], logNames: ["loss"] },
  ]);
});

test("appended steps replace those the series had and keep the step order", () => {
  const existing = series(1, "loss", [0, 10, 20, 30]);
  const incoming = series(1, "loss", [30, 31, 32], (step) => -step);
  const merged = appendSeries(existing, incoming);
  assert.deepEqual(merged.steps, [0, 10, 20, 30, 31, 32]);
  assert.deepEqual(merged.values, [0, 10, 20, -30, -31, -32]);
  assert.deepEqual(merged.times.length, 6);
  assert.equal(appendSeries(existing, series(1, "loss", [])), existing, "nothing new: the same series");
});

test("a step holding several points (MLflow's rule) is replaced whole, in time order", () => {
  const existing: BatchSeries = { runId: 1, logName: "m", steps: [0, 0], values: [1, 2], nonFiniteFlags: [0, 0], times: [1, 2] };
  const incoming: BatchSeries = {
    runId: 1,
    logName: "m",
    steps: [0, 0, 0],
    values: [1, 2, 3],
    nonFiniteFlags: [0, 0, 1],
    times: [1, 2, 3],
  };
  const merged = appendSeries(existing, incoming);
  assert.deepEqual(merged.values, [1, 2, 3]);
  assert.deepEqual(merged.nonFiniteFlags, [0, 0, 1]);
});
