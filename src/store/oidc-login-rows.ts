import type { PendingOidcLogin } from "./store.js";

/** The columns of a pending sign-in (table oidc_logins, migration 0024), as both backends select them. */
export const OIDC_LOGIN_COLUMNS = "state_hash, nonce, code_verifier, redirect_uri, return_to, created_at, expires_at";

export interface OidcLoginRow {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  return_to: string;
  created_at: number;
  expires_at: number;
}

export function toPendingOidcLogin(row: OidcLoginRow): PendingOidcLogin {
  return {
    stateHash: row.state_hash,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    redirectUri: row.redirect_uri,
    returnTo: row.return_to,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
