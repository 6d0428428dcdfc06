import { OIDC_LOGIN_COLUMNS, toPendingOidcLogin, type OidcLoginRow } from "../oidc-login-rows.js";
import type { PendingOidcLogin } from "../store.js";
import type { Statements } from "./statements.js";

export function createOidcLogin(s: Statements, login: PendingOidcLogin): void {
  s.get("DELETE FROM oidc_logins WHERE expires_at <= ?").run(login.createdAt);
  s.get(
    `INSERT INTO oidc_logins (state_hash, nonce, code_verifier, redirect_uri, return_to, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(login.stateHash, login.nonce, login.codeVerifier, login.redirectUri, login.returnTo, login.createdAt, login.expiresAt);
}

/** One statement: the row is gone for every later caller whether or not it had expired. */
export function takeOidcLogin(s: Statements, stateHash: string, now: number): PendingOidcLogin | undefined {
  const row = s.get(`DELETE FROM oidc_logins WHERE state_hash = ? RETURNING ${OIDC_LOGIN_COLUMNS}`).get(stateHash) as
    | OidcLoginRow
    | undefined;
  return row && row.expires_at > now ? toPendingOidcLogin(row) : undefined;
}
