import { createHash, randomBytes } from "node:crypto";
import { DomainError } from "./errors.js";

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
