-- Saved views of a project's page (docs/api.md, "Saved views"): `state` is the UI's JSON object as the
-- client sent it (at most 256 KiB, domain/saved-views.ts); names are unique per project.
CREATE TABLE saved_views (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id     TEXT NOT NULL REFERENCES organizations(id),
  project_id INTEGER NOT NULL REFERENCES projects(id),
  name       TEXT NOT NULL,
  state      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, name)
);
CREATE INDEX saved_views_project ON saved_views (org_id, project_id, created_at);
