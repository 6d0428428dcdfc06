-- Metric summaries and chunk aggregates keep mean and population standard deviation instead of
-- sums of values and squares, which overflow (a value of 1e155 made a whole run unreadable).
-- Chunks also record the client time of their extremes and the first step of each non-finite
-- kind, so sampling shows extremes, NaN and ±Inf while reading few points. The new columns are filled from the stored points by the data step
-- of this migration (backfillMetricAggregates in metric-backfill.ts), in the same transaction.
ALTER TABLE metrics ADD COLUMN mean REAL NOT NULL DEFAULT 0;
ALTER TABLE metrics ADD COLUMN stddev REAL NOT NULL DEFAULT 0;
ALTER TABLE metrics DROP COLUMN sum;
ALTER TABLE metrics DROP COLUMN sum_sq;

ALTER TABLE metric_chunks ADD COLUMN mean REAL NOT NULL DEFAULT 0;
ALTER TABLE metric_chunks ADD COLUMN stddev REAL NOT NULL DEFAULT 0;
ALTER TABLE metric_chunks ADD COLUMN min_time REAL;         -- the client time of the minimum (sampling shows it)
ALTER TABLE metric_chunks ADD COLUMN max_time REAL;
ALTER TABLE metric_chunks ADD COLUMN nan_step INTEGER;      -- the chunk's first NaN, if any
ALTER TABLE metric_chunks ADD COLUMN inf_step INTEGER;      -- its first +Infinity
ALTER TABLE metric_chunks ADD COLUMN neg_inf_step INTEGER;  -- its first -Infinity
ALTER TABLE metric_chunks DROP COLUMN sum;
ALTER TABLE metric_chunks DROP COLUMN sum_sq;
