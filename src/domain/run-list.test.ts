import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareSortValues,
  fieldValues,
  parseFieldSelection,
  parseRunSort,
  parseStatusList,
  parseTagList,
  runDuration,
} from "./run-list.js";

describe("run list parameters", () => {
  it("parses sorts: columns, key sorts and direction", () => {
    assert.deepEqual(parseRunSort(undefined), { kind: "column", field: "createdAt", descending: true });
    assert.deepEqual(parseRunSort("name"), { kind: "column", field: "name", descending: false });
    assert.deepEqual(parseRunSort("-duration"), { kind: "duration", descending: true });
    assert.deepEqual(parseRunSort("-config.optim.lr"), { kind: "config", key: "optim.lr", descending: true });
    assert.deepEqual(parseRunSort("systemMetadata.gpu"), { kind: "systemMetadata", key: "gpu", descending: false });
    assert.deepEqual(parseRunSort("summary_metrics.val/loss"), { kind: "summaryMetrics", key: "val/loss", descending: false });
    assert.deepEqual(parseRunSort("-summaryMetrics.acc"), { kind: "summaryMetrics", key: "acc", descending: true });
    for (const bad of ["", "-", "owner", "config.", "--name"]) assert.throws(() => parseRunSort(bad), /sort:/, bad);
  });

  it("parses status lists with any case and the aliases, and refuses unknown names", () => {
    assert.deepEqual(parseStatusList("running, Failed,finished,crashed,killed"), ["RUNNING", "FAILED", "COMPLETED", "TERMINATED"]);
    assert.equal(parseStatusList(""), undefined);
    assert.throws(() => parseStatusList("RUNNING,DONE"), /status: 'DONE'/);
  });

  it("parses tag lists, ignoring blanks and repeats", () => {
    assert.deepEqual(parseTagList(" a,,b ,a"), ["a", "b"]);
    assert.equal(parseTagList(" , "), undefined);
  });

  it("parses field selections and picks only the selected keys of a source", () => {
    const selection = parseFieldSelection(
      '[{"source":"config","key":"a.b"},{"source":"systemMetadata","key":"gpu"},{"source":"config","key":"none"}]',
    )!;
    assert.deepEqual(fieldValues({ "a.b": 1, c: 2 }, "config", selection), { "a.b": 1 });
    assert.deepEqual(fieldValues({ gpu: "A100", host: "h" }, "systemMetadata", selection), { gpu: "A100" });
    assert.deepEqual(fieldValues({ c: 2 }, "config", undefined), { c: 2 });
    assert.deepEqual(fieldValues({ c: 2 }, "config", []), {});
    assert.throws(() => parseFieldSelection("{"), /visibleColumns: malformed JSON/);
    assert.throws(() => parseFieldSelection('[{"source":"config"}]'), /visibleColumns\[0\]\.key/);
  });
});

describe("compareSortValues", () => {
  const sorted = (values: unknown[], descending = false) =>
    [...values].sort((a, b) => compareSortValues(a as never, b as never, descending));

  it("orders by type first, as MongoDB does, then by value", () => {
    assert.deepEqual(sorted([true, "b", 2, null, "a", 1, { x: 1 }, [1]]), [null, 1, 2, "a", "b", { x: 1 }, [1], true]);
  });

  it("puts missing values last in both directions", () => {
    assert.deepEqual(sorted([undefined, 2, undefined, 1]), [1, 2, undefined, undefined]);
    assert.deepEqual(sorted([undefined, 2, undefined, 1], true), [2, 1, undefined, undefined]);
  });

  it("measures a run's duration to its last status change, or to now while it runs", () => {
    assert.equal(runDuration({ status: "COMPLETED", createdAt: 1000, statusUpdated: 4000 }, 9000), 3000);
    assert.equal(runDuration({ status: "RUNNING", createdAt: 1000, statusUpdated: 4000 }, 9000), 8000, "a resumed run runs on");
    assert.equal(runDuration({ status: "FAILED", createdAt: 1000, statusUpdated: null }, 9000), 8000);
  });
});
