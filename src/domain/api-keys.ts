import { createHash, randomBytes } from "node:crypto";
import { DomainError, invalidInput } from "./errors.js";

/** Visible prefix so keys are recognisable in logs and by secret scanners. */
export const API_KEY_PREFIX = "sw_";

/** 32 random bytes (256 bits), base64url: `sw_` + 43 characters. Shown once, stored as a hash. */
export function generateApiKey(): { key: string; keyHash: string; displayPrefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString("base64url");
  return { key, keyHash: hashApiKey(key), displayPrefix: key.slice(0, API_KEY_PREFIX.length + 6) };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Throws the 401 reason of a key that exists but may not be used (docs/semantics.md, Responses and errors). */
export function assertKeyUsable(key: { expiresAt: number | null; revokedAt: number | null }, now: number): void {
  if (key.revokedAt !== null) throw new DomainError("REVOKED_API_KEY", "API key has been revoked");
  if (key.expiresAt !== null && key.expiresAt <= now) throw new DomainError("EXPIRED_API_KEY", "API key has expired");
}

const LIFETIME_UNITS = new Map([
  ["s", 1000],
  ["m", 60_000],
  ["h", 3_600_000],
  ["d", 86_400_000],
]);
/** The longest lifetime: past it the expiry is not a date (999999999d was stored, then failed to print). */
export const MAX_KEY_LIFETIME_MS = 36_500 * 86_400_000;

/** A key's lifetime, `<n>s|m|h|d`, more than 0 and at most 36500d (CLI `--expires-in`, `POST /api/keys` expiresIn). */
export function parseKeyLifetime(raw: string, field = "expiresIn"): number {
  const match = /^(\d{1,12})([smhd])$/.exec(raw);
  if (!match) throw invalidInput(`${field} must be a duration like 30s, 15m, 2h or 7d, got '${raw}'`);
  const lifetime = Number(match[1]) * LIFETIME_UNITS.get(match[2]!)!;
  if (lifetime <= 0) throw invalidInput(`${field} must be longer than 0, got '${raw}'`);
  if (lifetime > MAX_KEY_LIFETIME_MS)
    throw invalidInput(`${field} must be at most 36500d (100 years; leave it out for a key that never expires), got '${raw}'`);
  return lifetime;
}
