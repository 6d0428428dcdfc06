import assert from "node:assert/strict";
import { it } from "node:test";
import type { Store } from "../../../src/store/store.js";
import { newOrg, rejectsWith, T0 } from "./backends.js";

let hashes = 0;
const newHash = () => `people-${(++hashes).toString(16).padStart(56, "0")}`;
const DAY = 24 * 3600 * 1000;

/** A person who is a member of the organization, with an invitation link (its token hash). */
async function invited(s: Store, orgId: string, email: string, now = T0) {
  const user = await s.createUser({ orgId, email, name: "Ada", kind: "person" }, now);
  await s.setMembership(orgId, user.id, "member", now);
  const tokenHash = newHash();
  await s.createInvitation({ tokenHash, orgId, userId: user.id, createdBy: null, createdAt: now, expiresAt: now + 7 * DAY });
  return { user, tokenHash };
}

const uniqueEmail = () => `p-${Math.random().toString(36).slice(2)}@example.com`;

/** PeopleStore: invitations and failed sign-ins. Fixtures: AccountStore (organizations, users, memberships, sessions). */
export function peopleContract(store: () => Store): void {
  it("an invitation is found by its token hash with its person and organization, and used once", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const email = uniqueEmail();
    const { user, tokenHash } = await invited(s, orgId, email);
    const found = await s.getInvitation(tokenHash);
    assert.equal(found?.userId, user.id);
    assert.equal(found?.orgId, orgId);
    assert.equal(found?.email, email);
    assert.equal(found?.usedAt, null);
    assert.equal(found?.hasPassword, false);
    assert.equal(await s.getInvitation(newHash()), undefined);

    const accepted = await s.acceptInvitation(tokenHash, "scrypt$stored", "Ada L.", T0 + 1);
    assert.equal(accepted.usedAt, T0 + 1);
    assert.equal(await s.getPasswordHash(user.id), "scrypt$stored");
    assert.equal((await s.getUser(user.id))?.name, "Ada L.");
    assert.equal((await s.getInvitation(tokenHash))?.hasPassword, true);
    await rejectsWith(s.acceptInvitation(tokenHash, "scrypt$other", null, T0 + 2), "INVALID_INPUT");
    assert.equal(await s.getPasswordHash(user.id), "scrypt$stored", "the second use changed nothing");
    await rejectsWith(s.acceptInvitation(newHash(), "scrypt$x", null, T0), "NOT_FOUND");
  });

  it("two racing uses of one invitation: exactly one succeeds", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { tokenHash } = await invited(s, orgId, uniqueEmail());
    const results = await Promise.allSettled([
      s.acceptInvitation(tokenHash, "scrypt$a", null, T0 + 1),
      s.acceptInvitation(tokenHash, "scrypt$b", null, T0 + 1),
      s.acceptInvitation(tokenHash, "scrypt$c", null, T0 + 1),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  });

  it("an expired invitation, and one of a person no longer a member, cannot be used", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { tokenHash } = await invited(s, orgId, uniqueEmail());
    await rejectsWith(s.acceptInvitation(tokenHash, "scrypt$x", null, T0 + 7 * DAY), "INVALID_INPUT");
    const removed = await invited(s, orgId, uniqueEmail());
    const owner = await s.createUser({ orgId, email: null, name: "owner", kind: "service" }, T0);
    await s.setMembership(orgId, owner.id, "owner", T0);
    await s.removeMembership(orgId, removed.user.id, T0);
    await rejectsWith(s.acceptInvitation(removed.tokenHash, "scrypt$x", null, T0 + 1), "INVALID_INPUT");
    assert.equal(await s.getPasswordHash(removed.user.id), undefined);
  });

  it("a newer invitation of the same person withdraws the unused older one", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { user, tokenHash: older } = await invited(s, orgId, uniqueEmail());
    const newer = newHash();
    await s.createInvitation({ tokenHash: newer, orgId, userId: user.id, createdBy: user.id, createdAt: T0 + 1, expiresAt: T0 + DAY });
    assert.equal(await s.getInvitation(older), undefined);
    assert.equal((await s.getInvitation(newer))?.createdBy, user.id);
  });

  it("accepting ends the person's sessions everywhere (a reset password signs other browsers out)", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { user, tokenHash } = await invited(s, orgId, uniqueEmail());
    const session = {
      id: `session-${newHash()}`,
      tokenHash: newHash(),
      userId: user.id,
      orgId,
      csrfToken: "csrf",
      createdAt: T0,
      expiresAt: T0 + DAY,
      sourceIp: null,
      userAgent: null,
    };
    await s.createSession(session);
    await s.acceptInvitation(tokenHash, "scrypt$new", null, T0 + 5);
    assert.equal((await s.getSession(session.id))?.endedAt, T0 + 5);
  });

  it("counts failed sign-ins per key in a window, newest first, and forgets them on clear or when old", async () => {
    const s = store();
    const account = `account:${uniqueEmail()}`;
    const address = `address:198.51.100.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 4; i++) await s.recordSignInFailure([account, address], T0 + i * 1000, T0 - DAY);
    assert.deepEqual(await s.listSignInFailures(account, T0 - 1, 10), [T0 + 3000, T0 + 2000, T0 + 1000, T0]);
    assert.deepEqual(await s.listSignInFailures(account, T0 - 1, 2), [T0 + 3000, T0 + 2000], "at most the limit");
    assert.deepEqual(await s.listSignInFailures(account, T0 + 1000, 10), [T0 + 3000, T0 + 2000], "only after `since`");
    await s.clearSignInFailures(account);
    assert.deepEqual(await s.listSignInFailures(account, T0 - 1, 10), []);
    assert.equal((await s.listSignInFailures(address, T0 - 1, 10)).length, 4, "the address's stay");
    await s.recordSignInFailure([account], T0 + DAY, T0 + 2000);
    assert.deepEqual(await s.listSignInFailures(address, 0, 10), [T0 + 3000, T0 + 2000], "older ones were pruned");
  });
}
