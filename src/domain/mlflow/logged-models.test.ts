import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MlflowError } from "./errors.js";
import {
  checkLoggedModelName,
  finalizeStatus,
  isLoggedModelId,
  loggedModelArtifactUri,
  modelMaxResults,
  newLoggedModelId,
  parseModelFilter,
  parseModelOrderBy,
  parseWireStatus,
  randomModelName,
  type SearchableModel,
  searchLoggedModels,
  setPairs,
} from "./logged-models.js";

const model = (id: string, overrides: Partial<SearchableModel> = {}): SearchableModel => ({
  id,
  experimentId: "1",
  name: id,
  modelType: null,
  sourceMlflowRunId: null,
  status: "READY",
  artifactUri: loggedModelArtifactUri("1", id),
  createdAt: 0,
  updatedAt: 0,
  params: [],
  tags: [],
  ...overrides,
});
const invalid = (fn: () => unknown) =>
  assert.throws(fn, (e: unknown) => e instanceof MlflowError && e.errorCode === "INVALID_PARAMETER_VALUE");

describe("logged models", () => {
  it("makes IDs as MLflow's server does and recognizes only those", () => {
    const id = newLoggedModelId();
    assert.match(id, /^m-[0-9a-f]{32}$/);
    assert.notEqual(id, newLoggedModelId());
    assert.equal(isLoggedModelId(id), true);
    for (const bad of ["m-", `m-${"A".repeat(32)}`, "0".repeat(32), `x-${"0".repeat(32)}`]) assert.equal(isLoggedModelId(bad), false);
  });

  it("takes statuses by enum name or number; finalizing is READY or FAILED, again if asked", () => {
    assert.equal(parseWireStatus("LOGGED_MODEL_READY"), "READY");
    assert.equal(parseWireStatus(3), "FAILED");
    assert.equal(parseWireStatus("1"), "PENDING");
    for (const bad of [0, "LOGGED_MODEL_STATUS_UNSPECIFIED", "READY", 9, null]) invalid(() => parseWireStatus(bad));
    assert.equal(finalizeStatus("PENDING", "READY"), "READY");
    assert.equal(finalizeStatus("READY", "FAILED"), "FAILED");
    invalid(() => finalizeStatus("READY", "PENDING"));
  });

  it("checks names as MLflow does and generates one when none is given", () => {
    assert.equal(
      checkLoggedModelName("model", () => "x"),
      "model",
    );
    assert.equal(
      checkLoggedModelName(undefined, () => "gen"),
      "gen",
    );
    assert.equal(
      checkLoggedModelName("", () => "gen"),
      "gen",
    );
    for (const bad of ["a/b", "a:b", "a.b", "50%", 'a"b', "a'b", "x".repeat(501)]) invalid(() => checkLoggedModelName(bad, () => "x"));
    assert.match(randomModelName(), /^[a-z]+-[a-z]+-\d{1,3}$/);
  });

  it("sets pairs in place, adding new keys in order", () => {
    assert.deepEqual(
      setPairs(
        [
          ["a", "1"],
          ["b", "2"],
        ],
        [
          ["b", "3"],
          ["c", "4"],
        ],
      ),
      [
        ["a", "1"],
        ["b", "3"],
        ["c", "4"],
      ],
    );
  });

  it("filters on attributes (and aliases), params and tags; metrics match nothing", () => {
    const models = [
      model("a", { params: [["lr", "0.1"]], tags: [["t", "x"]], createdAt: 1, sourceMlflowRunId: "r" }),
      model("b", { params: [["lr", "0.2"]], createdAt: 2, status: "PENDING" }),
    ];
    const ids = (filter: string) => searchLoggedModels(models, parseModelFilter(filter), [], 50, undefined).models.map((m) => m.id);
    assert.deepEqual(ids(""), ["b", "a"]);
    assert.deepEqual(ids("params.lr = '0.1'"), ["a"]);
    assert.deepEqual(ids("tags.t != 'y'"), ["a"]);
    assert.deepEqual(ids("creation_time > 1"), ["b"]);
    assert.deepEqual(ids("attributes.source_run_id = 'r'"), ["a"]);
    assert.deepEqual(ids("status = 'LOGGED_MODEL_PENDING'"), ["b"]);
    assert.deepEqual(ids("name IN ('a', 'b')"), ["b", "a"]);
    assert.deepEqual(ids("metrics.acc > 0"), []);
    invalid(() => parseModelFilter("bogus = 'x'"));
    invalid(() => parseModelFilter("creation_timestamp_ms LIKE 'x'"));
  });

  it("orders by attributes with missing values last, then newest first; pages by offset", () => {
    const models = [
      model("a", { createdAt: 1, modelType: "z" }),
      model("b", { createdAt: 2 }),
      model("c", { createdAt: 3, modelType: "y" }),
    ];
    const order = parseModelOrderBy([{ field_name: "model_type", ascending: true }]);
    assert.deepEqual(
      searchLoggedModels(models, [], order, 50, undefined).models.map((m) => m.id),
      ["c", "a", "b"],
    );
    const byTime = parseModelOrderBy([{ field_name: "creation_timestamp" }]);
    assert.deepEqual(byTime, [{ field: "creation_timestamp_ms", ascending: true }]);
    const first = searchLoggedModels(models, [], byTime, 2, undefined);
    assert.deepEqual(
      first.models.map((m) => m.id),
      ["a", "b"],
    );
    const second = searchLoggedModels(models, [], byTime, 2, first.nextPageToken);
    assert.deepEqual([second.models.map((m) => m.id), second.nextPageToken], [["c"], undefined]);
    invalid(() => parseModelOrderBy([{ field_name: "bogus" }]));
    invalid(() => parseModelOrderBy([{ field_name: "params.x" }]));
    invalid(() => searchLoggedModels(models, [], [], 2, "nope"));
    assert.equal(modelMaxResults(undefined), 50);
    assert.equal(modelMaxResults("7"), 7);
    invalid(() => modelMaxResults(-1));
  });
});
