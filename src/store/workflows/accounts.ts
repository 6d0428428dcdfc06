import { randomUUID } from "node:crypto";
import { assertOwnerRemains, type Role } from "../../domain/roles.js";
import type { AccountQuery } from "../account-sql.js";
import { conflictOnUnique } from "../conflicts.js";
import type {
  ApiKeyRecord,
  Member,
  Membership,
  NewApiKey,
  NewSession,
  NewUser,
  Organization,
  SessionRecord,
  User,
  UserKind,
} from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** What organizations, users, memberships, keys and sessions ask of a backend: account-sql.ts's queries, run. */
export interface AccountOperations {
  insertOrganization(organization: Organization): void;
  accountRows(query: AccountQuery, params: unknown[]): Record<string, unknown>[];
  accountRow(query: AccountQuery, params: unknown[]): Record<string, unknown> | undefined;
  /** Runs a write; the number of rows it changed. */
  accountRun(query: AccountQuery, params: unknown[]): number;
}

type AccountWorkflow<T> = Workflow<T, AccountOperations>;
const perform = performer<AccountOperations>();
const rows = (query: AccountQuery, ...params: unknown[]) => perform("accountRows", query, params);
const one = (query: AccountQuery, ...params: unknown[]) => perform("accountRow", query, params);
const exec = (query: AccountQuery, ...params: unknown[]) => perform("accountRun", query, params);

type Row = Record<string, unknown>;
const text = (value: unknown) => value as string;
const nullableText = (value: unknown) => (value ?? null) as string | null;
const time = (value: unknown) => Number(value);
const nullableTime = (value: unknown) => (value === null || value === undefined ? null : Number(value));

const toUser = (row: Row): User => ({
  id: text(row.id),
  orgId: text(row.org_id),
  email: nullableText(row.email),
  name: text(row.name),
  kind: row.kind as UserKind,
  createdAt: time(row.created_at),
});

const toMembership = (row: Row): Membership => ({
  orgId: text(row.org_id),
  userId: text(row.user_id),
  role: row.role as Role,
  createdAt: time(row.created_at),
});

export const toApiKeyRecord = (row: Row): ApiKeyRecord => ({
  id: text(row.id),
  orgId: text(row.org_id),
  userId: text(row.user_id),
  name: text(row.name),
  displayPrefix: text(row.display_prefix),
  createdAt: time(row.created_at),
  expiresAt: nullableTime(row.expires_at),
  revokedAt: nullableTime(row.revoked_at),
  role: (row.role ?? null) as Role | null,
});

const toSession = (row: Row): SessionRecord => ({
  id: text(row.id),
  userId: text(row.user_id),
  orgId: text(row.org_id),
  csrfToken: text(row.csrf_token),
  createdAt: time(row.created_at),
  lastSeenAt: time(row.last_seen_at),
  expiresAt: time(row.expires_at),
  endedAt: nullableTime(row.ended_at),
  sourceIp: nullableText(row.source_ip),
  userAgent: nullableText(row.user_agent),
});

/** Store.createOrganization: a slug taken is CONFLICT. */
export function* createOrganization(slug: string, now: number): AccountWorkflow<Organization> {
  const organization = { id: randomUUID(), slug, createdAt: now };
  yield* conflictOnUnique(perform("insertOrganization", organization), `organization '${slug}' already exists`);
  return organization;
}

/** Store.createApiKey. */
export function* createApiKey(key: NewApiKey): AccountWorkflow<ApiKeyRecord> {
  const id = randomUUID();
  const { orgId, userId, name, keyHash, displayPrefix, createdAt, expiresAt, role } = key;
  yield* conflictOnUnique(
    exec("insertApiKey", id, orgId, userId, name, keyHash, displayPrefix, createdAt, expiresAt, role),
    "API key already exists",
  );
  // Built field by field: the hash stays in the database and never travels with the record.
  return { id, orgId, userId, name, displayPrefix, createdAt, expiresAt, revokedAt: null, role };
}

export function* getApiKeyByHash(
  keyHash: string,
): AccountWorkflow<(ApiKeyRecord & { orgSlug: string; memberRole: Role | null }) | undefined> {
  const row = yield* one("getApiKeyByHash", keyHash);
  return row && { ...toApiKeyRecord(row), orgSlug: text(row.slug), memberRole: (row.member_role ?? null) as Role | null };
}

