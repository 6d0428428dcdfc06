import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Json } from "../merge.js";
import { DATASET_CONTEXT_TAG, DATASET_LIMITS, datasetInputsOf, datasetValues, parseDatasetInputs, withDatasetInputs } from "./datasets.js";
import { MlflowError } from "./errors.js";

const invalid = (fn: () => unknown, message?: string) =>
  assert.throws(fn, (error: unknown) => error instanceof MlflowError && error.errorCode === "INVALID_PARAMETER_VALUE", message);

const input = (name: string, digest: string, context?: string, source = "s3://bucket/data") => ({
  tags: context === undefined ? [] : [{ key: DATASET_CONTEXT_TAG, value: context }],
  dataset: { name, digest, source_type: "s3", source },
});

describe("MLflow's dataset inputs", () => {
  it("reads a request's inputs as MLflow's JSON carries them, keeping only MLflow's fields", () => {
    const [parsed] = parseDatasetInputs([
      {
        tags: [{ key: DATASET_CONTEXT_TAG, value: "training" }],
        dataset: { name: "d", digest: "abc", source_type: "local", source: "{}", schema: "{}", profile: '{"rows": 3}', extra: 1 },
        extra: true,
      },
    ]);
    assert.deepEqual(parsed, {
      tags: [{ key: DATASET_CONTEXT_TAG, value: "training" }],
      dataset: { name: "d", digest: "abc", source_type: "local", source: "{}", schema: "{}", profile: '{"rows": 3}' },
    });
    assert.deepEqual(
      parseDatasetInputs([{ dataset: { name: "d" }, tags: [{ key: "k" }] }]),
      [{ tags: [{ key: "k", value: "" }], dataset: { name: "d", digest: "", source_type: "", source: "" } }],
      "an unset string is empty, as protobuf reads it; schema and profile stay absent",
    );
  });

  it("refuses what MLflow refuses: wrong types and values past its limits", () => {
    const long = (n: number) => "x".repeat(n);
    invalid(() => parseDatasetInputs([null]));
    invalid(() => parseDatasetInputs(["d"]));
    invalid(() => parseDatasetInputs([{ dataset: "d" }]));
    invalid(() => parseDatasetInputs([{ dataset: { name: 5 } }]));
    invalid(() => parseDatasetInputs([{ tags: {} }]));
    invalid(() => parseDatasetInputs([{ tags: [{ key: 1, value: "v" }] }]));
    invalid(() => parseDatasetInputs([{ dataset: { name: long(DATASET_LIMITS.name + 1) } }]));
    invalid(() => parseDatasetInputs([{ dataset: { digest: long(DATASET_LIMITS.digest + 1) } }]));
    invalid(() => parseDatasetInputs([{ dataset: { source: long(DATASET_LIMITS.source + 1) } }]));
    invalid(() => parseDatasetInputs([{ tags: [{ key: long(DATASET_LIMITS.tagKey + 1), value: "" }] }]));
    invalid(() => parseDatasetInputs([{ tags: [{ key: "k", value: long(DATASET_LIMITS.tagValue + 1) }] }]));
    assert.equal(
      parseDatasetInputs([{ dataset: { name: "😀".repeat(DATASET_LIMITS.name) } }])[0]!.dataset.name.length,
      1000,
      "code points",
    );
  });

  it("keeps one input per dataset name and digest, the first logged, whatever the later one's context or source", () => {
    let stored: Json | null = null;
    stored = withDatasetInputs(stored, [input("d", "1", "training"), input("d", "1", "eval"), input("d", "2", "eval")]);
    assert.deepEqual(stored, [input("d", "1", "training"), input("d", "2", "eval")], "the first of each in one request");
    const before = stored;
    stored = withDatasetInputs(stored, [input("d", "1", "test", "elsewhere"), input("d", "2")]);
    assert.equal(stored, before, "nothing new: the stored value itself");
    stored = withDatasetInputs(stored, [input("d", "2"), input("e", "1", "eval"), input("d", "3")]);
    assert.deepEqual(
      datasetInputsOf(stored).map((i) => [i.dataset.name, i.dataset.digest, i.tags[0]?.value]),
      [
        ["d", "1", "training"],
        ["d", "2", "eval"],
        ["e", "1", "eval"],
        ["d", "3", undefined],
      ],
    );
    const pairs = withDatasetInputs(null, [input("ab", "c"), input("a", "bc"), input('a","b', "c"), input("a", 'b","c')]) as unknown[];
    assert.equal(pairs.length, 4, "a name and digest that join to the same text are other datasets");
  });

  it("reads inputs stored before they were checked: one per dataset, and none that MLflow's client could not read", () => {
    const old = [input("d", "1", "training"), input("d", "1", "eval"), 5, { dataset: { name: 7 } }, input("e", "2")] as unknown as Json;
    assert.deepEqual(datasetInputsOf(old), [input("d", "1", "training"), input("e", "2")]);
    assert.deepEqual(datasetInputsOf(null), []);
    assert.deepEqual(datasetInputsOf({ not: "a list" }), []);
    assert.deepEqual(withDatasetInputs(old, [input("f", "3")]), [input("d", "1", "training"), input("e", "2"), input("f", "3")]);
  });

  it("gives a search each input's dataset name and digest, and the context of those that have one", () => {
    const other = { ...input("g", "4"), tags: [{ key: "mlflow.data.other", value: "training" }] };
    const inputs = [input("d", "1", "training"), input("e", "2"), input("f", "3", "eval"), other];
    assert.deepEqual(datasetValues(inputs, "name"), ["d", "e", "f", "g"]);
    assert.deepEqual(datasetValues(inputs, "digest"), ["1", "2", "3", "4"]);
    assert.deepEqual(datasetValues(inputs, "context"), ["training", "eval"], "only the mlflow.data.context tag");
    assert.deepEqual(datasetValues([], "name"), []);
  });
});
