import { randomUUID } from "node:crypto";
import type { ApiKeyRecord, NewApiKey, Organization } from "../store.js";
import { conflictOnUnique } from "../conflicts.js";
import { performer, type Workflow } from "../workflow.js";

/** What creating organizations and keys asks of a backend. */
export interface AccountOperations {
  insertOrganization(organization: Organization): void;
  insertApiKey(id: string, key: NewApiKey): void;
}

const perform = performer<AccountOperations>();

/** Store.createOrganization: a slug taken is CONFLICT. */
export function* createOrganization(slug: string, now: number): Workflow<Organization, AccountOperations> {
  const organization = { id: randomUUID(), slug, createdAt: now };
  yield* conflictOnUnique(perform("insertOrganization", organization), `organization '${slug}' already exists`);
  return organization;
}

/** Store.createApiKey. */
export function* createApiKey(key: NewApiKey): Workflow<ApiKeyRecord, AccountOperations> {
  const id = randomUUID();
  yield* conflictOnUnique(perform("insertApiKey", id, key), "API key already exists");
  // Built field by field: the hash stays in the database and never travels with the record.
  const { orgId, userId, name, displayPrefix, createdAt, expiresAt } = key;
  return { id, orgId, userId, name, displayPrefix, createdAt, expiresAt, revokedAt: null };
}
