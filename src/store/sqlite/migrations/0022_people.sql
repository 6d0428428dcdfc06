-- People (docs/semantics.md, "Invitations" and "Sign-in limits"). An invitation is a one-time link
-- to set a password: the link's token is never stored, only its SHA-256.
CREATE TABLE invitations (
  token_hash TEXT PRIMARY KEY,
  org_id     TEXT NOT NULL REFERENCES organizations(id),
  user_id    TEXT NOT NULL REFERENCES users(id),
  created_by TEXT REFERENCES users(id), -- null when made by the CLI
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at    INTEGER
);
CREATE INDEX invitations_user ON invitations(user_id);

-- Failed sign-ins, one row each, under the keys they count against ('account:<email>',
-- 'address:<ip>'): in the store, so every process on it counts the same failures. Rows older than
-- the window are deleted as new ones come.
CREATE TABLE sign_in_failures (
  key TEXT NOT NULL,
  at  INTEGER NOT NULL
);
CREATE INDEX sign_in_failures_key ON sign_in_failures(key, at);
CREATE INDEX sign_in_failures_at ON sign_in_failures(at);
