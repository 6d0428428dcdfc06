-- MLflow's default experiment (ID "0", docs/api.md "MLflow's REST API"): the project each organization
-- has marked as its default, 1 on that project and 0 on every other. The partial unique index lets an
-- organization have one default at most, whatever writes race. No project is marked here: the
-- default is made (or an organization's project named "Default" adopted) the first time MLflow's
-- protocol needs it (docs/decisions.md, "MLflow's protocol").
ALTER TABLE projects ADD COLUMN mlflow_default INTEGER NOT NULL DEFAULT 0 CHECK (mlflow_default IN (0, 1));
CREATE UNIQUE INDEX projects_mlflow_default ON projects (org_id) WHERE mlflow_default = 1;
