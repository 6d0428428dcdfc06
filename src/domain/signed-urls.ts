import { createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "./errors.js";

/** How long signed URLs stay valid (decisions §7). */
export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
export const DOWNLOAD_URL_TTL_MS = 5 * 24 * 60 * 60 * 1000;

export type SignedAction = "upload" | "download";

export interface Signature {
  expires: number;
  sig: string;
}

/**
 * Signs "<action>:<fileId>:<expires>" with HMAC-SHA256. The action is part of the message, so a
 * download URL can never be replayed as an upload URL; the expiry is, so it cannot be extended.
 */
export function sign(secret: Buffer, action: SignedAction, fileId: number, expires: number): Signature {
  return { expires, sig: mac(secret, action, fileId, expires).toString("base64url") };
}

/** Throws FORBIDDEN (403) for a missing, tampered or expired signature. */
export function verify(secret: Buffer, action: SignedAction, fileId: number, expires: unknown, sig: unknown, now: number): void {
  const expiry = typeof expires === "string" && /^\d{1,16}$/.test(expires) ? Number(expires) : NaN;
  if (!Number.isFinite(expiry) || typeof sig !== "string") throw forbidden("signed URL is missing its expiry or signature");
  const expected = mac(secret, action, fileId, expiry);
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden("signed URL signature does not match");
  if (now > expiry) throw forbidden("signed URL has expired");
}

function mac(secret: Buffer, action: SignedAction, fileId: number, expires: number): Buffer {
  return createHmac("sha256", secret).update(`${action}:${fileId}:${expires}`).digest();
}

const forbidden = (message: string) => new DomainError("FORBIDDEN", message);
