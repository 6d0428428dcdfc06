-- Teams (docs/semantics.md, "People, roles and sign-in"): a user is a person (with an email, and a
-- password once set) or a service account (a name only); users belong to organizations through
-- memberships, each with one role. users.org_id stays the organization the user was created in
-- (a service account's only one); what a user may do in an organization is its membership.
ALTER TABLE users ADD COLUMN email TEXT COLLATE "C"; -- lowercased; unique among people (NULLs are distinct)
ALTER TABLE users ADD COLUMN kind TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('person', 'service'));
ALTER TABLE users ADD COLUMN password_hash TEXT; -- scrypt, domain/passwords.ts; null until set
CREATE UNIQUE INDEX users_email ON users(email);

CREATE TABLE memberships (
  org_id     TEXT NOT NULL REFERENCES organizations(id),
  user_id    TEXT NOT NULL REFERENCES users(id),
  role       TEXT NOT NULL CHECK (role IN ('viewer', 'member', 'admin', 'owner')),
  created_at BIGINT NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user ON memberships(user_id);
-- Upgrade: every user so far was the holder of keys to its whole organization, with no email. It
-- becomes a service account (named "admin" when Stepwise made it) that owns the organization, so
-- its keys keep working as owner keys (docs/semantics.md, "Upgrading from keys without roles").
UPDATE users SET kind = 'service';
INSERT INTO memberships (org_id, user_id, role, created_at) SELECT org_id, id, 'owner', created_at FROM users;

-- A key's role: null is its owner's role; else at most it (the lower of the two applies).
ALTER TABLE api_keys ADD COLUMN role TEXT CHECK (role IN ('viewer', 'member', 'admin', 'owner'));
CREATE INDEX api_keys_user ON api_keys(user_id);

-- Signed-in browsers: the cookie holds a random token, the table its SHA-256. A session is in one
-- organization at a time (switching changes org_id).
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  token_hash   TEXT NOT NULL UNIQUE,
  user_id      TEXT NOT NULL REFERENCES users(id),
  org_id       TEXT NOT NULL REFERENCES organizations(id),
  csrf_token   TEXT NOT NULL,
  created_at   BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  expires_at   BIGINT NOT NULL, -- absolute expiry; the idle one is last_seen_at + the idle timeout
  ended_at     BIGINT,
  source_ip    TEXT,
  user_agent   TEXT
);
CREATE INDEX sessions_user ON sessions(user_id);
