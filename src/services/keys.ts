import { DomainError } from "../domain/errors.js";
import { assertRole, newKeyCap, type Role } from "../domain/roles.js";
import type { ApiKeyRecord, Store, User } from "../store/store.js";
import { createOwnerAccount, issueKey, keyFact } from "./accounts.js";
import type { AuditContext, AuditLog } from "./audit.js";

/**
 * API keys of people and service accounts (docs/semantics.md, "People, roles and sign-in"): made by
 * the CLI for any member or service account, and through `/api/keys` by a member for itself.
 */

/** A key with its owner (null when the owner is gone) and the owner's role now (null once removed). */
export interface KeyView {
  record: ApiKeyRecord;
  user: User | null;
  memberRole: Role | null;
}

/** Who asks: the caller's organization, user and the role it acts with now. */
export interface KeyCaller {
  orgId: string;
  userId: string;
  role: Role;
}

/**
 * A new key of a member, its role capped by `requested` and never above `ceiling` nor the member's
 * role (domain/roles.ts newKeyCap). The key is returned once, never stored.
 */
export async function createMemberKey(
  store: Store,
  grant: { orgId: string; userId: string; name: string; expiresAt: number | null; requested: Role | null; ceiling?: Role },
  now: number,
  audit?: { log: AuditLog; by: AuditContext },
) {
  const membership = await store.getMembership(grant.orgId, grant.userId);
  if (!membership) throw new DomainError("NOT_FOUND", "that user is not a member of the organization");
  const role = newKeyCap(grant.requested, grant.ceiling ?? membership.role, membership.role);
  const { orgId, userId, name, expiresAt } = grant;
  return issueKey(store, { orgId, userId, name, expiresAt, role }, now, audit);
}

/** The organization's service account of that name, made a member with `role` when it has none. */
export async function serviceAccount(store: Store, orgId: string, name: string, role: Role, now: number): Promise<User> {
  const existing = (await store.listMembers(orgId)).find((m) => m.user.kind === "service" && m.user.name === name);
  if (existing) return existing.user;
  const user = await store.createUser({ orgId, email: null, name, kind: "service" }, now);
  await store.setMembership(orgId, user.id, role, now);
  return user;
}

/** The service account owning the organization (the keys made before people existed are its), made when missing. */
export async function ownerServiceAccount(store: Store, orgId: string, now: number): Promise<User> {
  const members = await store.listMembers(orgId);
  const owners = members.filter((m) => m.user.kind === "service" && m.role === "owner");
  const owner = owners.find((m) => m.user.name === "admin") ?? owners[0];
  return owner?.user ?? createOwnerAccount(store, orgId, now);
}

/** One key of the organization with its owner and the owner's role now. */
export async function keyView(store: Store, orgId: string, record: ApiKeyRecord): Promise<KeyView> {
  const [user, membership] = await Promise.all([store.getUser(record.userId), store.getMembership(orgId, record.userId)]);
  return { record, user: user ?? null, memberRole: membership?.role ?? null };
}

/** The organization's keys with their owners, oldest first; only `userId`'s when given. */
export async function listKeys(store: Store, orgId: string, userId?: string): Promise<KeyView[]> {
  const [keys, members] = await Promise.all([store.listApiKeys(orgId), store.listMembers(orgId)]);
  const byUser = new Map(members.map((m) => [m.user.id, m]));
  const views: KeyView[] = [];
  for (const record of keys) {
    if (userId !== undefined && record.userId !== userId) continue;
    const member = byUser.get(record.userId);
    const user = member?.user ?? (await store.getUser(record.userId)) ?? null;
    views.push({ record, user, memberRole: member?.role ?? null });
  }
  return views;
}

/**
 * Revokes a key of the caller's organization: its own, or, for an admin, anyone's. Another
 * organization's key is not found. The audit log records it when it is revoked now (not before).
 */
export async function revokeKey(
  store: Store,
  caller: KeyCaller,
  keyId: string,
  now: number,
  audit: { log: AuditLog; by: AuditContext },
): Promise<KeyView> {
  const key = await store.getApiKey(keyId);
  if (!key || key.orgId !== caller.orgId) throw new DomainError("NOT_FOUND", `no API key with id '${keyId}'`);
  if (key.userId !== caller.userId) assertRole(caller.role, "admin");
  return keyView(store, caller.orgId, (await revokeAudited(audit, keyId, now))!);
}

/** Revokes a key in one transaction with its audit entry; a key revoked before keeps its first time and records nothing now. */
export function revokeAudited(audit: { log: AuditLog; by: AuditContext }, keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
  return audit.log.write(audit.by, "revokeApiKey", [keyId, now], (made) => (made?.revokedAt === now ? [keyFact("key.revoke", made)] : []));
}
