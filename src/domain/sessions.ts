import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { DomainError } from "./errors.js";

/** The cookie of a signed-in browser (docs/semantics.md, "Sessions"). */
export const SESSION_COOKIE = "stepwise_session";

/** The header a cookie-authorized write carries: the session's CSRF token, which only the page can read (GET /api/auth/session). */
export const CSRF_HEADER = "x-csrf-token";

/** Activity is written at most this often, so reads do not each write; the idle expiry may run this much late. */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

export interface SessionPolicy {
  /** A session unused this long has ended. */
  idleMs: number;
  /** A session this old has ended, however active. */
  maxAgeMs: number;
}

/** A new session's secrets: the cookie's token (stored only as its hash) and the CSRF token the page sends back. */
export function newSessionSecrets(): { token: string; tokenHash: string; csrfToken: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashSessionToken(token), csrfToken: randomBytes(32).toString("base64url") };
}

export function hashSessionToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Throws the 401 of a session that no longer signs anyone in: ended (signed out, member removed), too old, or idle too long. */
export function assertSessionLive(
  session: { endedAt: number | null; expiresAt: number; lastSeenAt: number },
  now: number,
  policy: SessionPolicy,
): void {
  if (session.endedAt !== null) throw new DomainError("INVALID_SESSION", "session has ended: sign in again");
  if (session.expiresAt <= now) throw new DomainError("INVALID_SESSION", "session has expired: sign in again");
  if (session.lastSeenAt + policy.idleMs <= now)
    throw new DomainError("INVALID_SESSION", "session expired after inactivity: sign in again");
}

/** Whether a request records activity on its session (SESSION_TOUCH_INTERVAL_MS). */
export function shouldTouch(lastSeenAt: number, now: number): boolean {
  return now - lastSeenAt >= SESSION_TOUCH_INTERVAL_MS;
}

/** Methods a cookie may authorize without a CSRF token: those that change nothing. */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

/**
 * The CSRF check of a cookie-authorized write: the page's token in CSRF_HEADER (another origin's
 * page cannot read it), and an Origin header, when the browser sends one, of this server.
 */
export function assertCsrf(
  presented: string | undefined,
  expected: string,
  origin: string | undefined,
  ownOrigins: readonly string[],
): void {
  if (origin !== undefined && !ownOrigins.includes(origin))
    throw new DomainError(
      "FORBIDDEN",
      `CSRF check failed: a write from origin '${origin}' is not accepted with this server's session cookie`,
    );
  const a = Buffer.from(presented ?? "");
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw new DomainError("FORBIDDEN", `CSRF check failed: a write signed in by cookie needs the '${CSRF_HEADER}' header of its session`);
}
