-- MLflow's model registry (docs/api.md, "MLflow's REST API: the model registry"): registered models of
-- an organization, unique by name, and their versions. A model's tags and aliases are JSON arrays of
-- [key, value] and [alias, version] pairs in the order first set. `last_version` is the highest
-- version number ever given: numbers are taken from it, so a deleted version's number is never reused.
CREATE TABLE registered_models (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id       TEXT NOT NULL REFERENCES organizations(id),
  name         TEXT NOT NULL,
  description  TEXT NOT NULL DEFAULT '',
  tags         TEXT NOT NULL DEFAULT '[]',
  aliases      TEXT NOT NULL DEFAULT '[]',
  last_version INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  UNIQUE (org_id, name)
);

CREATE TABLE model_versions (
  model_id         INTEGER NOT NULL REFERENCES registered_models(id),
  version          INTEGER NOT NULL,
  description      TEXT NOT NULL DEFAULT '',
  user_id          TEXT NOT NULL DEFAULT '',
  stage            TEXT NOT NULL,
  source           TEXT NOT NULL,
  storage_location TEXT NOT NULL,
  run_id           TEXT NOT NULL DEFAULT '',
  run_link         TEXT NOT NULL DEFAULT '',
  status           TEXT NOT NULL,
  status_message   TEXT NOT NULL DEFAULT '',
  tags             TEXT NOT NULL DEFAULT '[]',
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  PRIMARY KEY (model_id, version)
);
