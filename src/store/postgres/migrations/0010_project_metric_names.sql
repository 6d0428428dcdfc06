-- Each project's distinct metric names. As the SQLite store's migration 0010.
CREATE TABLE project_metric_names (
  project_id BIGINT NOT NULL REFERENCES projects(id),
  log_name   TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (project_id, log_name)
);
INSERT INTO project_metric_names (project_id, log_name)
  SELECT DISTINCT r.project_id, m.log_name FROM metrics m JOIN runs r ON r.id = m.run_id;
