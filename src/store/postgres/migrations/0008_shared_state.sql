-- State that every Stepwise process serving this database shares (docs/architecture.md, "Several
-- processes on one store"): secrets (the URL-signing secret) and leases (the stale-run sweeper).
-- As the SQLite store's migration 0008.
CREATE TABLE secrets (
  name       TEXT PRIMARY KEY,
  value      BYTEA NOT NULL,
  created_at BIGINT NOT NULL
);

-- A lease is held by `holder` until `expires_at` (epoch ms of the holder's clock); an expired lease
-- may be taken by anyone. Leases are not copied by `stepwise copy`: they describe running processes.
CREATE TABLE leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
