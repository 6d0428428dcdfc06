-- Organizations, users and API keys (docs/semantics.md). Text IDs are random UUIDs.
CREATE TABLE organizations (
  id         TEXT PRIMARY KEY,
  slug       TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);

CREATE TABLE users (
  id         TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL REFERENCES organizations(id),
  name       TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id             TEXT PRIMARY KEY,
  org_id         TEXT NOT NULL REFERENCES organizations(id),
  user_id        TEXT NOT NULL REFERENCES users(id),
  name           TEXT NOT NULL,
  key_hash       TEXT NOT NULL UNIQUE, -- SHA-256 hex of the whole key; the key itself is never stored
  display_prefix TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER,
  revoked_at     INTEGER
);
CREATE INDEX api_keys_org ON api_keys(org_id);

CREATE TABLE projects (
  id          INTEGER PRIMARY KEY,
  org_id      TEXT NOT NULL REFERENCES organizations(id),
  name        TEXT NOT NULL,
  run_prefix  TEXT NOT NULL,
  next_number INTEGER NOT NULL DEFAULT 1,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  UNIQUE (org_id, name)
);

-- AUTOINCREMENT: a run ID is never reused, so an old URL or encoded ID never points at another run.
CREATE TABLE runs (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id             TEXT NOT NULL REFERENCES organizations(id),
  project_id         INTEGER NOT NULL REFERENCES projects(id),
  name               TEXT NOT NULL,
  number             INTEGER NOT NULL,
  display_id         TEXT NOT NULL,
  external_id        TEXT,
  status             TEXT NOT NULL,
  tags               TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
  notes              TEXT,
  config             TEXT,                       -- JSON text, NULL when absent
  system_metadata    TEXT,
  logger_settings    TEXT,
  status_metadata    TEXT,
  model_graph        TEXT,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  status_updated     INTEGER,
  heartbeat_at       INTEGER NOT NULL,
  forked_from_run_id INTEGER REFERENCES runs(id),
  fork_step          INTEGER,
  UNIQUE (project_id, number),
  UNIQUE (project_id, external_id)
);
CREATE INDEX runs_org_project_created ON runs(org_id, project_id, created_at);
CREATE INDEX runs_org_display_id ON runs(org_id, display_id);
CREATE INDEX runs_running_heartbeat ON runs(heartbeat_at) WHERE status = 'RUNNING';

CREATE TABLE run_log_names (
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  log_name  TEXT NOT NULL,
  log_type  TEXT NOT NULL,
  log_group TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, log_name)
) WITHOUT ROWID;

CREATE TABLE status_events (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  from_status TEXT,
  to_status   TEXT NOT NULL,
  source      TEXT NOT NULL,
  metadata    TEXT,
  actor_id    TEXT,
  api_key_id  TEXT,
  created_at  INTEGER NOT NULL
);
CREATE INDEX status_events_run ON status_events(run_id, id);

CREATE TABLE alerts (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id),
  title      TEXT NOT NULL,
  body       TEXT NOT NULL,
  level      TEXT NOT NULL,
  timestamp  INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX alerts_run ON alerts(run_id, id);

-- One row per (run, metric): the live summary, written in the same transaction as the points so
-- statistics, comparisons and leaderboards never disagree with charts. Finite values only in
-- count/min/max/sum/sum_sq; steps cover every point.
CREATE TABLE metrics (
  id               INTEGER PRIMARY KEY,
  run_id           INTEGER NOT NULL REFERENCES runs(id),
  log_name         TEXT NOT NULL,
  log_group        TEXT NOT NULL,
  count            INTEGER NOT NULL DEFAULT 0,
  non_finite_count INTEGER NOT NULL DEFAULT 0,
  min              REAL,
  max              REAL,
  sum              REAL NOT NULL DEFAULT 0,
  sum_sq           REAL NOT NULL DEFAULT 0,
  first_step       INTEGER,
  last_step        INTEGER,
  last_value       REAL,    -- the finite value at the highest step with a finite value
  last_value_step  INTEGER,
  UNIQUE (run_id, log_name)
);
