-- MLflow's protocol (docs/api.md, "MLflow's REST API"). As the SQLite store's migration 0009.
ALTER TABLE runs ADD COLUMN mlflow_id TEXT COLLATE "C";
ALTER TABLE runs ADD COLUMN mlflow_tags TEXT NOT NULL DEFAULT '[]'; -- JSON array of [key, value]
ALTER TABLE runs ADD COLUMN mlflow_inputs TEXT;                     -- JSON array of dataset inputs
ALTER TABLE runs ADD COLUMN deleted_at BIGINT;
UPDATE runs SET mlflow_id = md5(random()::text || clock_timestamp()::text || id::text);
CREATE UNIQUE INDEX runs_mlflow_id ON runs (mlflow_id);
ALTER TABLE projects ADD COLUMN mlflow_tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE projects ADD COLUMN deleted_at BIGINT;
