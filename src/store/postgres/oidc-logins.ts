import { OIDC_LOGIN_COLUMNS, toPendingOidcLogin, type OidcLoginRow } from "../oidc-login-rows.js";
import type { PendingOidcLogin } from "../store.js";
import { row, run, type Sql } from "./db.js";

export async function createOidcLogin(sql: Sql, login: PendingOidcLogin): Promise<void> {
  await run(sql, "DELETE FROM oidc_logins WHERE expires_at <= $1", [login.createdAt]);
  await run(
    sql,
    `INSERT INTO oidc_logins (state_hash, nonce, code_verifier, redirect_uri, return_to, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [login.stateHash, login.nonce, login.codeVerifier, login.redirectUri, login.returnTo, login.createdAt, login.expiresAt],
  );
}

/** One statement: the row is gone for every later caller whether or not it had expired. */
export async function takeOidcLogin(sql: Sql, stateHash: string, now: number): Promise<PendingOidcLogin | undefined> {
  const found = await row<OidcLoginRow>(sql, `DELETE FROM oidc_logins WHERE state_hash = $1 RETURNING ${OIDC_LOGIN_COLUMNS}`, [stateHash]);
  return found && found.expires_at > now ? toPendingOidcLogin(found) : undefined;
}
