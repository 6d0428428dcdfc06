-- Each project's distinct metric names, written when a run's metric is first created: listing a
-- project's names (GET /api/runs/metric-names, the workspace's panels) reads this small table
-- instead of every run's metric rows. Runs are never deleted or moved between projects, so a name
-- once here stays true.
CREATE TABLE project_metric_names (
  project_id INTEGER NOT NULL REFERENCES projects(id),
  log_name   TEXT NOT NULL,
  PRIMARY KEY (project_id, log_name)
) WITHOUT ROWID;
INSERT INTO project_metric_names (project_id, log_name)
  SELECT DISTINCT r.project_id, m.log_name FROM metrics m JOIN runs r ON r.id = m.run_id;
