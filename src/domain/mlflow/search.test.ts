import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MlflowError } from "./errors.js";
import { REGISTERED_MODEL_FILTER } from "./registry.js";
import {
  compareKeys,
  compileClause,
  decodeSearchToken,
  encodeSearchToken,
  EXPERIMENT_ATTRIBUTES,
  likePattern,
  parseFilter,
  parseOrderBy,
  type ClauseValue,
  type SortValue,
} from "./search.js";

const invalid = (fn: () => unknown, message?: string) =>
  assert.throws(fn, (error: unknown) => error instanceof MlflowError && error.errorCode === "INVALID_PARAMETER_VALUE", message);

const matches = (filter: string, value: ClauseValue) => compileClause(parseFilter(filter)[0]!)(value);

describe("MLflow filter grammar", () => {
  it("parses each entity, its aliases and quoted keys", () => {
    assert.deepEqual(parseFilter("metrics.loss < 0.5 and params.lr = '0.01' AND tags.team != \"x\""), [
      { entity: "metric", key: "loss", comparator: "<", value: 0.5 },
      { entity: "param", key: "lr", comparator: "=", value: "0.01" },
      { entity: "tag", key: "team", comparator: "!=", value: "x" },
    ]);
    assert.deepEqual(
      parseFilter(
        "metric.`my key` >= -1e3 AND param.\"a b\" LIKE 'x%' AND tag.'c:d' ILIKE '%Y' AND attribute.status IN ('FINISHED', 'FAILED')",
      ).map((c) => [c.entity, c.key, c.comparator, c.value]),
      [
        ["metric", "my key", ">=", -1000],
        ["param", "a b", "LIKE", "x%"],
        ["tag", "c:d", "ILIKE", "%Y"],
        ["attribute", "status", "IN", ["FINISHED", "FAILED"]],
      ],
    );
    assert.deepEqual(parseFilter("attributes.run_id NOT IN ('a')")[0]!.comparator, "NOT IN");
    assert.deepEqual(parseFilter("run_name = 'x'")[0]!.key, "run_name", "a bare name is an attribute");
    assert.deepEqual(parseFilter("\"Run Name\" = 'x'")[0]!.key, "run_name");
    assert.deepEqual(parseFilter("attributes.created > 5")[0]!.key, "start_time");
    assert.deepEqual(parseFilter("  "), []);
    assert.deepEqual(parseFilter(undefined), []);
    assert.equal(parseFilter("tags.q = 'it''s'")[0]!.value, "it's", "a doubled quote is one quote");
  });

  it("refuses what MLflow refuses, as INVALID_PARAMETER_VALUE", () => {
    for (const filter of [
      "metrics.loss < 'a'", // a metric compares with numbers
      "params.lr > '1'", // params compare as strings: = != LIKE ILIKE
      "tags.t IN ('a')", // IN is for string attributes
      "metrics.loss LIKE 'a'",
      "attributes.start_time = 'x'",
      "attributes.nope = 'x'",
      "bogus.x = 'y'",
      "metrics.loss < 1 OR metrics.loss > 2",
      "metrics.loss <",
      "params.lr = 'unterminated",
      "params.lr = `backticks are names`",
      "attributes.status IN 'a'",
      "attributes.status IN ('a' 'b')",
      "params.lr = 'a' AND",
      "metrics. < 1",
      "metrics.loss ~ 1",
    ])
      invalid(() => parseFilter(filter));
    invalid(() => parseFilter("name = 'x' AND tags.a = 'b' AND creation_time > 'a'", EXPERIMENT_ATTRIBUTES));
  });

  it("compares numbers for = != > >= < <=, and a run without the value never matches", () => {
    assert.equal(matches("metrics.m = 1", 1), true);
    assert.equal(matches("metrics.m != 1", 2), true);
    assert.equal(matches("metrics.m != 1", undefined), false);
    assert.equal(matches("metrics.m > 1", 1), false);
    assert.equal(matches("metrics.m >= 1", 1), true);
    assert.equal(matches("metrics.m < 1", 0.5), true);
    assert.equal(matches("metrics.m <= 1", 1.5), false);
    assert.equal(matches("metrics.m < 1", Number.NaN), false, "NaN is not below anything");
    assert.equal(matches("metrics.m > 1", Number.POSITIVE_INFINITY), true);
  });

  it("compares strings with = != LIKE ILIKE IN NOT IN", () => {
    assert.equal(matches("params.p = 'a'", "a"), true);
    assert.equal(matches("params.p = 'a'", "A"), false);
    assert.equal(matches("params.p != 'a'", "b"), true);
    assert.equal(matches("params.p LIKE 'a%c'", "abbc"), true);
    assert.equal(matches("params.p LIKE 'a_c'", "abbc"), false);
    assert.equal(matches("params.p LIKE 'A%'", "abc"), false, "LIKE is case-sensitive");
    assert.equal(matches("params.p ILIKE 'A%'", "abc"), true);
    assert.equal(matches("params.p LIKE '%.%'", "1x2"), false, "only % and _ are wildcards");
    assert.equal(matches("attributes.status IN ('FINISHED', 'KILLED')", "KILLED"), true);
    assert.equal(matches("attributes.status NOT IN ('FINISHED')", "RUNNING"), true);
    assert.equal(matches("attributes.status NOT IN ('FINISHED')", "FINISHED"), false);
    assert.equal(matches("params.p IS NULL", undefined), true);
    assert.equal(matches("params.p IS NULL", ""), false, "an empty value is a value");
    assert.equal(matches("tags.t IS NOT NULL", "x"), true);
    assert.equal(matches("tags.t is not null", undefined), false);
    assert.throws(() => parseFilter("metrics.m IS NULL"), /Invalid comparator 'IS NULL'/);
    assert.throws(
      () => parseFilter("tags.t IS NULL", REGISTERED_MODEL_FILTER),
      /Invalid comparator/,
      "the registry's searches do not take them",
    );
    assert.equal(likePattern("a(b)[c]", false)("a(b)[c]"), true, "regex characters are literal");
    assert.equal(likePattern("a\\Qb\\E%", false)("a\\Qb\\Ec"), true, "quoting escapes are literal too");
    assert.equal(likePattern("_é%", true)("xÉz\ny"), true, "_ is one character, % crosses lines, ILIKE folds case");
  });

  it("parses datasets.name, .digest and .context with MLflow's dataset comparators, lists included", () => {
    assert.deepEqual(
      parseFilter(
        "datasets.name = 'iris' AND dataset.digest != 'abc' AND datasets.`context` LIKE 'train%' AND datasets.name ILIKE 'I%' " +
          "AND datasets.digest IN ('a', 'b') AND datasets.context NOT IN ('eval')",
      ).map((c) => [c.entity, c.key, c.comparator, c.value]),
      [
        ["dataset", "name", "=", "iris"],
        ["dataset", "digest", "!=", "abc"],
        ["dataset", "context", "LIKE", "train%"],
        ["dataset", "name", "ILIKE", "I%"],
        ["dataset", "digest", "IN", ["a", "b"]],
        ["dataset", "context", "NOT IN", ["eval"]],
      ],
    );
    for (const filter of [
      "datasets.source = 'x'", // only name, digest and context
      "datasets.name > 'a'",
      "datasets.name = 1",
      "datasets.name IN 'a'",
      "datasets.name = `backticks`",
    ])
      invalid(() => parseFilter(filter));
    invalid(() => parseFilter("datasets.name = 'x'", EXPERIMENT_ATTRIBUTES), "experiments have no datasets");
    invalid(() => parseOrderBy(["datasets.name"]), "runs are not ordered by datasets");
  });

  it("matches a datasets clause when any input of the run does, != and NOT IN included; a run without datasets matches none", () => {
    assert.equal(matches("datasets.name = 'b'", ["a", "b"]), true);
    assert.equal(matches("datasets.name = 'c'", ["a", "b"]), false);
    assert.equal(matches("datasets.name != 'a'", ["a", "b"]), true, "b is not a");
    assert.equal(matches("datasets.name != 'a'", ["a"]), false);
    assert.equal(matches("datasets.name != 'a'", []), false, "no input, no match");
    assert.equal(matches("datasets.digest IN ('x', 'y')", ["z", "y"]), true);
    assert.equal(matches("datasets.digest NOT IN ('x', 'y')", ["x", "y"]), false);
    assert.equal(matches("datasets.context NOT IN ('eval')", ["eval", "training"]), true);
    assert.equal(matches("datasets.context LIKE 'TRAIN%'", ["training"]), false);
    assert.equal(matches("datasets.context ILIKE 'TRAIN%'", ["training"]), true);
    assert.equal(matches("datasets.name = 'a'", "a"), false, "a dataset clause reads lists only");
    assert.equal(matches("params.p = 'a'", ["a"]), false, "and other clauses never read one");
  });

  it("matches LIKE in linear time: a pattern with many % over a long text does not backtrack", () => {
    // A backtracking RegExp needs ~7x longer per extra %: this one would take hours.
    const pattern = `${"%a".repeat(40)}%b`;
    const text = "a".repeat(8000);
    assert.equal(likePattern(pattern, false)(text), false);
    assert.equal(likePattern(pattern, true)(`${text}B`), true);
  });

  it("parses order_by with directions and quoted keys", () => {
    assert.deepEqual(parseOrderBy(["metrics.loss ASC", "params.`a b` desc", "attributes.start_time", "run_name"]), [
      { entity: "metric", key: "loss", ascending: true },
      { entity: "param", key: "a b", ascending: false },
      { entity: "attribute", key: "start_time", ascending: true },
      { entity: "attribute", key: "run_name", ascending: true },
    ]);
    invalid(() => parseOrderBy(["metrics.loss UP"]));
    invalid(() => parseOrderBy(["metrics.loss ASC DESC"]));
  });

  it("orders missing values last either way, NaN after numbers, then start time newest first and run ID", () => {
    const terms = parseOrderBy(["metrics.m ASC"]);
    const keys: SortValue[][] = [
      [null, 5, "a"],
      [Number.NaN, 5, "b"],
      [2, 5, "c"],
      [1, 5, "e"],
      [1, 9, "f"],
      [1, 5, "d"],
    ];
    const sorted = [...keys].sort((a, b) => compareKeys(a, b, terms)).map((k) => k[2]);
    assert.deepEqual(sorted, ["f", "d", "e", "c", "b", "a"]);
    const descending = [...keys].sort((a, b) => compareKeys(a, b, parseOrderBy(["metrics.m DESC"]))).map((k) => k[2]);
    assert.deepEqual(descending, ["b", "c", "f", "d", "e", "a"], "missing stays last");
  });

  it("round-trips page tokens, non-finite values included, and refuses foreign ones", () => {
    const key: SortValue[] = [Number.NaN, Number.NEGATIVE_INFINITY, "x", null, 5];
    const decoded = decodeSearchToken(encodeSearchToken(key), 5)!;
    assert.ok(Number.isNaN(decoded[0]));
    assert.deepEqual(decoded.slice(1), [Number.NEGATIVE_INFINITY, "x", null, 5]);
    assert.equal(decodeSearchToken(undefined, 2), undefined);
    invalid(() => decodeSearchToken(encodeSearchToken([1]), 2));
    invalid(() => decodeSearchToken("!!!", 2));
    invalid(() => decodeSearchToken(Buffer.from("{}").toString("base64"), 2));
  });
});
