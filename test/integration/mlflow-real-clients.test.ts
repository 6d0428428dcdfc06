import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * MLflow's own Python clients, unmodified, against a real server: the scripts of
 * test/mlflow-clients/scenarios.py with the 2.x and the 3.x client. The clients are built from
 * source on the machine (README, "Development"; scripts/test-prerequisites.sh builds them where it
 * can): STEPWISE_MLFLOW_CLIENTS names that folder (default .scratch/mlflow-clients). Where it is
 * absent the test says so and skips.
 */

const ROOT = process.env.STEPWISE_MLFLOW_CLIENTS ?? fileURLToPath(new URL("../../.scratch/mlflow-clients", import.meta.url));
const SCRIPT = fileURLToPath(new URL("../mlflow-clients/scenarios.py", import.meta.url));
const CLIENTS = [
  { name: "2.17.2", path: ["src-2.17.2", "shim/2.17.2", "deps/site"], models: false },
  { name: "3.x", path: ["src-master", "shim/master", "deps/site"], models: false },
  // MLflow 3's model logging needs pydantic 2 (and scikit-learn, the system's python3-sklearn): model scenarios only.
  { name: "3.x models", path: ["src-master", "shim/master", "deps/site3", "deps/site", "deps/pyenv-pydantic2"], models: true },
].map(({ name, path, models }) => ({ name, models, pythonPath: path.map((part) => join(ROOT, part)).join(":") }));
// The tree is complete once its last dependency is in place (deps/site/cachetools, near setup's end).
const available = ["src-2.17.2/mlflow", "src-master/mlflow", "deps/site/cachetools"].every((part) => existsSync(join(ROOT, part)));
const modelsAvailable =
  available && existsSync(join(ROOT, "deps/pyenv-pydantic2/pydantic")) && existsSync("/usr/lib/python3/dist-packages/sklearn");
if (!available)
  console.warn(`MLflow's real clients are not built at ${ROOT}: the real-client tests are SKIPPED (set STEPWISE_MLFLOW_CLIENTS)`);
else if (!modelsAvailable)
  console.warn("MLflow 3's model dependencies (pydantic 2, Debian's python3-sklearn) are missing: its model scenarios are SKIPPED");

const run = promisify(execFile);

describe("MLflow's real clients", { skip: available ? false : `MLflow's clients not built at ${ROOT}` }, () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  for (const client of CLIENTS) {
    /** Runs a scenario in a fresh organization (so experiment "0" is its own) and returns what it printed. */
    const scenario = async (name: string) => {
      const { key } = await makeOrg(test);
      const { stdout } = await run("/usr/bin/python3", [SCRIPT, name], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PYTHONPATH: client.pythonPath,
          MLFLOW_TRACKING_URI: test.url,
          MLFLOW_TRACKING_TOKEN: key,
        },
        timeout: 120_000,
      });
      return JSON.parse(stdout.trim().split("\n").at(-1)!);
    };

    if (client.models) {
      it(`${client.name}: a scikit-learn model logged inside a run loads by models:/<model id> and runs:/<run id>/model, and is found by search`, {
        skip: modelsAvailable ? false : "MLflow 3's model dependencies (pydantic 2, scikit-learn) are not installed",
      }, async () => {
        // Checked against MLflow's own 3.x server first: the same output.
        assert.deepEqual(await scenario("logged_model"), {
          id_shape: true,
          status: "READY",
          name: "model",
          source_run: true,
          experiment: true,
          params: { alpha: "0.5" },
          artifact_location: true,
          predict_by_id: [10],
          predict_by_run: [12],
          found: true,
          tagged: true,
          none: [],
        });
      });
    } else {
      basics(client.name, scenario);
    }
    // The registry's scenarios log or save scikit-learn models: MLflow 3 needs pydantic 2 for them.
    if (client.name === "3.x") continue;
    registry(client.name, scenario, client.models && !modelsAvailable);
  }
});

/** The tracking scenarios every client passes. */
function basics(name: string, scenario: (name: string) => Promise<any>) {
  it(`${name}: a run started with no experiment set goes to experiment "0", named Default`, async () => {
    assert.deepEqual(await scenario("default_experiment"), {
      experiment_id: "0",
      default_name: "Default",
      by_name_id: "0",
      listed_default: true,
      params: { lr: "0.1" },
    });
  });

  it(`${name}: param and tag values over MLflow's lengths are stored truncated; no tag the client did not send but the run's name`, async () => {
    assert.deepEqual(await scenario("long_values"), {
      param_length: 6000,
      param_prefix_ok: true,
      batch_param_length: 6000,
      tag_length: 8000,
      tag_prefix_ok: true,
      tag_keys: ["long_tag", "mlflow.runName"], // MLflow's server names every run (sqlalchemy_store.py create_run)
    });
  });

  it(`${name}: every point logged without a step is kept, an identical one once; the latest value is MLflow's`, async () => {
    // The same scenario against MLflow 2.17.2's own server printed exactly this.
    assert.deepEqual(await scenario("every_point"), {
      loss_values: [5, 4, 3, 2, 1],
      loss_steps: [0],
      acc: [
        [1, 2000, 0.9],
        [2, 1000, 0.5],
        [2, 1000, 0.75],
      ],
      latest_loss: 1,
      latest_acc: 0.75,
      found_by_latest: 1,
    });
  });

  it(`${name}: a dataset logged twice is one input, found by name, digest and context`, async () => {
    assert.deepEqual(await scenario("datasets"), { inputs: 1, by_name: true, by_digest: true, by_context: true, no_hit: true });
  });
}

/** The registry's scenarios; `skip` when the client's model dependencies are missing. */
function registry(name: string, scenario: (name: string) => Promise<any>, skip: boolean) {
  const unless = { skip: skip && "MLflow 3's model dependencies (pydantic 2, scikit-learn) are not installed" };
  it(
    `${name}: the model registry without log_model: a run's files and a saved sklearn model registered, aliased, loaded and downloaded by models:/name@alias`,
    unless,
    async () => {
      assert.deepEqual(await scenario("registry_client"), {
        version: "1",
        registered: ["2", true],
        prediction: [12],
        alias_version: "1",
        alias_aliases: ["prod"],
        version_tags: { t: "1" },
        downloaded: "w=42",
        download_uri: true,
        bad_alias: "INVALID_PARAMETER_VALUE",
        aliases_after_delete: { model: "2" },
        searched: [true],
      });
    },
  );

  it(
    `${name}: the model registry: a logged sklearn model registered twice, aliased, staged, loaded by version and alias, searched, renamed, deleted`,
    unless,
    async () => {
      const observed = await scenario("registry");
      assert.deepEqual(observed, {
        versions: ["1", "2"],
        prediction_by_version: [8],
        prediction_by_alias: [8],
        prediction_by_stage: [8],
        aliases: { champion: "1" },
        alias_version: "1",
        tags: { team: "ml" },
        description: "a line",
        stages: [
          ["1", "Archived"],
          ["2", "Production"],
        ],
        latest_production: ["2"],
        found: [true],
        by_run: ["1", "2"],
        missing: "RESOURCE_DOES_NOT_EXIST",
        duplicate: "RESOURCE_ALREADY_EXISTS",
        renamed: [observed.renamed[0], "2", { check: "ok" }],
        after_delete: ["1"],
        gone: 0,
        // MLflow 3 registers the logged model (source models:/m-…), MLflow 2 the run's artifact folder.
        source_is_run_artifact: name === "2.17.2",
      });
      assert.match(observed.renamed[0], /^reg-\d+-renamed$/);
    },
  );
}
