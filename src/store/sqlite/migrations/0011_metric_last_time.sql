-- The client time of the point at a metric's last step, kept with its summary so that MLflow's run
-- search can answer each metric's latest point with its timestamp without reading any point.
-- NULL for metrics not written since this migration: readers then read that one point.
ALTER TABLE metrics ADD COLUMN last_time REAL;
