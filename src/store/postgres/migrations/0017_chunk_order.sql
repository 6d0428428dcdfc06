-- Chunks are ordered by end step, then ID: a step holding many points (MLflow's rule keeps them all)
-- may span several chunks of equal end step (src/store/metric-series.ts, "Chunk order"). The index
-- gives that order without a sort step. SQLite's index on (metric_id, end_step) ends with the rowid
-- already, so it needs no migration.
CREATE INDEX metric_chunks_metric_end_id ON metric_chunks(metric_id, end_step, id);
DROP INDEX metric_chunks_metric_end;
