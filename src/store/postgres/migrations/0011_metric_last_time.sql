-- The client time of the point at a metric's last step. As the SQLite store's migration 0011.
ALTER TABLE metrics ADD COLUMN last_time DOUBLE PRECISION;
