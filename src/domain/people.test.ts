import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertInvitationUsable, assertMayManage, invitationUrl, linkMaySetPassword, normalizeEmail, retryAfterSeconds } from "./people.js";

describe("people", () => {
  it("normalizes emails to trimmed lowercase and refuses what is not one", () => {
    assert.equal(normalizeEmail("  Ada@Example.COM "), "ada@example.com");
    for (const bad of ["", "ada", "ada@", "@example.com", "a b@example.com", `${"x".repeat(250)}@example.com`])
      assert.throws(() => normalizeEmail(bad), /not an email address/, bad);
  });

  it("refuses another attempt when the limit's worth of failures is in the window, until the oldest of them leaves it", () => {
    const window = 15 * 60_000;
    const now = 1_000_000_000;
    assert.equal(retryAfterSeconds([now - 1000, now - 2000], 5, window, now), undefined);
    const five = [now - 1000, now - 2000, now - 3000, now - 4000, now - 60_000];
    assert.equal(retryAfterSeconds(five, 5, window, now), 15 * 60 - 60);
    assert.equal(retryAfterSeconds([now, now, now, now, now - window + 10], 5, window, now), 1, "at least a second");
  });

  it("an admin's link sets only the password of a person without one and of no other organization; the operator's always", () => {
    assert.equal(linkMaySetPassword({ createdBy: "admin", hasPassword: false, otherOrganizations: 0 }), true);
    assert.equal(linkMaySetPassword({ createdBy: "admin", hasPassword: true, otherOrganizations: 0 }), false);
    assert.equal(linkMaySetPassword({ createdBy: "admin", hasPassword: false, otherOrganizations: 1 }), false);
    assert.equal(linkMaySetPassword({ createdBy: null, hasPassword: true, otherOrganizations: 3 }), true);
  });

  it("an invitation is usable once, before it expires", () => {
    const fresh = { usedAt: null, expiresAt: 100, createdBy: null, hasPassword: false, otherOrganizations: 0 };
    assertInvitationUsable(fresh, 99);
    assert.throws(() => assertInvitationUsable(fresh, 100), /expired/);
    assert.throws(() => assertInvitationUsable({ ...fresh, usedAt: 50 }, 60), /used already/);
    assert.throws(() => assertInvitationUsable({ ...fresh, createdBy: "a", hasPassword: true }, 60), /can no longer set your password/);
  });

  it("admins manage members; only owners grant, change or remove owners", () => {
    assertMayManage("admin", "member", "viewer");
    assertMayManage("owner", "owner", "member");
    assertMayManage("owner", undefined, "owner");
    assert.throws(() => assertMayManage("member", "viewer", "viewer"), /requires the role 'admin'/);
    assert.throws(() => assertMayManage("admin", undefined, "owner"), /only an owner/);
    assert.throws(() => assertMayManage("admin", "owner", "admin"), /only an owner/);
    assert.throws(() => assertMayManage("admin", "owner", undefined), /only an owner/);
  });

  it("builds the invitation page's link on the public base", () => {
    assert.equal(invitationUrl("https://sw.example/", "tok"), "https://sw.example/invite/tok");
  });
});
