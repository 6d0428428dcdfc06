"""What an MLflow user's script does, run with MLflow's real Python client against a Stepwise server.

Usage: MLFLOW_TRACKING_URI=<url> MLFLOW_TRACKING_TOKEN=<key> python3 scenarios.py <scenario>
Prints one JSON object with what the scenario observed; test/integration/mlflow-real-clients.test.ts
asserts on it. Written for MLflow's 2.x and 3.x clients alike.
"""

import json
import sys

import mlflow
from mlflow import MlflowClient


def default_experiment():
    # The first lines of most tutorials: no experiment set, fluent API.
    with mlflow.start_run() as run:
        mlflow.log_param("lr", 0.1)
        mlflow.log_metric("loss", 0.5, step=1)
    client = MlflowClient()
    stored = client.get_run(run.info.run_id)
    default = client.get_experiment("0")
    by_name = client.get_experiment_by_name("Default")
    listed = [e.experiment_id for e in client.search_experiments()]
    return {
        "experiment_id": stored.info.experiment_id,
        "default_name": default.name,
        "by_name_id": by_name.experiment_id if by_name else None,
        "listed_default": "0" in listed,
        "params": stored.data.params,
    }


def long_values():
    client = MlflowClient()
    experiment_id = client.create_experiment(f"long-values-{mlflow.utils.time.get_current_time_millis()}")
    run = client.create_run(experiment_id)
    client.log_param(run.info.run_id, "long", "é" * 7000)
    client.set_tag(run.info.run_id, "long_tag", "😀" * 9000)
    client.log_batch(run.info.run_id, params=[mlflow.entities.Param("batch", "x" * 6001)])
    stored = client.get_run(run.info.run_id)
    return {
        "param_length": len(stored.data.params["long"]),
        "param_prefix_ok": stored.data.params["long"] == "é" * 6000,
        "batch_param_length": len(stored.data.params["batch"]),
        "tag_length": len(stored.data.tags["long_tag"]),
        "tag_prefix_ok": stored.data.tags["long_tag"] == "😀" * 8000,
        "tag_keys": sorted(stored.data.tags.keys()),
    }


def datasets():
    import pandas as pd

    experiment_id = mlflow.create_experiment(f"datasets-{mlflow.utils.time.get_current_time_millis()}")
    frame = pd.DataFrame({"x": [1, 2, 3], "y": [0, 1, 0]})
    dataset = mlflow.data.from_pandas(frame, name="toy", targets="y")
    with mlflow.start_run(experiment_id=experiment_id) as run:
        mlflow.log_input(dataset, context="training")
        mlflow.log_input(dataset, context="training")
    with mlflow.start_run(experiment_id=experiment_id):
        pass
    client = MlflowClient()
    stored = client.get_run(run.info.run_id)

    def hits(filter_string):
        return [r.info.run_id for r in client.search_runs([experiment_id], filter_string)]

    return {
        "inputs": len(stored.inputs.dataset_inputs),
        "by_name": hits("datasets.name = 'toy'") == [run.info.run_id],
        "by_digest": hits(f"datasets.digest = '{dataset.digest}'") == [run.info.run_id],
        "by_context": hits("datasets.context = 'training'") == [run.info.run_id],
        "no_hit": hits("datasets.name = 'other'") == [],
    }


