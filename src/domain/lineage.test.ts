import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ALL_STEPS, lineageSegments, piecesOf } from "./lineage.js";

describe("lineage segments", () => {
  it("reads an unforked run's own metric whole", () => {
    const chain = [{ id: 1, forkedFromRunId: null, forkStep: null }];
    assert.deepEqual(
      lineageSegments(chain, () => ({ id: 10, firstStep: 0 })),
      [{ runId: 1, metricId: 10, maxStep: ALL_STEPS }],
    );
  });

  it("takes a parent's points up to the fork step and below the child's own first point", () => {
    const chain = [
      { id: 3, forkedFromRunId: 2, forkStep: 50 },
      { id: 2, forkedFromRunId: 1, forkStep: 80 },
      { id: 1, forkedFromRunId: null, forkStep: null },
    ];
    const metrics = new Map([
      [3, { id: 30, firstStep: 40 }],
      [2, { id: 20, firstStep: 10 }],
      [1, { id: 10, firstStep: 0 }],
    ]);
    assert.deepEqual(
      lineageSegments(chain, (runId) => metrics.get(runId)),
      [
        { runId: 1, metricId: 10, maxStep: 9 },
        { runId: 2, metricId: 20, maxStep: 39 },
        { runId: 3, metricId: 30, maxStep: ALL_STEPS },
      ],
    );
  });

  it("cuts windows to each segment's last step and drops empty pieces", () => {
    const segments = [
      { runId: 1, metricId: 10, maxStep: 9 },
      { runId: 2, metricId: 20, maxStep: ALL_STEPS },
    ];
    assert.deepEqual(piecesOf(segments, 5, 100), [
      { metricId: 10, from: 5, to: 9 },
      { metricId: 20, from: 5, to: 100 },
    ]);
    assert.deepEqual(piecesOf(segments, 20, 100), [{ metricId: 20, from: 20, to: 100 }]);
  });
});
