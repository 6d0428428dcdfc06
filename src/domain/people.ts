import { createHash, randomBytes } from "node:crypto";
import { DomainError, invalidInput } from "./errors.js";
import { EMAIL_MAX_LENGTH } from "./people-limits.js";
import { assertRole, type Role } from "./roles.js";

/**
 * People, invitations and sign-in limits (docs/semantics.md, "People, roles and sign-in"): the
 * rules; the store keeps the rows, src/services/people.ts runs the steps.
 */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export { EMAIL_MAX_LENGTH };

/** An email as stored and looked up: trimmed and lowercased, so Ada@Example.com and ada@example.com are one person. */
export function normalizeEmail(raw: string, field = "email"): string {
  const email = raw.trim().toLowerCase();
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL.test(email)) throw invalidInput(`${field}: '${raw}' is not an email address`);
  return email;
}

/** A person's display name when none is given: the email's local part. */
export function defaultName(email: string): string {
  return email.slice(0, email.indexOf("@"));
}

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** A new invitation's token (the link's last segment; only its SHA-256 is stored). */
export function newInvitationToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The link a person opens to set a password: the UI's page /invite/<token>. */
export function invitationUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, "")}/invite/${token}`;
}

/**
 * Whether an invitation link may set the person's password. A password opens every organization
 * of the person, and an admin's authority ends at its own: so an admin's link (createdBy set) sets
 * the password only of a person who has none and belongs to no other organization. The operator's
 * (the CLI's, createdBy null) always may: whoever runs the CLI holds the whole store.
 */
export function linkMaySetPassword(invitation: { createdBy: string | null; hasPassword: boolean; otherOrganizations: number }): boolean {
  return invitation.createdBy === null || (!invitation.hasPassword && invitation.otherOrganizations === 0);
}

/** Throws 400 when an invitation can no longer be used: used already, expired, or no longer allowed to set the password. */
export function assertInvitationUsable(
  invitation: { usedAt: number | null; expiresAt: number; createdBy: string | null; hasPassword: boolean; otherOrganizations: number },
  now: number,
): void {
  if (invitation.usedAt !== null)
    throw invalidInput("this invitation link has been used already: sign in with your password, or ask an admin for a new link");
  if (invitation.expiresAt <= now) throw invalidInput("this invitation link has expired: ask an admin for a new link");
  if (!linkMaySetPassword(invitation))
    throw invalidInput(
      "this invitation link can no longer set your password (you have a password, or belong to another organization, now): sign in instead, or ask the operator for a password reset (stepwise users create)",
    );
}

/** The limits on failed sign-ins (docs/semantics.md, "Sign-in limits"). */
export interface SignInLimits {
  /** Failures counted over this window. */
  windowMs: number;
  /** Failures per account (email) in the window before sign-in is refused for it. */
  perAccount: number;
  /** Failures per source address in the window. */
  perAddress: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 20 };

/** The keys failures are counted under: the account's and the address's. */
export const accountKey = (email: string) => `account:${email}`;
export const addressKey = (ip: string) => `address:${ip}`;

/**
 * Whether another attempt may be made, from the times of a key's latest failures in the window
 * (newest first, at most `limit` of them): refused with the seconds until the oldest of them
 * leaves the window when there are `limit` of them.
 */
export function retryAfterSeconds(recentFailures: readonly number[], limit: number, windowMs: number, now: number): number | undefined {
  if (recentFailures.length < limit) return undefined;
  const oldestCounted = recentFailures[limit - 1]!;
  return Math.max(1, Math.ceil((oldestCounted + windowMs - now) / 1000));
}

/** The 429 of too many failed sign-ins; the route adds Retry-After. */
export class TooManyAttempts extends DomainError {
  constructor(readonly retryAfter: number) {
    super("TOO_MANY_ATTEMPTS", `too many failed sign-ins: try again in ${Math.ceil(retryAfter / 60)} minute(s)`);
    this.name = "TooManyAttempts";
  }
}

/** The one answer to a wrong password and to an unknown email, so neither tells which emails have accounts. */
export const wrongCredentials = () => new DomainError("INVALID_SESSION", "wrong email or password");

/**
 * Who may change whose membership: an admin manages members, admins and viewers; only an owner
 * grants the role owner or changes or removes an owner (the CLI, run by the operator, may do all).
 */
export function assertMayManage(actorRole: Role, currentRole: Role | undefined, newRole: Role | undefined): void {
  assertRole(actorRole, "admin");
  if ((currentRole === "owner" || newRole === "owner") && actorRole !== "owner")
    throw new DomainError("FORBIDDEN", "only an owner may grant the role 'owner' or change or remove an owner");
}
