/** The SQL of invitations and failed sign-ins (workflows/people.ts), part of account-sql.ts's ACCOUNT_SQL. */
const INVITATION_COLUMNS = `i.token_hash, i.org_id, i.user_id, i.created_by, i.created_at, i.expires_at, i.used_at,
  o.slug, u.email, u.name, u.password_hash IS NOT NULL AS has_password,
  (SELECT count(*) FROM memberships m WHERE m.user_id = i.user_id AND m.org_id <> i.org_id) AS other_organizations`;

export const PEOPLE_SQL = {
  withdrawInvitations: "DELETE FROM invitations WHERE org_id = ? AND user_id = ? AND used_at IS NULL",
  insertInvitation: `INSERT INTO invitations (token_hash, org_id, user_id, created_by, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?)`,
  getInvitation: `SELECT ${INVITATION_COLUMNS} FROM invitations i JOIN organizations o ON o.id = i.org_id
    JOIN users u ON u.id = i.user_id WHERE i.token_hash = ?`,
  // The database decides which of two racing uses is the one: only one finds used_at still null.
  useInvitation: "UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
  setUserName: "UPDATE users SET name = ? WHERE id = ?",
  endAllUserSessions: "UPDATE sessions SET ended_at = ? WHERE user_id = ? AND ended_at IS NULL",

  insertSignInFailure: "INSERT INTO sign_in_failures (key, at) VALUES (?, ?)",
  pruneSignInFailures: "DELETE FROM sign_in_failures WHERE at < ?",
  listSignInFailures: "SELECT at FROM sign_in_failures WHERE key = ? AND at > ? ORDER BY at DESC LIMIT ?",
  clearSignInFailures: "DELETE FROM sign_in_failures WHERE key = ?",
  anyPasswordSet: "SELECT 1 AS found FROM users WHERE password_hash IS NOT NULL LIMIT 1",
} as const;
