-- Metric points in chunks (src/store/metric-chunks.ts). Chunks of one metric never overlap, so
-- ordering by end_step also orders by start_step; one index serves appends, merges and reads.
-- Each chunk carries the aggregates of its points, so extremes, counts and step look-ups over a
-- long series read these small rows, not the points; the points live in a table of their own
-- so that scanning chunk rows never drags their blobs through the page cache.
CREATE TABLE metric_chunks (
  id               INTEGER PRIMARY KEY,
  metric_id        INTEGER NOT NULL REFERENCES metrics(id),
  start_step       INTEGER NOT NULL,
  end_step         INTEGER NOT NULL,
  point_count      INTEGER NOT NULL,
  finite_count     INTEGER NOT NULL,
  sum              REAL NOT NULL,
  sum_sq           REAL NOT NULL,
  min              REAL,            -- finite values only; NULL when the chunk has none
  min_step         INTEGER,
  max              REAL,
  max_step         INTEGER,
  last_value       REAL,            -- the finite value at the chunk's highest step with one
  last_value_step  INTEGER
);
CREATE INDEX metric_chunks_metric_end ON metric_chunks(metric_id, end_step);

CREATE TABLE metric_chunk_points (
  chunk_id INTEGER PRIMARY KEY REFERENCES metric_chunks(id),
  points   BLOB NOT NULL
);

-- A console line is (run, logType, lineNumber): a re-sent batch replaces, never duplicates.
CREATE TABLE console_logs (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  log_type    TEXT NOT NULL,
  line_number INTEGER NOT NULL,
  time        INTEGER NOT NULL,
  message     TEXT NOT NULL,
  step        INTEGER,
  PRIMARY KEY (run_id, log_type, line_number)
);
CREATE INDEX console_logs_order ON console_logs(run_id, line_number, time);

-- Histograms, tables and string series, stored as the client sent them; one row per (run, logName, step).
CREATE TABLE data_rows (
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  log_name  TEXT NOT NULL,
  step      INTEGER NOT NULL,
  data_type TEXT NOT NULL,
  time      INTEGER NOT NULL,
  data      TEXT NOT NULL,
  PRIMARY KEY (run_id, log_name, step)
);
