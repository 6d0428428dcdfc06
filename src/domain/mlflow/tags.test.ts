import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newRunName, newRunTags } from "./tags.js";

describe("an MLflow run's tags", () => {
  it("creates a run with the tags sent and its name as mlflow.runName, nothing else", () => {
    assert.deepEqual(newRunTags([["team", "a"]], "first"), [
      ["team", "a"],
      ["mlflow.runName", "first"],
    ]);
    assert.deepEqual(newRunTags([], "first"), [["mlflow.runName", "first"]], "no mlflow.user the client did not send");
    assert.deepEqual(
      newRunTags(
        [
          ["mlflow.user", "ann"],
          ["mlflow.runName", "old"],
        ],
        "first",
      ),
      [
        ["mlflow.user", "ann"],
        ["mlflow.runName", "first"],
      ],
      "one the client sent is kept as sent",
    );
  });

  it("names a new run by run_name, else its mlflow.runName tag, else its time; both given must agree", () => {
    assert.equal(newRunName("a", [], 0), "a");
    assert.equal(newRunName(undefined, [["mlflow.runName", "b"]], 0), "b");
    assert.equal(newRunName("a", [["mlflow.runName", "a"]], 0), "a");
    assert.equal(newRunName("", [], 36), "run-10");
    assert.throws(
      () => newRunName("a", [["mlflow.runName", "b"]], 0),
      /Both 'run_name' argument and 'mlflow.runName' tag are specified, but with different values \(run_name='a', mlflow.runName='b'\)/,
    );
  });
});
