/** Seeding of the cached benchmark data directories (written through the Store: seeding is not what is measured). */
import { mkdirSync, rmSync } from "node:fs";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";

/** An empty data directory at `dir` (whatever was there is removed) with organization `bench` and its key. */
export async function freshBenchStore(dir: string) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = SqliteStore.open(dir);
  const { organization, key } = await createOrganizationWithKey(store, "bench", { now: () => Date.now() });
  return { store, orgId: organization.id, key, actor: { userId: null, apiKeyId: null } };
}
