-- MLflow's protocol (docs/api.md, "MLflow's REST API"). Every run gets a stable 32-hex MLflow run ID;
-- MLflow's key-value tags, its dataset inputs and its lifecycle stage (deleted_at) are kept beside
-- Stepwise's own fields, for runs and for projects (MLflow's experiments).
ALTER TABLE runs ADD COLUMN mlflow_id TEXT;
ALTER TABLE runs ADD COLUMN mlflow_tags TEXT NOT NULL DEFAULT '[]'; -- JSON array of [key, value]
ALTER TABLE runs ADD COLUMN mlflow_inputs TEXT;                     -- JSON array of dataset inputs
ALTER TABLE runs ADD COLUMN deleted_at INTEGER;
UPDATE runs SET mlflow_id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX runs_mlflow_id ON runs (mlflow_id);
ALTER TABLE projects ADD COLUMN mlflow_tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE projects ADD COLUMN deleted_at INTEGER;
