-- MLflow's default experiment. As the SQLite store's migration 0013 (an integer, 0 or 1, as there,
-- so `copy` moves it unchanged between the two).
ALTER TABLE projects ADD COLUMN mlflow_default INTEGER NOT NULL DEFAULT 0 CHECK (mlflow_default IN (0, 1));
CREATE UNIQUE INDEX projects_mlflow_default ON projects (org_id) WHERE mlflow_default = 1;
