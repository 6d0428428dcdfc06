import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { hashApiKey } from "../../src/domain/api-keys.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { authCacheTtlMs, cachingCredentials } from "../../src/store/credential-cache.js";
import type { Store } from "../../src/store/store.js";
import { ManualClock, makeTestStoreLocation, type TestStoreLocation } from "../helpers/start-server.js";

/**
 * The authentication cache (src/store/credential-cache.ts) over the real store, two store
 * connections standing for two processes on one database: a revocation through the caching
 * process takes effect at once there; one through the other process, within the cache's lifetime.
 */
describe("credential cache", () => {
  const clock = new ManualClock(Date.now());
  let location: TestStoreLocation;
  let here: Store;
  let elsewhere: Store;
  before(async () => {
    location = await makeTestStoreLocation();
    elsewhere = await location.openStore();
    here = cachingCredentials(await location.openStore(), clock, 1000);
  });
  after(async () => {
    await here.close();
    await elsewhere.close();
    await location.remove();
  });

  it("sees a revocation made through the same process at once", async () => {
    const { key, record } = await createOrganizationWithKey(elsewhere, `cache-${Date.now()}`, clock);
    assert.equal((await here.getApiKeyByHash(hashApiKey(key)))!.revokedAt, null);
    await here.revokeApiKey(record.id, clock.now());
    assert.equal((await here.getApiKeyByHash(hashApiKey(key)))!.revokedAt, clock.now());
  });

  it("sees a removal made through another process within the cache's lifetime, not later", async () => {
    const { key, record, organization } = await createOrganizationWithKey(elsewhere, `cache-other-${Date.now()}`, clock);
    assert.equal((await here.getApiKeyByHash(hashApiKey(key)))!.memberRole, "owner");
    const second = await elsewhere.createUser({ orgId: organization.id, email: null, name: "second", kind: "service" }, clock.now());
    await elsewhere.setMembership(organization.id, second.id, "owner", clock.now());
    await elsewhere.removeMembership(organization.id, record.userId, clock.now());
    assert.equal((await here.getApiKeyByHash(hashApiKey(key)))!.memberRole, "owner", "cached for up to 1 s");
    clock.advance(1000);
    assert.equal((await here.getApiKeyByHash(hashApiKey(key)))!.memberRole, null);
  });

  it("is off on SQLite and 1 s on PostgreSQL unless configured", () => {
    assert.equal(authCacheTtlMs({ authCacheTtl: "auto", databaseUrl: "" }), 0);
    assert.equal(authCacheTtlMs({ authCacheTtl: "auto", databaseUrl: "postgres://db" }), 1000);
    assert.equal(authCacheTtlMs({ authCacheTtl: 250, databaseUrl: "" }), 250);
  });
});
