import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_RUNS_PER_CHANGE, planRunDeletion, planRunRestore, type RunForChange, runsToRetire } from "./deletion.js";
import { DomainError } from "./errors.js";

const code = (code: string) => (error: unknown) => error instanceof DomainError && error.code === code;
const run = (id: number, fields: Partial<RunForChange> = {}): RunForChange => ({
  id,
  deletedAt: null,
  forkedFromRunId: null,
  parentDeletedAt: null,
  projectDeletedAt: null,
  ...fields,
});
const DAY = 86_400_000;

describe("deletion rules", () => {
  it("deletes the named live runs once each; one in the trash keeps its time; an unknown one fails the whole call", () => {
    assert.deepEqual(planRunDeletion([3, 1, 3], [run(1), run(3)], []), [3, 1]);
    assert.deepEqual(planRunDeletion([1, 2], [run(1), run(2, { deletedAt: 5 })], []), [1]);
    assert.throws(() => planRunDeletion([1, 9], [run(1)], []), code("RUN_NOT_FOUND"));
    assert.throws(() => planRunDeletion([], [], []), code("INVALID_INPUT"));
    const many = Array.from({ length: MAX_RUNS_PER_CHANGE + 1 }, (_, i) => i + 1);
    assert.throws(
      () =>
        planRunDeletion(
          many,
          many.map((id) => run(id)),
          [],
        ),
      code("INVALID_INPUT"),
    );
  });

  it("refuses a parent whose live fork stays, and takes both together", () => {
    const forks = [{ parentId: 1, childId: 2 }];
    assert.throws(() => planRunDeletion([1], [run(1), run(2, { forkedFromRunId: 1 })], forks), code("CONFLICT"));
    assert.deepEqual(planRunDeletion([1, 2], [run(1), run(2, { forkedFromRunId: 1 })], forks), [1, 2]);
    assert.deepEqual(planRunDeletion([2], [run(2, { forkedFromRunId: 1 })], []), [2], "a fork goes alone");
  });

  it("restores runs of the trash, not those of a deleted project, a fork only with its deleted parent", () => {
    assert.deepEqual(planRunRestore([1, 2], [run(1, { deletedAt: 5 }), run(2)]), [1], "a live run stays as it is");
    assert.throws(() => planRunRestore([1], [run(1, { deletedAt: 5, projectDeletedAt: 5 })]), code("CONFLICT"));
    const child = run(2, { deletedAt: 5, forkedFromRunId: 1, parentDeletedAt: 5 });
    assert.throws(() => planRunRestore([2], [child]), code("CONFLICT"));
    assert.deepEqual(planRunRestore([2, 1], [child, run(1, { deletedAt: 5 })]), [2, 1]);
    assert.throws(() => planRunRestore([7], []), code("RUN_NOT_FOUND"));
  });

  it("retires finished runs older than the policy, keeps tagged and running ones, and parents of kept forks", () => {
    const now = 100 * DAY;
    const old = now - 10 * DAY;
    const candidates = [
      { id: 1, status: "COMPLETED" as const, statusUpdated: old, tags: [] },
      { id: 2, status: "FAILED" as const, statusUpdated: old, tags: ["keep"] },
      { id: 3, status: "RUNNING" as const, statusUpdated: old, tags: [] },
      { id: 4, status: "COMPLETED" as const, statusUpdated: now - DAY, tags: [] },
      { id: 5, status: "COMPLETED" as const, statusUpdated: old, tags: [] },
      { id: 6, status: "COMPLETED" as const, statusUpdated: old, tags: [] },
    ];
    const policy = { maxAgeDays: 7, excludeTag: "keep" };
    assert.deepEqual(runsToRetire(policy, candidates, [], now), [1, 5, 6]);
    // 6 is forked by 4 (kept: too recent), and 5 by 6: both parents stay.
    const forks = [
      { parentId: 6, childId: 4 },
      { parentId: 5, childId: 6 },
    ];
    assert.deepEqual(runsToRetire(policy, candidates, forks, now), [1]);
    assert.deepEqual(runsToRetire({ maxAgeDays: 7, excludeTag: null }, candidates, [], now), [1, 2, 5, 6]);
  });
});
