-- A console line is (run, logType, lineNumber, time) (src/domain/console-logs.ts): lines of two
-- processes of one run that share a number are both kept. Every row of the old table is distinct
-- under the new key too (it only adds a column), so the copy keeps every line.
-- The key's column order is the read order (time, lineNumber, logType), so reading a run's lines
-- needs no sort; reading one log type uses the second index.
CREATE TABLE console_logs_by_time (
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  log_type    TEXT NOT NULL,
  line_number INTEGER NOT NULL,
  time        INTEGER NOT NULL,
  message     TEXT NOT NULL,
  step        INTEGER,
  PRIMARY KEY (run_id, time, line_number, log_type)
);
INSERT INTO console_logs_by_time (run_id, log_type, line_number, time, message, step)
  SELECT run_id, log_type, line_number, time, message, step FROM console_logs;
DROP TABLE console_logs;
ALTER TABLE console_logs_by_time RENAME TO console_logs;
CREATE INDEX console_logs_type_order ON console_logs(run_id, log_type, time, line_number);

-- How many lines each (run, logType) holds, kept in the same transaction as the lines: `total` of a
-- read and the way to an offset near the end then cost one small read instead of a scan of the run.
CREATE TABLE console_log_counts (
  run_id   INTEGER NOT NULL REFERENCES runs(id),
  log_type TEXT NOT NULL,
  lines    INTEGER NOT NULL,
  PRIMARY KEY (run_id, log_type)
) WITHOUT ROWID;
INSERT INTO console_log_counts (run_id, log_type, lines)
  SELECT run_id, log_type, count(*) FROM console_logs GROUP BY run_id, log_type;
