import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newRunTags } from "./tags.js";

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
});
