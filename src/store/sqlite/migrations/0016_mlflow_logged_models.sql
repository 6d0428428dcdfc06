-- MLflow 3's logged models (docs/api.md, "MLflow's REST API: logged models"): a model of an experiment,
-- made by MLflow's client before its files are uploaded (PENDING) and finalized READY or FAILED.
-- `id` is MLflow's model ID (m-<32 hex>); `source_run_id` the Stepwise run that logged it (its
-- files are that run's files); params and tags are JSON arrays of [key, value] pairs.
CREATE TABLE mlflow_logged_models (
  id            TEXT PRIMARY KEY,
  org_id        TEXT NOT NULL REFERENCES organizations(id),
  project_id    INTEGER NOT NULL REFERENCES projects(id),
  name          TEXT NOT NULL,
  model_type    TEXT,
  source_run_id INTEGER REFERENCES runs(id),
  status        TEXT NOT NULL,
  params        TEXT NOT NULL DEFAULT '[]',
  tags          TEXT NOT NULL DEFAULT '[]',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  deleted_at    INTEGER
);
CREATE INDEX mlflow_logged_models_project ON mlflow_logged_models (org_id, project_id, created_at);
