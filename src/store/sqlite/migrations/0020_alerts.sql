-- Alerts (docs/api.md, "Alerts"; docs/semantics.md, "Alerts"): destinations of an organization
-- (the secret is stored for signing, never read back through the API), rules of a project, each
-- rule's state per run, the events rules fire, and the outbox of their deliveries. Rows of a run
-- or project go with it (ON DELETE CASCADE), as do a rule's states and a destination's deliveries.
CREATE TABLE alert_destinations (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id     TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  url        TEXT NOT NULL,
  secret     TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (org_id, name)
);

CREATE TABLE alert_rules (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id     TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  condition  TEXT NOT NULL,
  enabled    INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX alert_rules_project ON alert_rules (project_id, id);

CREATE TABLE alert_rule_destinations (
  rule_id        INTEGER NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
  destination_id INTEGER NOT NULL REFERENCES alert_destinations(id) ON DELETE CASCADE,
  PRIMARY KEY (rule_id, destination_id)
);
CREATE INDEX alert_rule_destinations_destination ON alert_rule_destinations (destination_id);

-- Only changes are written: a (rule, run) without a row is inactive with no streak.
CREATE TABLE alert_states (
  rule_id    INTEGER NOT NULL REFERENCES alert_rules(id) ON DELETE CASCADE,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  active     INTEGER NOT NULL,
  streak     INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (rule_id, run_id)
);
CREATE INDEX alert_states_run ON alert_states (run_id);

-- project_id and run_id are null for a destination test; rule_name keeps the name a deleted rule had.
CREATE TABLE alert_events (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id     TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  run_id     INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  rule_id    INTEGER REFERENCES alert_rules(id) ON DELETE SET NULL,
  rule_name  TEXT,
  kind       TEXT NOT NULL,
  title      TEXT NOT NULL,
  body       TEXT NOT NULL,
  level      TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX alert_events_project ON alert_events (project_id, id);
CREATE INDEX alert_events_run ON alert_events (run_id, id);
CREATE INDEX alert_events_rule ON alert_events (rule_id);

-- The outbox: `id` is the delivery ID receivers see (the same on every attempt); a claim
-- (claim_token until claimed_until) keeps other processes off a delivery in flight.
CREATE TABLE alert_deliveries (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  org_id          TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  event_id        INTEGER NOT NULL REFERENCES alert_events(id) ON DELETE CASCADE,
  destination_id  INTEGER NOT NULL REFERENCES alert_destinations(id) ON DELETE CASCADE,
  status          TEXT NOT NULL,
  attempts        INTEGER NOT NULL,
  last_error      TEXT,
  next_attempt_at INTEGER,
  claimed_until   INTEGER,
  claim_token     TEXT,
  delivered_at    INTEGER,
  created_at      INTEGER NOT NULL
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);
CREATE INDEX alert_deliveries_org ON alert_deliveries (org_id, status, seq);
CREATE INDEX alert_deliveries_event ON alert_deliveries (event_id);
CREATE INDEX alert_deliveries_destination ON alert_deliveries (destination_id);
