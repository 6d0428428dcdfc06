import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRunSort, runSortOf } from "./run-sort.js";

describe("runSortOf", () => {
  it("names the sorts parseRunSort accepts, and nothing else", () => {
    for (const name of [
      "createdAt",
      "updatedAt",
      "name",
      "status",
      "duration",
      "config.lr",
      "systemMetadata.gpu",
      "summary_metrics.loss",
    ]) {
      assert.deepEqual(runSortOf(name, true), parseRunSort(`-${name}`), name);
    }
    for (const name of ["", "displayId", "tags", "config.", "summary.loss", "-name"]) assert.equal(runSortOf(name), undefined, name);
  });
});
