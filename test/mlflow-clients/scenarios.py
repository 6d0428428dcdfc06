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


SCENARIOS = {"default_experiment": default_experiment, "long_values": long_values, "datasets": datasets, "logged_model": logged_model}

if __name__ == "__main__":
    print(json.dumps(SCENARIOS[sys.argv[1]]()))
