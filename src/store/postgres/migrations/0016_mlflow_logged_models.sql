-- MLflow 3's logged models: as the SQLite store's migration 0016.
CREATE TABLE mlflow_logged_models (
  id            TEXT COLLATE "C" PRIMARY KEY,
  org_id        TEXT NOT NULL REFERENCES organizations(id),
  project_id    BIGINT NOT NULL REFERENCES projects(id),
  name          TEXT COLLATE "C" NOT NULL,
  model_type    TEXT COLLATE "C",
  source_run_id BIGINT REFERENCES runs(id),
  status        TEXT COLLATE "C" NOT NULL,
  params        TEXT NOT NULL DEFAULT '[]',
  tags          TEXT NOT NULL DEFAULT '[]',
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL,
  deleted_at    BIGINT
);
CREATE INDEX mlflow_logged_models_project ON mlflow_logged_models (org_id, project_id, created_at);
