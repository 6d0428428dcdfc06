"""Reads every experiment (but an empty Default), run, metric history, dataset input, artifact and
registered model of a tracking server through MLflow's own client and prints them as one JSON
document, without what differs by design between two servers (experiment IDs, artifact URIs,
creation times of experiments and models). `stepwise import mlflow`'s test compares the dump of
the source with the dump of Stepwise after the import."""
import hashlib
import json
import math
import os
import sys
import tempfile

import mlflow
from mlflow.entities import ViewType
from mlflow.tracking import MlflowClient


def number(value):
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return repr(value)
    return value


def artifacts(client, run_id, path=None):
    out = []
    for f in client.list_artifacts(run_id, path):
        if f.is_dir:
            out.extend(artifacts(client, run_id, f.path))
        else:
            with tempfile.TemporaryDirectory() as tmp:
                local = client.download_artifacts(run_id, f.path, tmp)
                with open(local, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
            out.append([f.path, f.file_size, digest])
    return sorted(out)


def dump(uri):
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri, uri)
    experiments = {}
    for e in client.search_experiments(view_type=ViewType.ALL):
        runs = client.search_runs([e.experiment_id], run_view_type=ViewType.ALL, max_results=1000)
        if e.name == "Default" and not runs:
            continue
        dumped = {}
        for r in runs:
            data = r.data
            dumped[r.info.run_id] = {
                "name": r.info.run_name,
                "status": r.info.status,
                "start_time": r.info.start_time,
                "end_time": r.info.end_time,
                "user_id": r.info.user_id,
                "lifecycle_stage": r.info.lifecycle_stage,
                "params": data.params,
                "tags": {k: v for k, v in data.tags.items()},
                "latest": {k: number(v) for k, v in data.metrics.items()},
                "history": {
                    k: sorted([m.step, m.timestamp, number(m.value)] for m in client.get_metric_history(r.info.run_id, k))
                    for k in data.metrics
                },
                "inputs": sorted(
                    [
                        [i.dataset.name, i.dataset.digest, i.dataset.source_type, i.dataset.source, i.dataset.schema, i.dataset.profile,
                         sorted([t.key, t.value] for t in i.tags)]
                        for i in (r.inputs.dataset_inputs if r.inputs else [])
                    ]
                ),
                "artifacts": artifacts(client, r.info.run_id),
            }
        experiments[e.name] = {"lifecycle_stage": e.lifecycle_stage, "tags": e.tags, "runs": dumped}
    models = {}
    for m in client.search_registered_models():
        versions = client.search_model_versions(f"name='{m.name}'")
        models[m.name] = {
            "description": m.description,
            "tags": m.tags,
            "aliases": m.aliases,
            "versions": sorted(
                [str(v.version), v.run_id, v.current_stage, v.description or "", v.tags, v.source if v.source.startswith("runs:") else "moved"]
                for v in versions
            ),
        }
    return {"experiments": experiments, "models": models}


if __name__ == "__main__":
    print(json.dumps(dump(sys.argv[1]), sort_keys=True))