/** Store.createUser: a person's email taken is CONFLICT. */
export function* createUser(user: NewUser, now: number): AccountWorkflow<User> {
  const id = randomUUID();
  yield* conflictOnUnique(
    exec("insertUser", id, user.orgId, user.email, user.name, user.kind, now),
    `a user with the email '${user.email}' already exists`,
  );
  return { id, ...user, createdAt: now };
}

export function* getUser(userId: string): AccountWorkflow<User | undefined> {
  const row = yield* one("getUser", userId);
  return row && toUser(row);
}

export function* getUserByEmail(email: string): AccountWorkflow<User | undefined> {
  const row = yield* one("getUserByEmail", email);
  return row && toUser(row);
}

export function* getPasswordHash(userId: string): AccountWorkflow<string | undefined> {
  const row = yield* one("getPasswordHash", userId);
  return (row?.password_hash ?? undefined) as string | undefined;
}

export function* setPasswordHash(userId: string, hash: string | null): AccountWorkflow<void> {
  yield* exec("setPasswordHash", hash, userId);
}

export function* listUsers(orgId: string): AccountWorkflow<User[]> {
  return (yield* rows("listUsers", orgId)).map(toUser);
}

export function* getMembership(orgId: string, userId: string): AccountWorkflow<Membership | undefined> {
  const row = yield* one("getMembership", orgId, userId);
  return row && toMembership(row);
}

function* ownerCount(orgId: string): AccountWorkflow<number> {
  return Number((yield* one("countOwners", orgId))!.owners);
}

/** Store.setMembership: adds the member or changes its role; the organization keeps an owner. */
export function* setMembership(orgId: string, userId: string, role: Role, now: number): AccountWorkflow<Membership> {
  const current = yield* getMembership(orgId, userId);
  if (!current) {
    yield* exec("insertMembership", orgId, userId, role, now);
    return { orgId, userId, role, createdAt: now };
  }
  if (current.role === role) return current;
  assertOwnerRemains(yield* ownerCount(orgId), current.role === "owner");
  yield* exec("updateMembership", role, orgId, userId);
  return { ...current, role };
}

/** Store.removeMembership: the membership, the user's keys and sessions in the organization end together. */
export function* removeMembership(orgId: string, userId: string, now: number): AccountWorkflow<boolean> {
  const current = yield* getMembership(orgId, userId);
  if (!current) return false;
  assertOwnerRemains(yield* ownerCount(orgId), current.role === "owner");
  yield* exec("deleteMembership", orgId, userId);
  yield* exec("revokeUserKeys", now, orgId, userId);
  yield* exec("endUserSessions", now, orgId, userId);
  return true;
}

export function* listMembers(orgId: string): AccountWorkflow<Member[]> {
  return (yield* rows("listMembers", orgId)).map((row) => ({
    ...toMembership({ org_id: row.member_org_id, user_id: row.id, role: row.role, created_at: row.joined_at }),
    user: toUser(row),
  }));
}

export function* listMemberships(userId: string): AccountWorkflow<(Membership & { orgSlug: string })[]> {
  return (yield* rows("listMemberships", userId)).map((row) => ({ ...toMembership(row), orgSlug: text(row.slug) }));
}

export function* createSession(session: NewSession): AccountWorkflow<void> {
  const { id, tokenHash, userId, orgId, csrfToken, createdAt, expiresAt, sourceIp, userAgent } = session;
  yield* exec("insertSession", id, tokenHash, userId, orgId, csrfToken, createdAt, createdAt, expiresAt, sourceIp, userAgent);
}

export function* getSessionByHash(
  tokenHash: string,
): AccountWorkflow<(SessionRecord & { orgSlug: string; memberRole: Role | null }) | undefined> {
  const row = yield* one("getSessionByHash", tokenHash);
  return row && { ...toSession(row), orgSlug: text(row.slug), memberRole: (row.member_role ?? null) as Role | null };
}

export function* getSession(sessionId: string): AccountWorkflow<SessionRecord | undefined> {
  const row = yield* one("getSession", sessionId);
  return row && toSession(row);
}

export function* touchSession(sessionId: string, now: number): AccountWorkflow<void> {
  yield* exec("touchSession", now, sessionId, now);
}

export function* setSessionOrganization(sessionId: string, orgId: string): AccountWorkflow<void> {
  yield* exec("setSessionOrganization", orgId, sessionId);
}

export function* endSession(sessionId: string, now: number): AccountWorkflow<void> {
  yield* exec("endSession", now, sessionId);
}
