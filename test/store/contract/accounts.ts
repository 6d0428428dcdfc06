import assert from "node:assert/strict";
import { it } from "node:test";
import type { Role } from "../../../src/domain/roles.js";
import type { AccountStore } from "../../../src/store/store.js";
import { newOrg, rejectsWith, T0 } from "./backends.js";

let hashes = 0;
const newHash = () => (++hashes).toString(16).padStart(64, "0");

/** A service account that owns the organization (as Stepwise's first key's holder does). */
async function addUser(s: AccountStore, orgId: string, name: string, now: number, role: Role = "owner") {
  const user = await s.createUser({ orgId, email: null, name, kind: "service" }, now);
  await s.setMembership(orgId, user.id, role, now);
  return user;
}

/** AccountStore: organizations, users, memberships, API keys and sessions. No fixtures. */
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
    const second = await addUser(s, orgId, "second", T0 + 2);
    const first = await addUser(s, orgId, "first", T0 + 1);
    await addUser(s, other, "elsewhere", T0);
    assert.deepEqual(await s.listUsers(orgId), [first, second]);
  });

  it("stores API keys by hash, returns them with their organization, and lists them per organization", async () => {
    const s = store();
    const org = await s.createOrganization(`keys-${Date.now()}`, T0);
    const user = await addUser(s, org.id, "u", T0);
    const input = {
      orgId: org.id,
      userId: user.id,
      name: "ci",
      keyHash: newHash(),
      displayPrefix: "sw_abcdef",
      createdAt: T0,
      expiresAt: T0 + 1000,
      role: null,
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
      role: null,
    });
    assert.ok(!("keyHash" in record), "the hash is not handed back");
    assert.deepEqual(await s.getApiKeyByHash(input.keyHash), { ...record, orgSlug: org.slug, memberRole: "owner" });
    assert.equal(await s.getApiKeyByHash(newHash()), undefined);
    await rejectsWith(s.createApiKey({ ...input, name: "again" }), "CONFLICT");

    const otherOrg = await newOrg(s);
    const otherUser = await addUser(s, otherOrg, "v", T0);
    await s.createApiKey({ ...input, orgId: otherOrg, userId: otherUser.id, keyHash: newHash() });
    assert.deepEqual(await s.listApiKeys(org.id), [record]);
  });

  it("revokes a key softly; revoking twice keeps the first time; an unknown key is undefined", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const user = await addUser(s, orgId, "u", T0);
    const keyHash = newHash();
    const record = await s.createApiKey({
      orgId,
      userId: user.id,
      name: "k",
      keyHash,
      displayPrefix: "sw_x",
      createdAt: T0,
      expiresAt: null,
      role: null,
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

  it("keeps people unique by email, finds them by ID and email, and stores a password hash", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const email = `ada-${hashes++}@example.com`;
    const ada = await s.createUser({ orgId, email, name: "Ada", kind: "person" }, T0);
    assert.deepEqual(ada, { id: ada.id, orgId, email, name: "Ada", kind: "person", createdAt: T0 });
    assert.deepEqual(await s.getUser(ada.id), ada);
    assert.deepEqual(await s.getUserByEmail(email), ada);
    assert.equal(await s.getUserByEmail("nobody@example.com"), undefined);
    await rejectsWith(s.createUser({ orgId, email, name: "Other", kind: "person" }, T0), "CONFLICT");
    // Service accounts have no email: any number of them.
    await s.createUser({ orgId, email: null, name: "ci", kind: "service" }, T0);
    await s.createUser({ orgId, email: null, name: "ci", kind: "service" }, T0);
    assert.equal(await s.getPasswordHash(ada.id), undefined);
    await s.setPasswordHash(ada.id, "scrypt$x");
    assert.equal(await s.getPasswordHash(ada.id), "scrypt$x");
  });

  it("gives members one role per organization, keeps an owner, and lists both ways", async () => {
    const s = store();
    const orgA = await s.createOrganization(`members-a-${hashes++}`, T0);
    const orgB = await s.createOrganization(`members-b-${hashes++}`, T0);
    const owner = await addUser(s, orgA.id, "owner", T0);
    const ada = await s.createUser({ orgId: orgA.id, email: `ada-${hashes++}@example.com`, name: "Ada", kind: "person" }, T0);
    assert.equal(await s.getMembership(orgA.id, ada.id), undefined);
    assert.deepEqual(await s.setMembership(orgA.id, ada.id, "viewer", T0 + 1), {
      orgId: orgA.id,
      userId: ada.id,
      role: "viewer",
      createdAt: T0 + 1,
    });
    assert.deepEqual(await s.setMembership(orgA.id, ada.id, "admin", T0 + 2), {
      orgId: orgA.id,
      userId: ada.id,
      role: "admin",
      createdAt: T0 + 1,
    });
    await s.setMembership(orgB.id, ada.id, "member", T0 + 3);
    assert.deepEqual(
      (await s.listMembers(orgA.id)).map((m) => [m.user.name, m.role]),
      [
        ["owner", "owner"],
        ["Ada", "admin"],
      ],
    );
    assert.deepEqual(
      (await s.listMemberships(ada.id)).map((m) => [m.orgSlug, m.role]).sort(),
      [
        [orgA.slug, "admin"],
        [orgB.slug, "member"],
      ].sort(),
    );
    // The last owner can be neither demoted nor removed; with a second owner, it can.
    await rejectsWith(s.setMembership(orgA.id, owner.id, "admin", T0), "CONFLICT");
    await rejectsWith(s.removeMembership(orgA.id, owner.id, T0), "CONFLICT");
    await s.setMembership(orgA.id, ada.id, "owner", T0);
    await s.setMembership(orgA.id, owner.id, "admin", T0);
    assert.equal((await s.getMembership(orgA.id, owner.id))!.role, "admin");
    assert.equal(await s.removeMembership(orgB.id, owner.id, T0), false, "not a member there");
  });

  it("removing a member revokes its keys and ends its sessions in that organization only, in one step", async () => {
    const s = store();
    const orgA = await s.createOrganization(`removal-a-${hashes++}`, T0);
    const orgB = await s.createOrganization(`removal-b-${hashes++}`, T0);
    await addUser(s, orgA.id, "owner", T0);
    const ada = await s.createUser({ orgId: orgA.id, email: `ada-${hashes++}@example.com`, name: "Ada", kind: "person" }, T0);
    await s.setMembership(orgA.id, ada.id, "member", T0);
    await s.setMembership(orgB.id, ada.id, "member", T0);
    const key = (orgId: string) =>
      s.createApiKey({
        orgId,
        userId: ada.id,
        name: "k",
        keyHash: newHash(),
        displayPrefix: "sw_x",
        createdAt: T0,
        expiresAt: null,
        role: "viewer",
      });
    const keyA = await key(orgA.id);
    const keyB = await key(orgB.id);
    const session = (id: string, orgId: string) =>
      s.createSession({
        id,
        tokenHash: newHash(),
        userId: ada.id,
        orgId,
        csrfToken: "c",
        createdAt: T0,
        expiresAt: T0 + 1e6,
        sourceIp: null,
        userAgent: null,
      });
    const sessionA = `00000000-0000-4000-8000-${String(hashes++).padStart(12, "0")}`;
    const sessionB = `00000000-0000-4000-8000-${String(hashes++).padStart(12, "0")}`;
    await session(sessionA, orgA.id);
    await session(sessionB, orgB.id);

    assert.equal(await s.removeMembership(orgA.id, ada.id, T0 + 5), true);
    assert.equal((await s.getApiKey(keyA.id))!.revokedAt, T0 + 5);
    assert.equal((await s.getApiKey(keyB.id))!.revokedAt, null);
    assert.equal((await s.getSession(sessionA))!.endedAt, T0 + 5);
    assert.equal((await s.getSession(sessionB))!.endedAt, null);
    assert.equal(await s.getMembership(orgA.id, ada.id), undefined);
  });

  it("keeps sessions by token hash with the member's role now, touches, moves and ends them", async () => {
    const s = store();
    const org = await s.createOrganization(`sessions-${hashes++}`, T0);
    const other = await s.createOrganization(`sessions-other-${hashes++}`, T0);
    const ada = await addUser(s, org.id, "ada", T0, "owner");
    const tokenHash = newHash();
    const id = `00000000-0000-4000-8000-${String(hashes++).padStart(12, "0")}`;
    const input = {
      id,
      tokenHash,
      userId: ada.id,
      orgId: org.id,
      csrfToken: "csrf",
      createdAt: T0,
      expiresAt: T0 + 100,
      sourceIp: "10.0.0.1",
      userAgent: "ua",
    };
    await s.createSession(input);
    const { tokenHash: _, ...record } = input;
    const stored = { ...record, lastSeenAt: T0, endedAt: null };
    assert.deepEqual(await s.getSessionByHash(tokenHash), { ...stored, orgSlug: org.slug, memberRole: "owner" });
    assert.equal(await s.getSessionByHash(newHash()), undefined);
    await s.touchSession(id, T0 + 50);
    assert.equal((await s.getSession(id))!.lastSeenAt, T0 + 50);
    await s.touchSession(id, T0 + 40);
    assert.equal((await s.getSession(id))!.lastSeenAt, T0 + 50, "activity never goes back");
    await s.setSessionOrganization(id, other.id);
    assert.deepEqual(await s.getSessionByHash(tokenHash), {
      ...stored,
      lastSeenAt: T0 + 50,
      orgId: other.id,
      orgSlug: other.slug,
      memberRole: null,
    });
    await s.endSession(id, T0 + 60);
    await s.endSession(id, T0 + 70);
    assert.equal((await s.getSession(id))!.endedAt, T0 + 60);
  });

  it("an API key comes with its owner's role now, null once the owner left", async () => {
    const s = store();
    const orgId = await newOrg(s);
    await addUser(s, orgId, "owner", T0);
    const bob = await addUser(s, orgId, "bob", T0, "member");
    const keyHash = newHash();
    await s.createApiKey({
      orgId,
      userId: bob.id,
      name: "k",
      keyHash,
      displayPrefix: "sw_x",
      createdAt: T0,
      expiresAt: null,
      role: "viewer",
    });
    assert.deepEqual([(await s.getApiKeyByHash(keyHash))!.role, (await s.getApiKeyByHash(keyHash))!.memberRole], ["viewer", "member"]);
    await s.removeMembership(orgId, bob.id, T0 + 1);
    assert.equal((await s.getApiKeyByHash(keyHash))!.memberRole, null);
  });
}
