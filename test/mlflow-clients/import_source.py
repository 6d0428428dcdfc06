"""Fills an MLflow tracking store (a server's URI, or file:///…/mlruns) with what `stepwise import
mlflow` must carry over, through MLflow's own client: experiments with tags, runs with params,
tags, metric histories (several points per step, NaN and infinities, a key with slashes), dataset
inputs, artifacts in nested directories, a logged model, a deleted run, registered models with
versions. `add` logs one more run into the first experiment (the resume test). Prints the run IDs as JSON."""
import json
import os
import sys
import tempfile

import mlflow
from mlflow.tracking import MlflowClient


def fill(client):
    first = client.create_experiment("import-first", tags={"team": "vision", "note": "first"})
    second = client.create_experiment("import-second")
    ids = {}

    run = client.create_run(first, run_name="alpha", tags={"stage": "dev", "mlflow.user": "ada"}, start_time=1_700_000_000_000)
    rid = run.info.run_id
    ids["alpha"] = rid
    client.log_batch(rid, params=[mlflow.entities.Param("lr", "0.01"), mlflow.entities.Param("layers", "4")])
    metrics = []
    for step in range(120):
        metrics.append(mlflow.entities.Metric("loss", 1.0 / (step + 1), 1_700_000_000_000 + step * 1000, step))
    # several points at one step, NaN and infinities, a nested key
    metrics.append(mlflow.entities.Metric("loss", 0.5, 1_700_000_500_000, 3))
    metrics.append(mlflow.entities.Metric("eval/acc", float("nan"), 1_700_000_001_000, 1))
    metrics.append(mlflow.entities.Metric("eval/acc", float("inf"), 1_700_000_002_000, 2))
    metrics.append(mlflow.entities.Metric("eval/acc", float("-inf"), 1_700_000_003_000, 3))
    metrics.append(mlflow.entities.Metric("eval/acc", 0.75, 1_700_000_004_000, 4))
    client.log_batch(rid, metrics=metrics)
    dataset = mlflow.entities.Dataset(name="mnist", digest="abc123", source_type="local", source="/data/mnist", schema='{"x":"int"}', profile='{"rows":10}')
    client.log_inputs(rid, [mlflow.entities.DatasetInput(dataset, tags=[mlflow.entities.InputTag("mlflow.data.context", "train")])])
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "plots", "deep"))
        with open(os.path.join(tmp, "notes.txt"), "w") as f:
            f.write("hello artifacts\n")
        with open(os.path.join(tmp, "plots", "deep", "curve.bin"), "wb") as f:
            f.write(bytes(range(256)) * 40)
        with open(os.path.join(tmp, "plots", "a.csv"), "w") as f:
            f.write("x,y\n1,2\n")
        client.log_artifacts(rid, tmp)
        # A model as MLflow 2 logs it: files under model/ and the mlflow.log-model.history tag.
        os.makedirs(os.path.join(tmp, "model"))
        with open(os.path.join(tmp, "model", "MLmodel"), "w") as f:
            f.write("artifact_path: model\nflavors:\n  python_function:\n    loader_module: mlflow.pyfunc.model\n")
        client.log_artifacts(rid, os.path.join(tmp, "model"), "model")
    client.set_tag(rid, "mlflow.log-model.history", json.dumps([{"run_id": rid, "artifact_path": "model", "utc_time_created": "2023-11-14 22:13:20.000000", "flavors": {"python_function": {}}}]))
    client.set_terminated(rid, "FINISHED", end_time=1_700_000_200_000)

    run = client.create_run(first, run_name="beta", start_time=1_700_001_000_000)
    ids["beta"] = run.info.run_id
    client.log_param(run.info.run_id, "lr", "0.1")
    for i in range(5):
        client.log_metric(run.info.run_id, "loss", 5 - i, timestamp=1_700_001_000_000 + i, step=0)
    client.set_terminated(run.info.run_id, "FAILED", end_time=1_700_001_100_000)

    run = client.create_run(first, run_name="gone", start_time=1_700_002_000_000)
    ids["gone"] = run.info.run_id
    client.log_metric(run.info.run_id, "loss", 1.0, timestamp=1_700_002_000_001, step=0)
    client.set_terminated(run.info.run_id, "KILLED", end_time=1_700_002_000_100)
    client.delete_run(run.info.run_id)

    run = client.create_run(second, run_name="live", start_time=1_700_003_000_000)
    ids["live"] = run.info.run_id
    client.log_metric(run.info.run_id, "m", 2.0, timestamp=1_700_003_000_001, step=7)
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "checkpoint.txt"), "w") as f:
            f.write("epoch 7\n")
        client.log_artifact(run.info.run_id, os.path.join(tmp, "checkpoint.txt"), "ckpt")

    run = client.create_run("0", run_name="in-default", start_time=1_700_004_000_000)
    ids["in-default"] = run.info.run_id
    client.log_param(run.info.run_id, "where", "default")
    client.set_terminated(run.info.run_id, "FINISHED", end_time=1_700_004_000_100)

    client.create_registered_model("classifier", tags={"owner": "ada"}, description="the classifier")
    client.create_model_version("classifier", f"runs:/{ids['alpha']}/model", run_id=ids["alpha"], tags={"v": "one"}, description="first")
    client.create_model_version("classifier", f"runs:/{ids['alpha']}/model", run_id=ids["alpha"])
    client.transition_model_version_stage("classifier", "2", "Staging")
    client.set_registered_model_alias("classifier", "champion", "1")
    return ids


def add(client):
    experiment = client.get_experiment_by_name("import-first")
    run = client.create_run(experiment.experiment_id, run_name="late", start_time=1_700_009_000_000)
    client.log_metric(run.info.run_id, "loss", 0.25, timestamp=1_700_009_000_001, step=1)
    client.set_terminated(run.info.run_id, "FINISHED", end_time=1_700_009_000_100)
    return {"late": run.info.run_id}


def big(client):
    """One run with a long history in batches of 1,000 points (MLflow's log-batch limit): the interrupt test's."""
    experiment = client.create_experiment("import-big")
    run = client.create_run(experiment, run_name="long", start_time=1_700_010_000_000)
    for start in range(0, 100_000, 1000):
        batch = [mlflow.entities.Metric("loss", float(i % 997), 1_700_010_000_000 + i, i) for i in range(start, start + 1000)]
        client.log_batch(run.info.run_id, metrics=batch)
    client.set_terminated(run.info.run_id, "FINISHED", end_time=1_700_020_000_000)
    return {"long": run.info.run_id}


ACTIONS = {"fill": fill, "add": add, "big": big}

if __name__ == "__main__":
    uri, action = sys.argv[1], sys.argv[2]
    mlflow.set_tracking_uri(uri)
    mlflow.set_registry_uri(uri)
    client = MlflowClient(uri, uri)
    print(json.dumps(ACTIONS[action](client)))
