-- State that every Stepwise process serving this store shares (docs/architecture.md, "Several
-- processes on one store"): secrets (the URL-signing secret) and leases (the stale-run sweeper).
CREATE TABLE secrets (
  name       TEXT PRIMARY KEY,
  value      BLOB NOT NULL,
  created_at INTEGER NOT NULL
);

-- A lease is held by `holder` until `expires_at` (epoch ms of the holder's clock); an expired lease
-- may be taken by anyone. Leases are not copied by `stepwise copy`: they describe running processes.
CREATE TABLE leases (
  name       TEXT PRIMARY KEY,
  holder     TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
