import { generateApiKey } from "../domain/api-keys.js";
import { DomainError, invalidInput } from "../domain/errors.js";
import { type Clock, toIsoOrNull } from "../domain/time.js";
import type { ApiKeyRecord, Organization, Store } from "../store/store.js";
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
  const user = await store.createUser(organization.id, "admin", now);
  const { key, record } = await issueKey(store, organization.id, user.id, "default", null, now);
  return { organization, key, record };
}

/**
 * Makes a key and stores its hash; with `audit`, the key's creation is recorded in the audit log in
 * the same transaction (`key.create`, by `audit.by`'s actor).
 */
export async function issueKey(
  store: Store,
  orgId: string,
  userId: string,
  name: string,
  expiresAt: number | null,
  now: number,
  audit?: { log: AuditLog; by: AuditContext },
) {
  const { key, keyHash, displayPrefix } = generateApiKey();
  const input = { orgId, userId, name, keyHash, displayPrefix, createdAt: now, expiresAt };
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
