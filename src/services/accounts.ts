import { generateApiKey } from "../domain/api-keys.js";
import { DomainError, invalidInput } from "../domain/errors.js";
import type { Clock } from "../domain/time.js";
import type { ApiKeyRecord, Organization, Store } from "../store/store.js";

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

export async function issueKey(store: Store, orgId: string, userId: string, name: string, expiresAt: number | null, now: number) {
  const { key, keyHash, displayPrefix } = generateApiKey();
  const record = await store.createApiKey({ orgId, userId, name, keyHash, displayPrefix, createdAt: now, expiresAt });
  return { key, record };
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
