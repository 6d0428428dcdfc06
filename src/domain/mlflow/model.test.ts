import assert from "node:assert/strict";
import { MAX_EPOCH_MS } from "../time.js";
import { describe, it } from "node:test";
import { listDirectory, normalizeArtifactPath, parseArtifactPath } from "./artifacts.js";
import { MlflowError } from "./errors.js";
import { experimentIdOf, isMlflowRunId, namesProject, newMlflowRunId, parseExperimentId } from "./ids.js";
import {
  applyParams,
  applyTags,
  checkKey,
  checkValue,
  codePointsBeyond,
  LIMITS,
  metricValueJson,
  paramsOf,
  parseInt64,
  parseTime,
  parseMetricValue,
  runsWithinMetricBudget,
  toMlflowStatus,
  toStepwiseStatus,
  truncatedValue,
} from "./model.js";

const invalid = (fn: () => unknown, message?: string) =>
  assert.throws(fn, (error: unknown) => error instanceof MlflowError && error.errorCode === "INVALID_PARAMETER_VALUE", message);

describe("MLflow's model on Stepwise's", () => {
  it("maps statuses both ways", () => {
    assert.deepEqual(["RUNNING", "SCHEDULED", "FINISHED", "FAILED", "KILLED"].map(toStepwiseStatus), [
      "RUNNING",
      "RUNNING",
      "COMPLETED",
      "FAILED",
      "TERMINATED",
    ]);
    assert.deepEqual((["RUNNING", "COMPLETED", "FAILED", "TERMINATED", "CANCELLED"] as const).map(toMlflowStatus), [
      "RUNNING",
      "FINISHED",
      "FAILED",
      "KILLED",
      "KILLED",
    ]);
    invalid(() => toStepwiseStatus("DONE"));
    invalid(() => toStepwiseStatus("constructor"));
  });

  it("shows config as params: nested keys dotted, non-strings as JSON", () => {
    assert.deepEqual(
      [...paramsOf({ lr: "0.1", optim: { beta: 0.9, name: "adam" }, layers: [1, 2], flag: true, none: null, empty: {} })],
      [
        ["lr", "0.1"],
        ["optim.beta", "0.9"],
        ["optim.name", "adam"],
        ["layers", "[1,2]"],
        ["flag", "true"],
        ["none", "null"],
        ["empty", "{}"],
      ],
    );
    assert.deepEqual([...paramsOf(null)], []);
  });

  it("keeps params write-once", () => {
    const config = applyParams({ a: 1, nested: { b: "x" } }, [
      ["lr", "0.1"],
      ["a", "1"],
      ["nested.b", "x"],
    ]);
    assert.deepEqual(config, { a: 1, nested: { b: "x" }, lr: "0.1" }, "the same value again changes nothing");
    invalid(() => applyParams(config, [["lr", "0.2"]]));
    invalid(() => applyParams(config, [["nested.b", "y"]]));
    invalid(() => applyParams(config, [["nested", "flat"]]), "a key naming a nested object");
    invalid(
      () =>
        applyParams(null, [
          ["x", "1"],
          ["x", "2"],
        ]),
      "two values in one batch",
    );
    const hostile = applyParams(null, [["__proto__", "v"]]) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(hostile), Object.prototype);
    assert.deepEqual(Object.keys(hostile), ["__proto__"]);
  });

  it("sets and deletes tags in place", () => {
    assert.deepEqual(
      applyTags(
        [
          ["a", "1"],
          ["b", "2"],
        ],
        [
          ["a", "3"],
          ["c", "4"],
        ],
        ["b"],
      ),
      [
        ["a", "3"],
        ["c", "4"],
      ],
    );
  });

  it("truncates a run's param and tag values past their limit, counting code points as Python does", () => {
    assert.equal(truncatedValue("v".repeat(6000), "value", LIMITS.paramValueLength), "v".repeat(6000), "at the limit: kept whole");
    assert.equal(truncatedValue("v".repeat(6001), "value", LIMITS.paramValueLength), "v".repeat(6000));
    assert.equal(truncatedValue("t".repeat(9000), "value", LIMITS.tagValueLength), "t".repeat(8000));
    const emoji = "😀"; // one code point, two UTF-16 units
    assert.equal(truncatedValue(emoji.repeat(6000), "value", 6000), emoji.repeat(6000), "6,000 characters, 12,000 UTF-16 units: kept");
    const cut = truncatedValue(`a${emoji.repeat(6000)}`, "value", 6000);
    assert.equal(cut, `a${emoji.repeat(5999)}`, "cut after a whole pair, never inside one");
    assert.equal([...cut].length, 6000);
    assert.equal(truncatedValue(`ab${emoji}`, "value", 2), "ab");
    assert.equal(truncatedValue(`${emoji}b`, "value", 1), emoji);
    assert.equal(truncatedValue("", "value", 1), "");
    invalid(() => truncatedValue(undefined, "value", 10), "a value is still required");
    invalid(() => truncatedValue(5, "value", 10));
  });

  it("compares a param logged again by its truncated value, as MLflow's server does", () => {
    const logged = applyParams(null, [["p", truncatedValue("x".repeat(7000), "value", LIMITS.paramValueLength)]]);
    const again = truncatedValue(`${"x".repeat(6000)}y`, "value", LIMITS.paramValueLength);
    assert.deepEqual(applyParams(logged, [["p", again]]), logged, "the same 6,000 characters: accepted, unchanged");
    invalid(() => applyParams(logged, [["p", truncatedValue("x".repeat(5999), "value", LIMITS.paramValueLength)]]));
  });

  it("refuses an experiment tag value past its limit, counting code points", () => {
    assert.equal(checkValue("😀".repeat(5000), "value", LIMITS.experimentTagValueLength), "😀".repeat(5000));
    invalid(() => checkValue("x".repeat(5001), "value", LIMITS.experimentTagValueLength));
    assert.equal(codePointsBeyond("abc", 3), undefined);
    assert.equal(codePointsBeyond("abcd", 3), 3);
    assert.equal(codePointsBeyond("😀😀😀", 2), 4);
  });

  it("checks keys as MLflow does", () => {
    assert.equal(checkKey("a b/c:d-e.f_g", "key"), "a b/c:d-e.f_g");
    for (const bad of ["", "a\nb", "a*b", "../x", "x/./y", "k".repeat(251), 5]) invalid(() => checkKey(bad, "key"));
  });

  it("reads and writes metric values, non-finite ones as protobuf's JSON strings", () => {
    assert.ok(Number.isNaN(parseMetricValue("NaN", "v")));
    assert.equal(parseMetricValue("Infinity", "v"), Number.POSITIVE_INFINITY);
    assert.equal(parseMetricValue("-Infinity", "v"), Number.NEGATIVE_INFINITY);
    assert.equal(parseMetricValue(1.5, "v"), 1.5);
    assert.equal(parseMetricValue("2", "v"), 2);
    for (const bad of ["x", "", null, undefined, {}, "1e400", JSON.parse("1e400"), JSON.parse("-1e400")])
      invalid(() => parseMetricValue(bad, "v"));
    assert.deepEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3].map(metricValueJson), [
      "NaN",
      "Infinity",
      "-Infinity",
      3,
    ]);
    assert.equal(parseInt64("123", "t"), 123);
    assert.equal(parseInt64(undefined, "t", 7), 7);
    for (const bad of [-1, 1.5, "1e3", 2 ** 53, "x"]) invalid(() => parseInt64(bad, "t"));
  });

  it("fits a search page's runs to its budget of latest metrics, at least one run", () => {
    const budget = LIMITS.searchPageMetrics;
    assert.equal(runsWithinMetricBudget([]), 0);
    assert.equal(runsWithinMetricBudget([1, 2, 3]), 3);
    assert.equal(runsWithinMetricBudget([budget, 1]), 1);
    assert.equal(runsWithinMetricBudget([budget + 5, 1]), 1, "a run past the budget alone still makes a page");
    assert.equal(runsWithinMetricBudget([budget / 2, budget / 2, 1]), 2);
  });

  it("reads times no later than a JavaScript date can hold", () => {
    assert.equal(parseTime(String(MAX_EPOCH_MS), "t"), MAX_EPOCH_MS);
    assert.equal(parseTime(undefined, "t", 5), 5);
    for (const bad of [MAX_EPOCH_MS + 1, String(2 ** 53 - 1), -1]) invalid(() => parseTime(bad, "t"));
  });

  it("makes and recognizes IDs", () => {
    assert.ok(isMlflowRunId(newMlflowRunId()));
    assert.equal(isMlflowRunId("A".repeat(32)), false);
    assert.deepEqual(parseExperimentId("12"), { default: false, projectId: 12 });
    assert.deepEqual(parseExperimentId("0"), { default: true });
    assert.deepEqual(["00", "01", "-1", "1.5", "x", "", "99999999999999999"].map(parseExperimentId), [
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('maps the default experiment to "0" and every other project to its ID, both ways', () => {
    assert.deepEqual([experimentIdOf(7, true), experimentIdOf(7, false), experimentIdOf(12, false)], ["0", "7", "12"]);
    for (const [projectId, isDefault] of [
      [7, true],
      [7, false],
      [12, false],
    ] as const) {
      const ref = parseExperimentId(experimentIdOf(projectId, isDefault))!;
      assert.equal(ref.default ? isDefault : ref.projectId === projectId, true, "parse reads back what experimentIdOf renders");
    }
    assert.equal(namesProject("0", 7, true), true);
    assert.equal(namesProject("7", 7, true), true, "the default also answers to its project's ID");
    assert.equal(namesProject("0", 7, false), false, '"0" names only the default');
    assert.equal(namesProject("8", 7, false), false);
    assert.equal(namesProject("x", 7, true), false);
  });

  it("maps artifact paths and lists directories", () => {
    const id = "a".repeat(32);
    assert.deepEqual(parseArtifactPath(`3/${id}/artifacts/x/y.txt`), { experimentId: "3", runId: id, relative: "x/y.txt" });
    assert.deepEqual(parseArtifactPath(`3/${id}/artifacts`), { experimentId: "3", runId: id, relative: "" });
    invalid(() => parseArtifactPath(`3/${id}/other/x`));
    invalid(() => parseArtifactPath(`3/${id}/artifacts/../x`));
    assert.equal(normalizeArtifactPath("/a//b/"), "a/b");
    const files = [
      { fileName: "b.txt", fileSize: 2 },
      { fileName: "dir/c.txt", fileSize: 3 },
      { fileName: "dir/sub/d.txt", fileSize: 4 },
      { fileName: "a.txt", fileSize: 1 },
    ];
    assert.deepEqual(listDirectory(files, ""), [
      { name: "a.txt", isDir: false, size: 1 },
      { name: "b.txt", isDir: false, size: 2 },
      { name: "dir", isDir: true, size: 0 },
    ]);
    assert.deepEqual(listDirectory(files, "dir"), [
      { name: "c.txt", isDir: false, size: 3 },
      { name: "sub", isDir: true, size: 0 },
    ]);
    assert.deepEqual(listDirectory(files, "di"), [], "a prefix of a name is not its directory");
  });
});
