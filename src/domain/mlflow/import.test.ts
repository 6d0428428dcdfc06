import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileStoreStatus, importedWhole, parseMetricLine, parseMetricValue, versionsToImport } from "./import.js";

describe("the import's reading of MLflow's file store", () => {
  it("reads metric lines with and without a step, NaN and the infinities as Python writes them", () => {
    assert.deepEqual(parseMetricLine("1700000000000 0.5 3"), { timestamp: 1700000000000, value: 0.5, step: 3 });
    assert.deepEqual(parseMetricLine("1700000000000 2"), { timestamp: 1700000000000, value: 2, step: 0 });
    assert.ok(Number.isNaN(parseMetricLine("1 nan 1").value));
    assert.equal(parseMetricLine("1 inf 1").value, Number.POSITIVE_INFINITY);
    assert.equal(parseMetricLine("1 -inf 1").value, Number.NEGATIVE_INFINITY);
    assert.equal(parseMetricValue("Infinity"), Number.POSITIVE_INFINITY);
    assert.equal(parseMetricLine("1 1e-300 -2").step, -2);
  });

  it("refuses a line that is not a point", () => {
    for (const line of ["", "1", "1 x 2", "1 2 3 4", "1.5 2 3", "1 2 3.5"]) assert.throws(() => parseMetricLine(line), /not a metric/);
  });

  it("maps the file store's status numbers to MLflow's names", () => {
    assert.equal(fileStoreStatus(1), "RUNNING");
    assert.equal(fileStoreStatus(3), "FINISHED");
    assert.equal(fileStoreStatus(5), "KILLED");
    assert.equal(fileStoreStatus("FAILED"), "FAILED");
    assert.throws(() => fileStoreStatus(9), /unknown run status/);
  });
});

describe("what a re-run of the import skips", () => {
  it("a run is whole when Stepwise holds the source's terminal status; a source run still RUNNING never is", () => {
    assert.equal(importedWhole("COMPLETED", "FINISHED"), true);
    assert.equal(importedWhole("TERMINATED", "KILLED"), true);
    assert.equal(importedWhole("RUNNING", "FINISHED"), false, "interrupted before its status was written");
    assert.equal(importedWhole("FAILED", "FINISHED"), false, "marked failed while the import was stopped");
    assert.equal(importedWhole("RUNNING", "RUNNING"), false);
  });

  it("a model's versions in order, without the first lastVersion of them (numbered 1, 2, … in Stepwise even over gaps)", () => {
    const versions = [{ version: 5 }, { version: 1 }, { version: 2 }];
    assert.deepEqual(versionsToImport(versions, 0), [{ version: 1 }, { version: 2 }, { version: 5 }]);
    assert.deepEqual(versionsToImport(versions, 2), [{ version: 5 }]);
    assert.deepEqual(versionsToImport(versions, 3), []);
  });
});
