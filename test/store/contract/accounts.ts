import assert from "node:assert/strict";
import { it } from "node:test";
import type { AccountStore } from "../../../src/store/store.js";
import { newOrg, rejectsWith, T0 } from "./backends.js";

let hashes = 0;
const newHash = () => (++hashes).toString(16).padStart(64, "0");

/** AccountStore: organizations, users and API keys. No fixtures. */
export function accountContract(store: () => AccountStore): void {
  it("creates organizations with unique slugs and finds them by slug", async () => {
    const s = store();
    const org = await s.createOrganization("acme-contract", T0);
    assert.deepEqual(org, { id: org.id, slug: "acme-contract", createdAt: T0 });
    assert.deepEqual(await s.getOrganizationBySlug("acme-contract"), org);
    assert.equal(await s.getOrganizationBySlug("nobody"), undefined);
    assert.ok((await s.listOrganizations()).some((o) => o.id === org.id));
    await rejectsWith(s.createOrganization("acme-contract", T0 + 1), "CONFLICT");
  });

  it("lists the users of one organization, oldest first", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const second = await s.createUser(orgId, "second", T0 + 2);
    const first = await s.createUser(orgId, "first", T0 + 1);
    await s.createUser(other, "elsewhere", T0);
    assert.deepEqual(await s.listUsers(orgId), [first, second]);
  });

  it("stores API keys by hash, returns them with their organization, and lists them per organization", async () => {
    const s = store();
    const org = await s.createOrganization(`keys-${Date.now()}`, T0);
    const user = await s.createUser(org.id, "u", T0);
    const input = {
      orgId: org.id,
      userId: user.id,
      name: "ci",
      keyHash: newHash(),
      displayPrefix: "sw_abcdef",
      createdAt: T0,
      expiresAt: T0 + 1000,
    };
    const record = await s.createApiKey(input);
    assert.deepEqual(record, {
      id: record.id,
      orgId: org.id,
      userId: user.id,
      name: "ci",
      displayPrefix: "sw_abcdef",
      createdAt: T0,
      expiresAt: T0 + 1000,
      revokedAt: null,
    });
    assert.ok(!("keyHash" in record), "the hash is not handed back");
    assert.deepEqual(await s.getApiKeyByHash(input.keyHash), { ...record, orgSlug: org.slug });
    assert.equal(await s.getApiKeyByHash(newHash()), undefined);
    await rejectsWith(s.createApiKey({ ...input, name: "again" }), "CONFLICT");

    const otherOrg = await newOrg(s);
    const otherUser = await s.createUser(otherOrg, "v", T0);
    await s.createApiKey({ ...input, orgId: otherOrg, userId: otherUser.id, keyHash: newHash() });
    assert.deepEqual(await s.listApiKeys(org.id), [record]);
  });

  it("revokes a key softly; revoking twice keeps the first time; an unknown key is undefined", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const user = await s.createUser(orgId, "u", T0);
    const keyHash = newHash();
    const record = await s.createApiKey({
      orgId,
      userId: user.id,
      name: "k",
      keyHash,
      displayPrefix: "sw_x",
      createdAt: T0,
      expiresAt: null,
    });
    assert.deepEqual(await s.getApiKey(record.id), record);
    const revoked = await s.revokeApiKey(record.id, T0 + 10);
    assert.deepEqual(revoked, { ...record, revokedAt: T0 + 10 });
    assert.deepEqual(await s.getApiKey(record.id), revoked, "found by ID once revoked, so signed URLs can tell");
    assert.equal(await s.getApiKey("00000000-0000-0000-0000-000000000000"), undefined);
    assert.deepEqual(await s.revokeApiKey(record.id, T0 + 20), { ...record, revokedAt: T0 + 10 });
    assert.equal((await s.getApiKeyByHash(keyHash))!.revokedAt, T0 + 10, "still found, so callers can say why it fails");
    assert.deepEqual(await s.listApiKeys(orgId), [{ ...record, revokedAt: T0 + 10 }]);
    assert.equal(await s.revokeApiKey("00000000-0000-0000-0000-000000000000", T0), undefined);
  });
}
