-- Files of runs (docs/semantics.md, Ingest wire format: files). A file is (run, logName, fileName): registering it again updates its
-- record and keeps its ID. The bytes live in the blob store under "<run_id>/<id>"; uploaded_at is
-- set once they are there, and only such files are listed.
CREATE TABLE files (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id),
  log_name     TEXT NOT NULL,
  file_name    TEXT NOT NULL,
  file_type    TEXT NOT NULL,
  file_size    INTEGER NOT NULL,   -- as registered, then as uploaded
  time         INTEGER NOT NULL,
  step         INTEGER NOT NULL,
  sample_index INTEGER,
  caption      TEXT,
  annotations  TEXT,
  created_at   INTEGER NOT NULL,
  uploaded_at  INTEGER,
  UNIQUE (run_id, log_name, file_name)
);
CREATE INDEX files_order ON files(run_id, step, sample_index, file_name);
