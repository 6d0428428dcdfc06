import { generateApiKey } from "../domain/api-keys.js";
import { DomainError, invalidInput } from "../domain/errors.js";
import type { Role } from "../domain/roles.js";
import { type Clock, toIsoOrNull } from "../domain/time.js";
import type { ApiKeyRecord, Organization, Store, User } from "../store/store.js";
import type { AuditContext, AuditFact, AuditLog } from "./audit.js";

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Creates an organization with its first user and API key; the key is returned once, never stored. */
export async function createOrganizationWithKey(
  store: Store,
  slug: string,
  clock: Clock,
): Promise<{ organization: Organization; key: string; record: ApiKeyRecord }> {
  if (!SLUG.test(slug))
    throw invalidInput(`slug: '${slug}' must be 1-63 lowercase letters, digits or '-', starting with a letter or digit`);
  const now = clock.now();
  const organization = await store.createOrganization(slug, now);
  const user = await createOwnerAccount(store, organization.id, now);
  const { key, record } = await issueKey(
    store,
    { orgId: organization.id, userId: user.id, name: "default", expiresAt: null, role: null },
    now,
  );
  return { organization, key, record };
}

/**
 * The service account "admin" owning a new organization: the first key belongs to it, as keys made
 * before people and roles existed do (docs/semantics.md, "People, roles and sign-in").
 */
export async function createOwnerAccount(store: Store, orgId: string, now: number): Promise<User> {
  const user = await store.createUser({ orgId, email: null, name: "admin", kind: "service" }, now);
  await store.setMembership(orgId, user.id, "owner", now);
  return user;
}

/**
 * A new key for a member (or service account) of the organization; the key is returned once, never
 * stored. With `audit`, its creation is recorded in the audit log in the same transaction
 * (`key.create`, by `audit.by`'s actor).
 */
export async function issueKey(
  store: Store,
  grant: { orgId: string; userId: string; name: string; expiresAt: number | null; role: Role | null },
  now: number,
  audit?: { log: AuditLog; by: AuditContext },
) {
  const { key, keyHash, displayPrefix } = generateApiKey();
  const input = { ...grant, keyHash, displayPrefix, createdAt: now };
  const record = audit
    ? await audit.log.write(audit.by, "createApiKey", [input], (made) => [keyFact("key.create", made)])
    : await store.createApiKey(input);
  return { key, record };
}

/** A key's audit entry: its ID, and what people tell keys apart by (never the key or its hash). */
export function keyFact(action: "key.create" | "key.revoke", key: ApiKeyRecord): AuditFact {
  return {
    action,
    target: { type: "api_key", id: key.id },
    details: { name: key.name, displayPrefix: key.displayPrefix, userId: key.userId, expiresAt: toIsoOrNull(key.expiresAt) },
  };
}

/** First start on an empty data directory: organization `default` and its key. Returns the key, or undefined when set up already. */
export async function bootstrap(store: Store, clock: Clock): Promise<string | undefined> {
  if ((await store.listOrganizations()).length > 0) return undefined;
  try {
    return (await createOrganizationWithKey(store, "default", clock)).key;
  } catch (error) {
    // Another process starting on the same empty store created it first; that process prints the key.
    if (error instanceof DomainError && error.code === "CONFLICT") return undefined;
    throw error;
  }
}
