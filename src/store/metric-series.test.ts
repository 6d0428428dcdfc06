import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addPoints, EMPTY_SUMMARY } from "../domain/summaries.js";
import { columnsOf, MAX_CHUNK_POINTS, SMALL_CHUNK_POINTS } from "./metric-chunks.js";
import { appendsAfterLastStep, boundaryChunks, extendsLastChunk, mergeIntoStored, searchNames } from "./metric-series.js";

const columns = (steps: number[], values: number[]) => columnsOf(steps, values, steps, 0);

describe("shared metric chunk decisions", () => {
  it("appends when every incoming step is past the stored ones", () => {
    assert.equal(appendsAfterLastStep(null, columns([0], [1])), true);
    assert.equal(appendsAfterLastStep(4, columns([5, 6], [1, 1])), true);
    assert.equal(appendsAfterLastStep(5, columns([5, 6], [1, 1])), false);
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
    assert.equal(mergeIntoStored(summary, stored, columns([1], [2])), undefined);
    const added = mergeIntoStored(summary, stored, columns([1.5], [10]))!;
    assert.deepEqual([...added.merged.steps], [0, 1, 1.5, 2]);
    assert.notEqual(added.summary, "rescan");
    assert.equal((added.summary as typeof summary).max, 10);
    assert.equal(mergeIntoStored(summary, stored, columns([1], [5]))!.summary, "rescan");
  });

  it("reads the points of the chunks that stick out of a piece only", () => {
    const chunk = (id: number, start: number, end: number) => ({ id, start_step: start, end_step: end, point_count: end - start + 1 });
    const piece = { metricId: 1, from: 10, to: 20 };
    assert.deepEqual(boundaryChunks(piece, chunk(1, 5, 12), chunk(2, 18, 25)), [chunk(1, 5, 12), chunk(2, 18, 25)]);
    assert.deepEqual(boundaryChunks(piece, chunk(1, 10, 12), chunk(2, 18, 20)), []);
    assert.deepEqual(boundaryChunks(piece, chunk(1, 5, 25), chunk(1, 5, 25)), [chunk(1, 5, 25)]);
  });

  it("searches names case-insensitively, once each, ascending, up to the limit", () => {
    assert.deepEqual(searchNames(["b/Loss", "a/loss", "acc", "a/loss"], "LOSS", 10), ["a/loss", "b/Loss"]);
    assert.deepEqual(searchNames(["c", "b", "a"], undefined, 2), ["a", "b"]);
  });
});