def registry():
    """The model registry: a sklearn model logged in a run, registered, aliased, staged, loaded back, searched."""
    import warnings

    import numpy as np
    from sklearn.linear_model import LinearRegression

    warnings.filterwarnings("ignore")
    client = MlflowClient()
    name = f"reg-{mlflow.utils.time.get_current_time_millis()}"
    experiment_id = mlflow.create_experiment(f"{name}-experiment")
    x = np.array([[1.0], [2.0], [3.0]])
    model = LinearRegression().fit(x, np.array([2.0, 4.0, 6.0]))
    with mlflow.start_run(experiment_id=experiment_id) as run:
        mlflow.sklearn.log_model(model, "model")
    first = mlflow.register_model(f"runs:/{run.info.run_id}/model", name)
    second = mlflow.register_model(f"runs:/{run.info.run_id}/model", name)
    client.set_registered_model_alias(name, "champion", first.version)
    client.set_registered_model_tag(name, "team", "ml")
    client.set_model_version_tag(name, second.version, "check", "ok")
    client.update_registered_model(name, description="a line")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.transition_model_version_stage(name, first.version, "Production")
        client.transition_model_version_stage(name, second.version, "Production", archive_existing_versions=True)
        latest = client.get_latest_versions(name, stages=["Production"])
    by_version = mlflow.pyfunc.load_model(f"models:/{name}/1")
    by_alias = mlflow.pyfunc.load_model(f"models:/{name}@champion")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_stage = mlflow.pyfunc.load_model(f"models:/{name}/Production")
    registered = client.get_registered_model(name)
    alias_version = client.get_model_version_by_alias(name, "champion")
    found = client.search_registered_models(filter_string=f"name = '{name}'")
    versions = client.search_model_versions(f"name = '{name}'")
    by_run = client.search_model_versions(f"run_id = '{run.info.run_id}'")
    missing = None
    try:
        client.get_registered_model(f"{name}-nope")
    except mlflow.exceptions.MlflowException as error:
        missing = error.error_code
    duplicate = None
    try:
        client.create_registered_model(name)
    except mlflow.exceptions.MlflowException as error:
        duplicate = error.error_code
    client.rename_registered_model(name, f"{name}-renamed")
    renamed = client.get_model_version(f"{name}-renamed", "2")
    client.delete_model_version(f"{name}-renamed", "2")
    after_delete = [v.version for v in client.search_model_versions(f"name = '{name}-renamed'")]
    client.delete_registered_model(f"{name}-renamed")
    gone = client.search_registered_models(filter_string=f"name LIKE '{name}%'")
    return {
        "versions": [first.version, second.version],
        "prediction_by_version": [round(float(v), 6) for v in by_version.predict(np.array([[4.0]]))],
        "prediction_by_alias": [round(float(v), 6) for v in by_alias.predict(np.array([[4.0]]))],
        "prediction_by_stage": [round(float(v), 6) for v in by_stage.predict(np.array([[4.0]]))],
        "aliases": {a: v for a, v in registered.aliases.items()},
        "alias_version": alias_version.version,
        "tags": registered.tags,
        "description": registered.description,
        "stages": sorted((v.version, v.current_stage) for v in versions),
        "latest_production": [v.version for v in latest],
        "found": [m.name == name for m in found],
        "by_run": sorted(v.version for v in by_run),
        "missing": missing,
        "duplicate": duplicate,
        "renamed": [renamed.name, renamed.version, renamed.tags],
        "after_delete": after_delete,
        "gone": len(gone),
        "source_is_run_artifact": first.source.endswith(f"{run.info.run_id}/artifacts/model"),
    }


def registry_client():
    """The registry without log_model (MLflow 3's needs the logged-models API): a run's files and a saved model registered, aliased, loaded."""
    import os
    import tempfile
    import warnings

    import numpy as np
    from sklearn.linear_model import LinearRegression

    warnings.filterwarnings("ignore")
    client = MlflowClient()
    name = f"regc-{mlflow.utils.time.get_current_time_millis()}"
    experiment_id = mlflow.create_experiment(f"{name}-experiment")
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "weights.txt"), "w") as file:
            file.write("w=42")
        saved = os.path.join(folder, "saved")
        mlflow.sklearn.save_model(LinearRegression().fit(np.array([[1.0], [2.0]]), np.array([3.0, 6.0])), saved)
        with mlflow.start_run(experiment_id=experiment_id) as run:
            mlflow.log_artifact(os.path.join(folder, "weights.txt"), "bundle")
            mlflow.log_artifacts(saved, "saved")
    client.create_registered_model(name, tags={"team": "ml"}, description="first")
    source = f"{run.info.artifact_uri}/bundle"
    version = client.create_model_version(name, source, run_id=run.info.run_id, tags={"t": "1"})
    client.set_registered_model_alias(name, "prod", version.version)
    # register_model resolves runs:/ in the client: a folder with an MLmodel file is its own source.
    registered = mlflow.register_model(f"runs:/{run.info.run_id}/saved", name)
    client.set_registered_model_alias(name, "model", registered.version)
    loaded = mlflow.pyfunc.load_model(f"models:/{name}@model")
    by_alias = client.get_model_version_by_alias(name, "prod")
    with tempfile.TemporaryDirectory() as target:
        path = mlflow.artifacts.download_artifacts(f"models:/{name}@prod", dst_path=target)
        with open(os.path.join(path, "weights.txt")) as file:
            downloaded = file.read()
    bad_alias = None
    try:
        client.get_model_version_by_alias(name, "nope")
    except mlflow.exceptions.MlflowException as error:
        bad_alias = error.error_code
    client.delete_registered_model_alias(name, "prod")
    page = client.search_registered_models(filter_string=f"tags.team = 'ml' AND name = '{name}'", max_results=1)
    return {
        "version": version.version,
        "registered": [registered.version, registered.source == f"{run.info.artifact_uri}/saved"],
        "prediction": [round(float(v), 6) for v in loaded.predict(np.array([[4.0]]))],
        "alias_version": by_alias.version,
        "alias_aliases": list(by_alias.aliases),
        "version_tags": by_alias.tags,
        "downloaded": downloaded,
        "download_uri": client.get_model_version_download_uri(name, version.version) == source,
        "bad_alias": bad_alias,
        "aliases_after_delete": dict(client.get_registered_model(name).aliases),
        "searched": [m.name == name for m in page],
    }


