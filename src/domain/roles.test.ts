import assert from "node:assert/strict";
import { test } from "node:test";
import { DomainError } from "./errors.js";
import { assertOwnerRemains, assertRole, defaultRoleOf, keyRole, lowerRole, newKeyCap, parseRole, roleAtLeast } from "./roles.js";

test("roles are ordered viewer < member < admin < owner", () => {
  assert.equal(roleAtLeast("owner", "admin"), true);
  assert.equal(roleAtLeast("member", "member"), true);
  assert.equal(roleAtLeast("viewer", "member"), false);
  assert.equal(roleAtLeast("admin", "owner"), false);
  assert.equal(lowerRole("owner", "viewer"), "viewer");
  assert.equal(lowerRole("member", "admin"), "member");
});

test("parseRole refuses anything but the four names, including Object's own keys", () => {
  assert.equal(parseRole("admin"), "admin");
  for (const bad of ["Admin", "constructor", "toString", "", 3, null])
    assert.throws(
      () => parseRole(bad),
      (e: unknown) => e instanceof DomainError && e.code === "INVALID_INPUT",
    );
});

test("a route without a role of its own needs viewer to read and member to write", () => {
  assert.equal(defaultRoleOf("GET"), "viewer");
  assert.equal(defaultRoleOf("HEAD"), "viewer");
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) assert.equal(defaultRoleOf(method), "member");
});

test("assertRole names the missing role", () => {
  assert.throws(
    () => assertRole("viewer", "member"),
    (e: unknown) =>
      e instanceof DomainError && e.code === "FORBIDDEN" && /requires the role 'member' \(your role: 'viewer'\)/.test(e.message),
  );
  assertRole("owner", "admin");
});

test("a key acts with the lower of its cap and its owner's role, and not at all once the owner left", () => {
  assert.equal(keyRole(null, "admin"), "admin");
  assert.equal(keyRole("viewer", "owner"), "viewer");
  assert.equal(keyRole("owner", "member"), "member");
  assert.equal(keyRole("owner", null), undefined);
});

test("the last owner can be neither removed nor demoted", () => {
  assert.throws(
    () => assertOwnerRemains(1, true),
    (e: unknown) => e instanceof DomainError && e.code === "CONFLICT",
  );
  assertOwnerRemains(2, true);
  assertOwnerRemains(1, false);
});

test("a new key's role is at most its owner's and the caller's; without one it follows its owner, or the caller's lower role", () => {
  assert.equal(newKeyCap(null, "admin", "admin"), null);
  assert.equal(newKeyCap("viewer", "admin", "admin"), "viewer");
  assert.equal(newKeyCap("admin", "admin", "admin"), "admin");
  // A read-only key of an admin makes read-only keys only.
  assert.equal(newKeyCap(null, "viewer", "admin"), "viewer");
  for (const [requested, ceiling, owner] of [
    ["admin", "member", "member"],
    ["member", "viewer", "admin"],
    ["owner", "owner", "admin"],
  ] as const)
    assert.throws(
      () => newKeyCap(requested, ceiling, owner),
      (e: unknown) => e instanceof DomainError && e.code === "FORBIDDEN" && /at most its owner's/.test(e.message),
    );
});
