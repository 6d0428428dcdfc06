-- Deletion and retention (docs/semantics.md, "Deletion"). Deleted runs and projects (deleted_at set)
-- are found by the purge through these partial indexes, without scanning the live ones.
CREATE INDEX runs_deleted ON runs (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX projects_deleted ON projects (deleted_at) WHERE deleted_at IS NOT NULL;
-- The runs whose rows the purge removed and whose file bytes it has still to remove: written in the
-- transaction that deletes the run's rows, removed once every blob of the run is gone, so a crash
-- between the two leaves the work to the next purge, never bytes that nothing names.
CREATE TABLE blob_purges (
  run_id     BIGINT PRIMARY KEY,
  org_id     TEXT NOT NULL,
  project_id BIGINT NOT NULL,
  queued_at  BIGINT NOT NULL
);
CREATE TABLE retention_policies (
  project_id   BIGINT PRIMARY KEY REFERENCES projects(id),
  org_id       TEXT NOT NULL REFERENCES organizations(id),
  max_age_days INTEGER NOT NULL,
  exclude_tag  TEXT,
  updated_at   BIGINT NOT NULL
);
