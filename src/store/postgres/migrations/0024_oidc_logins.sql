-- Sign-ins started at an OpenID Connect provider and not yet back (docs/api.md, "Single sign-on"):
-- one row per pending sign-in, keyed by the SHA-256 of its `state`, holding what the callback needs
-- (the nonce, the PKCE verifier, the redirect URI sent, where to return). The callback takes the row
-- with one DELETE ... RETURNING, so a state is used once whichever process the browser comes back
-- to. Rows past expires_at are refused and deleted by the next sign-in started. Not copied by
-- `stepwise copy`: they describe sign-ins in flight, not data. As the SQLite store's migration 0024.
CREATE TABLE oidc_logins (
  state_hash    TEXT PRIMARY KEY,
  nonce         TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  redirect_uri  TEXT NOT NULL,
  return_to     TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  expires_at    BIGINT NOT NULL
);
CREATE INDEX oidc_logins_expires ON oidc_logins(expires_at);
