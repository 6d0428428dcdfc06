import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMlflowLink } from "./mlflow-links.ts";

const RUN = "0123456789abcdef0123456789abcdef";

test("reads the experiment and run of the links MLflow's client prints", () => {
  assert.deepEqual(parseMlflowLink("#/experiments/0"), { experimentId: "0" });
  assert.deepEqual(parseMlflowLink(`#/experiments/12/runs/${RUN}`), { experimentId: "12", runId: RUN });
});

test("leaves out what follows the IDs: MLflow 3's workspace, a sub-page, a terminal's full stop", () => {
  assert.deepEqual(parseMlflowLink(`#/experiments/3/runs/${RUN}?workspace=team`), { experimentId: "3", runId: RUN });
  assert.deepEqual(parseMlflowLink("#/experiments/3?workspace=team"), { experimentId: "3" });
  assert.deepEqual(parseMlflowLink(`#/experiments/3/runs/${RUN}/artifacts`), { experimentId: "3", runId: RUN });
  assert.deepEqual(parseMlflowLink(`#/experiments/3/runs/${RUN}.`), { experimentId: "3", runId: RUN });
  assert.deepEqual(parseMlflowLink("#/experiments/3."), { experimentId: "3" });
});

test("is no link for other hashes; malformed IDs are passed on for the server to refuse", () => {
  for (const hash of ["", "#", "#main", "#/projects/x", "#/experiments", "#/experiments/", "/experiments/1"])
    assert.equal(parseMlflowLink(hash), undefined, hash);
  assert.deepEqual(parseMlflowLink("#/experiments/x/runs/nope"), { experimentId: "x", runId: "nope" });
});
