import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addPoints, EMPTY_SUMMARY } from "../domain/summaries.js";
import { columnsOf, MAX_CHUNK_POINTS, SMALL_CHUNK_POINTS } from "./metric-chunks.js";
import {
  addBoundaryPoints,
  appendsAfterLastPoint,
  boundaryChunks,
  extendsLastChunk,
  lastTimeAfter,
  mergeIntoStored,
  searchNames,
  widenedRange,
} from "./metric-series.js";

const columns = (steps: number[], values: number[]) => columnsOf(steps, values, steps, 0);

describe("shared metric chunk decisions", () => {
  it("appends when every incoming point comes after the stored ones", () => {
    const at = (lastStep: number | null, lastTime: number | null) => ({ lastStep, lastTime });
    assert.equal(appendsAfterLastPoint(at(null, null), columns([0], [1]), "replace-step"), true);
    assert.equal(appendsAfterLastPoint(at(4, 4), columns([5, 6], [1, 1]), "replace-step"), true);
    assert.equal(appendsAfterLastPoint(at(5, 4), columns([5, 6], [1, 1]), "replace-step"), false);
    // MLflow's rule: at the last step, a later time comes after; an equal time or an unknown last time is merged.
    assert.equal(appendsAfterLastPoint(at(5, 4), columns([5, 6], [1, 1]), "keep-every-point"), true);
    assert.equal(appendsAfterLastPoint(at(5, 5), columns([5, 6], [1, 1]), "keep-every-point"), false);
    assert.equal(appendsAfterLastPoint(at(5, null), columns([5, 6], [1, 1]), "keep-every-point"), false);
  });

  it("extends only a small last chunk, and never past the chunk size", () => {
    assert.equal(extendsLastChunk(undefined, 1), false);
    assert.equal(extendsLastChunk({ point_count: SMALL_CHUNK_POINTS - 1 }, 1), true);
    assert.equal(extendsLastChunk({ point_count: SMALL_CHUNK_POINTS }, 1), false);
    assert.equal(extendsLastChunk({ point_count: 10 }, MAX_CHUNK_POINTS - 10 + 1), false);
  });

  it("writes nothing for an exact retry, corrects the summary for new steps, and rescans when a finite value is replaced", () => {
    const stored = columns([0, 1, 2], [1, 2, 3]);
    const summary = addPoints(EMPTY_SUMMARY, stored.steps, stored.values);
    assert.equal(mergeIntoStored(summary, stored, columns([1], [2]), "replace-step"), undefined);
    const added = mergeIntoStored(summary, stored, columns([1.5], [10]), "replace-step")!;
    assert.deepEqual([...added.merged.steps], [0, 1, 1.5, 2]);
    assert.notEqual(added.summary, "rescan");
    assert.equal((added.summary as typeof summary).max, 10);
    assert.equal(mergeIntoStored(summary, stored, columns([1], [5]), "replace-step")!.summary, "rescan");
  });

  it("keeps every distinct point under MLflow's rule, an identical one once", () => {
    const stored = columnsOf([0, 0, 1], [1, 2, 3], [10, 20, 30], 0);
    const summary = addPoints(EMPTY_SUMMARY, stored.steps, stored.values);
    assert.equal(mergeIntoStored(summary, stored, columnsOf([0], [2], [20], 9), "keep-every-point"), undefined);
    const merge = mergeIntoStored(summary, stored, columnsOf([0, 1], [5, 3], [15, 31], 9), "keep-every-point")!;
    assert.deepEqual([...merge.merged.steps], [0, 0, 0, 1, 1]);
    assert.deepEqual([...merge.merged.values], [1, 5, 2, 3, 3]);
    assert.deepEqual([...merge.merged.times], [10, 15, 20, 30, 31]);
    // A finite point added at the last finite value's step may come before it: the summary is read again.
    assert.equal(merge.summary, "rescan");
    const later = mergeIntoStored(summary, stored, columnsOf([0], [7], [11], 9), "keep-every-point")!;
    assert.equal((later.summary as typeof summary).count, 4);
    assert.equal((later.summary as typeof summary).lastValue, 3);
  });

  it("a step sent under Stepwise's rule replaces every point stored at it", () => {
    const stored = columnsOf([0, 0, 1], [1, 2, 3], [10, 20, 30], 0);
    const summary = addPoints(EMPTY_SUMMARY, stored.steps, stored.values);
    const merge = mergeIntoStored(summary, stored, columnsOf([0], [2], [40], 9), "replace-step")!;
    assert.deepEqual([...merge.merged.steps], [0, 1]);
    assert.deepEqual([...merge.merged.values], [2, 3]);
  });

  it("widens a rewrite to every chunk holding a rewritten step", () => {
    const chunk = (id: number, start: number, end: number) => ({ id, start_step: start, end_step: end, point_count: 512 });
    assert.equal(widenedRange([5, 6], [chunk(1, 5, 6)]), undefined);
    assert.equal(widenedRange([5, 6], []), undefined);
    assert.deepEqual(widenedRange([5, 6], [chunk(1, 3, 5), chunk(2, 5, 9)]), [3, 9]);
  });

  it("takes the last point's time from the points written when they reach the stored last step", () => {
    assert.equal(lastTimeAfter(50, 5, columnsOf([4, 5], [1, 1], [40, 55], 0)), 55);
    assert.equal(lastTimeAfter(50, 5, columnsOf([3, 4], [1, 1], [30, 40], 0)), 50);
    assert.equal(lastTimeAfter(null, null, columnsOf([3], [1], [30], 0)), 30);
  });

  it("adds a boundary chunk's points before or after the chunks inside, in the point order", () => {
    // Step 5 is held by a chunk sticking out before the piece (value 1) and by the chunks inside (value 2, later).
    const inside = addPoints(EMPTY_SUMMARY, [5, 6], [2, 3]);
    const before = columnsOf([4, 5], [0, 1], [40, 50], 0);
    assert.equal(addBoundaryPoints(addPoints(EMPTY_SUMMARY, [5], [2]), [before], 5, 5).lastValue, 2);
    assert.equal(addBoundaryPoints(inside, [before], 5, 6).count, 3);
  });

  it("reads the points of the chunks that stick out of a piece only", () => {
    const chunk = (id: number, start: number, end: number) => ({ id, start_step: start, end_step: end, point_count: end - start + 1 });
    const piece = { metricId: 1, from: 10, to: 20 };
    assert.deepEqual(boundaryChunks(piece, chunk(1, 5, 12), chunk(2, 18, 25)), [chunk(1, 5, 12), chunk(2, 18, 25)]);
    assert.deepEqual(boundaryChunks(piece, chunk(1, 10, 12), chunk(2, 22, 25)), []);
    // Step 20 spans two chunks: the one ending after the piece holds points of it.
    assert.deepEqual(boundaryChunks(piece, chunk(1, 10, 12), chunk(3, 20, 25)), [chunk(3, 20, 25)]);
    assert.deepEqual(boundaryChunks(piece, chunk(1, 5, 25), chunk(1, 5, 25)), [chunk(1, 5, 25)]);
  });

  it("searches names case-insensitively, once each, ascending, up to the limit", () => {
    assert.deepEqual(searchNames(["b/Loss", "a/loss", "acc", "a/loss"], "LOSS", 10), ["a/loss", "b/Loss"]);
    assert.deepEqual(searchNames(["c", "b", "a"], undefined, 2), ["a", "b"]);
  });
});