def logged_model():
    # MLflow 3: log a scikit-learn model inside a run, load it back by its model ID and by the run, search it.
    import numpy as np
    from sklearn.linear_model import LinearRegression

    experiment_id = mlflow.create_experiment(f"models-{mlflow.utils.time.get_current_time_millis()}")
    x = np.array([[1.0], [2.0], [3.0], [4.0]])
    model = LinearRegression().fit(x, np.array([2.0, 4.0, 6.0, 8.0]))
    with mlflow.start_run(experiment_id=experiment_id) as run:
        mlflow.log_param("alpha", "0.5")
        info = mlflow.sklearn.log_model(model, name="model")
    client = MlflowClient()
    stored = client.get_logged_model(info.model_id)
    by_id = mlflow.pyfunc.load_model(f"models:/{info.model_id}")
    by_run = mlflow.pyfunc.load_model(f"runs:/{run.info.run_id}/model")
    client.set_logged_model_tags(info.model_id, {"stage": "candidate"})
    found = client.search_logged_models(experiment_ids=[experiment_id], filter_string="name = 'model'")
    tagged = client.search_logged_models(experiment_ids=[experiment_id], filter_string="tags.stage = 'candidate'")
    none = client.search_logged_models(experiment_ids=[experiment_id], filter_string="params.alpha = '0.9'")
    return {
        "id_shape": info.model_id.startswith("m-") and len(info.model_id) == 34,
        "status": str(stored.status),
        "name": stored.name,
        "source_run": stored.source_run_id == run.info.run_id,
        "experiment": stored.experiment_id == experiment_id,
        "params": stored.params,
        "artifact_location": stored.artifact_location == f"mlflow-artifacts:/{experiment_id}/models/{info.model_id}/artifacts",
        "predict_by_id": [round(float(v), 6) for v in by_id.predict(np.array([[5.0]]))],
        "predict_by_run": [round(float(v), 6) for v in by_run.predict(np.array([[6.0]]))],
        "found": [m.model_id for m in found] == [info.model_id],
        "tagged": [m.model_id for m in tagged] == [info.model_id],
        "none": [m.model_id for m in none],
    }


def every_point():
    # A training loop that logs without a step (MLflow's default step is 0), then the same point twice.
    experiment_id = mlflow.create_experiment(f"every-point-{mlflow.utils.time.get_current_time_millis()}")
    client = MlflowClient()
    with mlflow.start_run(experiment_id=experiment_id) as run:
        for value in [5.0, 4.0, 3.0, 2.0, 1.0]:
            mlflow.log_metric("loss", value)
        client.log_metric(run.info.run_id, "acc", 0.5, timestamp=1000, step=2)
        client.log_metric(run.info.run_id, "acc", 0.5, timestamp=1000, step=2)
        client.log_metric(run.info.run_id, "acc", 0.75, timestamp=1000, step=2)
        client.log_metric(run.info.run_id, "acc", 0.9, timestamp=2000, step=1)
    history = client.get_metric_history(run.info.run_id, "loss")
    acc = client.get_metric_history(run.info.run_id, "acc")
    stored = client.get_run(run.info.run_id)
    found = client.search_runs([experiment_id], filter_string="metrics.acc = 0.75")
    return {
        "loss_values": [m.value for m in history],
        "loss_steps": sorted({m.step for m in history}),
        "acc": sorted([m.step, m.timestamp, m.value] for m in acc),
        "latest_loss": stored.data.metrics["loss"],
        "latest_acc": stored.data.metrics["acc"],
        "found_by_latest": len(found),
    }


SCENARIOS = {
    "every_point": every_point,
    "default_experiment": default_experiment,
    "long_values": long_values,
    "datasets": datasets,
    "registry": registry,
    "registry_client": registry_client,
    "logged_model": logged_model,
}

if __name__ == "__main__":
    print(json.dumps(SCENARIOS[sys.argv[1]]()))
