import { DomainError, invalidInput } from "./errors.js";

/**
 * The roles of a member of an organization, weakest first (docs/semantics.md, "Roles"): each role
 * may do everything the one before it may.
 * - viewer: reads only;
 * - member: also creates and writes runs, files and projects;
 * - admin: also manages keys, members, alert destinations, deletion and retention;
 * - owner: also the organization itself.
 */
export const ROLES = ["viewer", "member", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

const RANK = new Map<string, number>(ROLES.map((role, rank) => [role, rank]));

export function isRole(text: unknown): text is Role {
  return typeof text === "string" && RANK.has(text);
}

export function parseRole(text: unknown, field = "role"): Role {
  if (!isRole(text)) throw invalidInput(`${field}: must be one of ${ROLES.join(", ")}, got '${String(text)}'`);
  return text;
}

export function roleAtLeast(have: Role, need: Role): boolean {
  return RANK.get(have)! >= RANK.get(need)!;
}

export function lowerRole(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? b : a;
}

/** What a route needs when it does not say: reading methods a viewer, every other one a member. */
export function defaultRoleOf(method: string): Role {
  return method === "GET" || method === "HEAD" ? "viewer" : "member";
}

/** Throws 403 naming the role that is missing. */
export function assertRole(have: Role, need: Role): void {
  if (!roleAtLeast(have, need)) throw new DomainError("FORBIDDEN", `this requires the role '${need}' (your role: '${have}')`);
}

/**
 * The role a key acts with: its own cap when it has one, never above its owner's role in the
 * organization; undefined when the owner is no longer a member (the key stops working at once).
 */
export function keyRole(cap: Role | null, memberRole: Role | null): Role | undefined {
  if (memberRole === null) return undefined;
  return cap === null ? memberRole : lowerRole(cap, memberRole);
}

/**
 * Whether an organization keeps an owner after a change: its owners before the change, less the one
 * demoted or removed. Every organization has an owner, so nobody can lock it out of its own settings.
 */
export function assertOwnerRemains(ownersBefore: number, losesOwner: boolean): void {
  if (losesOwner && ownersBefore <= 1)
    throw new DomainError("CONFLICT", "an organization must keep at least one owner: make another member owner first");
}

/**
 * The cap a new key gets (docs/semantics.md, "People, roles and sign-in"): a key's role is at most its
 * owner's. `requested` is the role asked for (null: none), `ceiling` the most the key may have (the
 * owner's role, or less when the caller acts with less, as through a read-only key), `ownerRole` the
 * owner's role in the organization. Without a request, a key follows its owner's role (null cap) when
 * the ceiling is that role, else it is capped at the ceiling. Throws 403 for a role above the ceiling.
 */
export function newKeyCap(requested: Role | null, ceiling: Role, ownerRole: Role): Role | null {
  const most = lowerRole(ceiling, ownerRole);
  if (requested === null) return most === ownerRole ? null : most;
  if (!roleAtLeast(most, requested))
    throw new DomainError("FORBIDDEN", `a key's role is at most its owner's: '${requested}' is above '${most}'`);
  return requested;
}
