import { createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "./errors.js";

/** How long signed URLs stay valid (docs/semantics.md, Ingest wire format: files). */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
export const DOWNLOAD_URL_TTL_MS = 5 * 24 * 60 * 60 * 1000;

export type SignedAction = "upload" | "download";

/** The query parameters of a signed URL. */
export interface Signature {
  expires: number;
  /** ID of the API key whose request minted the URL. */
  key: string;
  sig: string;
}

/**
 * Signs "<action>:<fileId>:<expires>:<keyId>" with HMAC-SHA256. The action is part of the message,
 * so a download URL can never be replayed as an upload URL; the expiry is, so it cannot be
 * extended; the minting key is, so the URL dies with that key (docs/decisions.md,
 * "Hardening").
 */
export function sign(secret: Buffer, action: SignedAction, fileId: number, expires: number, keyId: string): Signature {
  return { expires, key: keyId, sig: mac(secret, action, fileId, expires, keyId) };
}

/**
 * Throws FORBIDDEN (403) for a missing, tampered or expired signature; returns the ID of the minting
 * key, which the caller must still find usable (checkMintingKey). The signature is compared as text
 * with the one canonical base64url spelling: decoding first would accept other spellings of the
 * same bytes (the unused low bits of the last character), so a changed URL would still work.
 */
export function verify(
  secret: Buffer,
  action: SignedAction,
  fileId: number,
  query: { expires?: unknown; key?: unknown; sig?: unknown },
  now: number,
): string {
  const { expires, key, sig } = query;
  const expiry = typeof expires === "string" && isCanonicalNumber(expires) ? Number(expires) : NaN;
  if (!Number.isFinite(expiry) || typeof key !== "string" || typeof sig !== "string") {
    throw forbidden("signed URL is missing its expiry, key or signature");
  }
  const given = Buffer.from(sig);
  const expected = Buffer.from(mac(secret, action, fileId, expiry, key));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden("signed URL signature does not match");
  if (now > expiry) throw forbidden("signed URL has expired");
  return key;
}

/**
 * Whether a URL's number is in its one decimal spelling (no leading zeros, at most 16 digits), as
 * the signature is: `expires=01…` or `/files/download/01/` named the same file and time by another
 * spelling, so one signed URL had many.
 */
export function isCanonicalNumber(text: string): boolean {
  return /^(0|[1-9]\d{0,15})$/.test(text);
}

/** The prefix of a signed URL's minter when a browser session, not a key, made it. */
const SESSION_MINTER = "session:";

/** Who mints a signed URL: the request's key, else its session (docs/semantics.md, "Signed file URLs"). */
export function minterOf(auth: { apiKeyId: string | null; sessionId: string | null }): string {
  return auth.apiKeyId ?? `${SESSION_MINTER}${auth.sessionId}`;
}

/** The session ID of a minter that is a session, else undefined (a key ID). */
export function sessionOfMinter(minter: string): string | undefined {
  return minter.startsWith(SESSION_MINTER) ? minter.slice(SESSION_MINTER.length) : undefined;
}

/** A signed URL a session made works only while that session has not ended (signed out, expired, member removed). */
export function checkMintingSession(session: { endedAt: number | null; expiresAt: number } | undefined, now: number): void {
  if (!session || session.endedAt !== null || session.expiresAt <= now) throw forbidden("signed URL was made by a session that has ended");
}

/** A signed URL works only while the key that minted it could still mint it: not revoked, not expired. */
export function checkMintingKey(key: { expiresAt: number | null; revokedAt: number | null } | undefined, now: number): void {
  if (!key || key.revokedAt !== null) throw forbidden("signed URL was made with an API key that has been revoked");
  if (key.expiresAt !== null && key.expiresAt <= now) throw forbidden("signed URL was made with an API key that has expired");
}

function mac(secret: Buffer, action: SignedAction, fileId: number, expires: number, keyId: string): string {
  return createHmac("sha256", secret).update(`${action}:${fileId}:${expires}:${keyId}`).digest("base64url");
}

const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
