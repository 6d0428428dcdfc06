/**
 * The SQL of users, memberships, keys and sessions (workflows/accounts.ts), written once for both
 * backends with `?` placeholders (PostgreSQL's operations number them). Queries are chosen by
 * name: no SQL is ever built from input.
 */

const USER_COLUMNS = "u.id, u.org_id, u.email, u.name, u.kind, u.created_at";
const KEY_COLUMNS = "k.id, k.org_id, k.user_id, k.name, k.display_prefix, k.created_at, k.expires_at, k.revoked_at, k.role";
const SESSION_COLUMNS = `s.id, s.user_id, s.org_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.ended_at,
  s.source_ip, s.user_agent`;

export const ACCOUNT_SQL = {
  insertUser: "INSERT INTO users (id, org_id, email, name, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  getUser: `SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`,
  getUserByEmail: `SELECT ${USER_COLUMNS} FROM users u WHERE u.email = ?`,
  getPasswordHash: "SELECT password_hash FROM users WHERE id = ?",
  setPasswordHash: "UPDATE users SET password_hash = ? WHERE id = ?",
  listUsers: `SELECT ${USER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ?
    ORDER BY u.created_at, u.id`,

  getMembership: "SELECT org_id, user_id, role, created_at FROM memberships WHERE org_id = ? AND user_id = ?",
  countOwners: "SELECT count(*) AS owners FROM memberships WHERE org_id = ? AND role = 'owner'",
  insertMembership: "INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
  updateMembership: "UPDATE memberships SET role = ? WHERE org_id = ? AND user_id = ?",
  deleteMembership: "DELETE FROM memberships WHERE org_id = ? AND user_id = ?",
  listMembers: `SELECT m.org_id AS member_org_id, m.role, m.created_at AS joined_at, ${USER_COLUMNS}
    FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? ORDER BY m.created_at, u.id`,
  listMemberships: `SELECT m.org_id, m.user_id, m.role, m.created_at, o.slug FROM memberships m
    JOIN organizations o ON o.id = m.org_id WHERE m.user_id = ? ORDER BY o.slug`,

  insertApiKey: `INSERT INTO api_keys (id, org_id, user_id, name, key_hash, display_prefix, created_at, expires_at, role)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  // The owner's membership comes with the key: one indexed lookup per request authenticates and authorizes.
  getApiKeyByHash: `SELECT ${KEY_COLUMNS}, o.slug, m.role AS member_role FROM api_keys k
    JOIN organizations o ON o.id = k.org_id LEFT JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.user_id
    WHERE k.key_hash = ?`,
  revokeUserKeys: "UPDATE api_keys SET revoked_at = ? WHERE org_id = ? AND user_id = ? AND revoked_at IS NULL",

  insertSession: `INSERT INTO sessions (id, token_hash, user_id, org_id, csrf_token, created_at, last_seen_at, expires_at,
    source_ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  getSessionByHash: `SELECT ${SESSION_COLUMNS}, o.slug, m.role AS member_role FROM sessions s
    JOIN organizations o ON o.id = s.org_id LEFT JOIN memberships m ON m.org_id = s.org_id AND m.user_id = s.user_id
    WHERE s.token_hash = ?`,
  getSession: `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`,
  touchSession: "UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at < ?",
  setSessionOrganization: "UPDATE sessions SET org_id = ? WHERE id = ?",
  endSession: "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
  endUserSessions: "UPDATE sessions SET ended_at = ? WHERE org_id = ? AND user_id = ? AND ended_at IS NULL",
} as const;

export type AccountQuery = keyof typeof ACCOUNT_SQL;
