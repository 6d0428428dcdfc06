import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { forkedAttributes, forkLastStep, normalizeNotes, uniqueTags } from "./runs.js";

describe("run rules", () => {
  it("keeps the first occurrence of each tag", () => {
    assert.deepEqual(uniqueTags(["b", "a", "b", "c", "a"]), ["b", "a", "c"]);
  });

  it("treats empty notes as no notes", () => {
    assert.equal(normalizeNotes(""), null);
    assert.equal(normalizeNotes(null), null);
    assert.equal(normalizeNotes(" x "), " x ");
  });

  it("lets a run be forked up to its own last step or the step it inherits up to", () => {
    assert.equal(forkLastStep({ forkStep: null }, null), 0);
    assert.equal(forkLastStep({ forkStep: null }, 7), 7);
    assert.equal(forkLastStep({ forkStep: 9 }, 7), 9);
  });

  const parent = { id: 1, projectId: 5, config: { a: { x: 1, y: 2 } }, tags: ["p", "q"], forkStep: null };
  const child = { projectId: 5, projectName: "proj", config: { a: { y: 3 } }, tags: ["q", "c"] };

  it("inherits config (child wins) and tags (de-duplicated) when asked", () => {
    assert.deepEqual(forkedAttributes({ runId: 1, step: 3, inheritConfig: true, inheritTags: true }, parent, 3, child), {
      config: { a: { x: 1, y: 3 } },
      tags: ["p", "q", "c"],
    });
    assert.deepEqual(forkedAttributes({ runId: 1, step: 3, inheritConfig: false, inheritTags: false }, parent, 3, child), {
      config: child.config,
      tags: child.tags,
    });
  });

  it("refuses an unknown parent, a parent of another project and a step past the parent's last", () => {
    const fork = { runId: 1, step: 3, inheritConfig: false, inheritTags: false };
    assert.throws(() => forkedAttributes(fork, undefined, null, child), { code: "RUN_NOT_FOUND" });
    assert.throws(() => forkedAttributes(fork, { ...parent, projectId: 6 }, 3, child), { code: "RUN_NOT_FOUND" });
    assert.throws(() => forkedAttributes(fork, parent, 2, child), { code: "INVALID_INPUT" });
  });
});
