import { DomainError, invalidInput } from "../../domain/errors.js";
import { assertInvitationUsable } from "../../domain/people.js";
import type { AccountQuery } from "../account-sql.js";
import type { InvitationDetails, NewInvitation } from "../people-store.js";
import { performer, type Workflow } from "../workflow.js";
import type { AccountOperations } from "./accounts.js";

/** PeopleStore (people-store.ts) on AccountOperations: the SQL of people-sql.ts, run by each backend's account operations. */
type PeopleWorkflow<T> = Workflow<T, AccountOperations>;
const perform = performer<AccountOperations>();
const rows = (query: AccountQuery, ...params: unknown[]) => perform("accountRows", query, params);
const one = (query: AccountQuery, ...params: unknown[]) => perform("accountRow", query, params);
const exec = (query: AccountQuery, ...params: unknown[]) => perform("accountRun", query, params);

type Row = Record<string, unknown>;
const nullableTime = (value: unknown) => (value === null || value === undefined ? null : Number(value));

const toInvitation = (row: Row): InvitationDetails => ({
  tokenHash: row.token_hash as string,
  orgId: row.org_id as string,
  userId: row.user_id as string,
  createdBy: (row.created_by ?? null) as string | null,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  usedAt: nullableTime(row.used_at),
  orgSlug: row.slug as string,
  email: (row.email ?? null) as string | null,
  name: row.name as string,
  hasPassword: Boolean(row.has_password),
  otherOrganizations: Number(row.other_organizations),
});

export function* createInvitation(invitation: NewInvitation): PeopleWorkflow<void> {
  const { tokenHash, orgId, userId, createdBy, createdAt, expiresAt } = invitation;
  yield* exec("withdrawInvitations", orgId, userId);
  yield* exec("insertInvitation", tokenHash, orgId, userId, createdBy, createdAt, expiresAt);
}

export function* getInvitation(tokenHash: string): PeopleWorkflow<InvitationDetails | undefined> {
  const row = yield* one("getInvitation", tokenHash);
  return row && toInvitation(row);
}

export function* acceptInvitation(
  tokenHash: string,
  passwordHash: string,
  name: string | null,
  now: number,
): PeopleWorkflow<InvitationDetails> {
  const invitation = yield* getInvitation(tokenHash);
  if (!invitation) throw new DomainError("NOT_FOUND", "unknown invitation link: it may have been replaced by a newer one");
  assertInvitationUsable(invitation, now);
  if (!(yield* one("getMembership", invitation.orgId, invitation.userId)))
    throw invalidInput(`you are no longer a member of the organization '${invitation.orgSlug}'`);
  if ((yield* exec("useInvitation", now, tokenHash)) === 0) assertInvitationUsable({ ...invitation, usedAt: now }, now);
  yield* exec("setPasswordHash", passwordHash, invitation.userId);
  if (name !== null) yield* exec("setUserName", name, invitation.userId);
  yield* exec("endAllUserSessions", now, invitation.userId);
  return { ...invitation, usedAt: now, hasPassword: true, name: name ?? invitation.name };
}

export function* recordSignInFailure(keys: readonly string[], now: number, pruneBefore: number): PeopleWorkflow<void> {
  yield* exec("pruneSignInFailures", pruneBefore);
  for (const key of keys) yield* exec("insertSignInFailure", key, now);
}

export function* listSignInFailures(key: string, since: number, limit: number): PeopleWorkflow<number[]> {
  return (yield* rows("listSignInFailures", key, since, limit)).map((row) => Number(row.at));
}

export function* clearSignInFailures(key: string): PeopleWorkflow<void> {
  yield* exec("clearSignInFailures", key);
}

export function* anyPasswordSet(): PeopleWorkflow<boolean> {
  return (yield* one("anyPasswordSet")) !== undefined;
}
