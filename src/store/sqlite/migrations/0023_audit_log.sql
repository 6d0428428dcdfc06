-- The audit log (docs/semantics.md, "Audit log"): one row per recorded event of an organization,
-- append-only (no Store method updates or deletes a row; the purge leaves them), kept as long as
-- the organization. `id` grows with every row (AUTOINCREMENT: never reused) and orders the log;
-- `at` is the server's time in epoch milliseconds. `actor_label` is what the actor was called when
-- it acted (an email, a service account's name, 'cli', 'system'), so renaming or removing a user
-- leaves the log as it was. `details` is JSON text of at most 4 KiB (domain/audit.ts).
CREATE TABLE audit_log (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id           TEXT NOT NULL REFERENCES organizations(id),
  at               INTEGER NOT NULL,
  actor_user_id    TEXT,
  actor_api_key_id TEXT,
  actor_label      TEXT NOT NULL,
  source_ip        TEXT,
  action           TEXT NOT NULL,
  target_type      TEXT,
  target_id        TEXT,
  details          TEXT
);
CREATE INDEX audit_log_org ON audit_log (org_id, id);
CREATE INDEX audit_log_org_action ON audit_log (org_id, action, id);
