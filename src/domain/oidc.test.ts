import assert from "node:assert/strict";
import { test } from "node:test";
import {
  DEFAULT_RETURN_TO,
  decideSignIn,
  emailDomain,
  isLoopbackHost,
  parseAllowedDomains,
  safeReturnTo,
  SsoRefusal,
  verifiedIdentity,
  type SignInFacts,
} from "./oidc.js";

test("safeReturnTo keeps paths of this server and nothing else", () => {
  for (const path of ["/projects", "/projects/mnist/runs/3?tab=logs#x", "/models/a%2Fb", "/signin"]) assert.equal(safeReturnTo(path), path);
  for (const bad of [
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "\\\\evil.example",
    "javascript:alert(1)",
    "projects",
    "",
    "/projects\n/x",
    "/\u0000",
    "/api/runs/projects",
    "/api",
    `/${"a".repeat(3000)}`,
    undefined,
    42,
  ])
    assert.equal(safeReturnTo(bad), DEFAULT_RETURN_TO, JSON.stringify(bad));
});

test("allowed domains are lowercased, deduplicated and must be domain names", () => {
  assert.deepEqual(parseAllowedDomains(""), []);
  assert.deepEqual(parseAllowedDomains(" Example.com, lab.example.org ,example.com,"), ["example.com", "lab.example.org"]);
  for (const bad of ["example", "@example.com", "*.example.com", "exa mple.com", "-x.com", "x..com"])
    assert.throws(() => parseAllowedDomains(bad), /not a domain name/, bad);
});

test("emailDomain and isLoopbackHost", () => {
  assert.equal(emailDomain("Ada@Lab.Example.COM"), "lab.example.com");
  assert.equal(emailDomain("a@b@example.com"), "example.com");
  for (const bad of ["ada", "@example.com", "ada@"]) assert.equal(emailDomain(bad), undefined);
  for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"]) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ["example.com", "10.0.0.1", "localhost.example.com", "128.0.0.1"]) assert.equal(isLoopbackHost(host), false, host);
});

const refusal = (code: string) => (error: unknown) => error instanceof SsoRefusal && error.code === code;

test("verifiedIdentity needs an email and email_verified exactly true", () => {
  assert.deepEqual(verifiedIdentity({ email: " Ada@Example.com ", email_verified: true, name: " Ada " }), {
    email: "ada@example.com",
    displayName: "Ada",
  });
  assert.deepEqual(verifiedIdentity({ email: "ada@example.com", email_verified: true }), {
    email: "ada@example.com",
    displayName: "ada@example.com",
  });
  for (const verified of [false, "true", 1, undefined, null]) {
    assert.throws(() => verifiedIdentity({ email: "ada@example.com", email_verified: verified }), refusal("sso_email_unverified"));
  }
  for (const email of [undefined, "", "ada", 7, ["ada@example.com"]]) {
    assert.throws(() => verifiedIdentity({ email, email_verified: true }), refusal("sso_email_missing"));
  }
});

test("decideSignIn: members sign in, the configured organization first; allowed domains join; others are refused", () => {
  const organization = { id: "org-default", slug: "default" };
  const facts = (overrides: Partial<SignInFacts>): SignInFacts => ({
    identity: { email: "ada@example.com", displayName: "Ada" },
    memberships: [],
    organization,
    allowedDomains: [],
    defaultRole: "viewer",
    ...overrides,
  });
  const other = { orgId: "org-other", orgSlug: "other" };
  const own = { orgId: "org-default", orgSlug: "default" };
  assert.deepEqual(decideSignIn(facts({ memberships: [other, own] })), { kind: "session", orgId: "org-default" });
  assert.deepEqual(decideSignIn(facts({ memberships: [other] })), { kind: "session", orgId: "org-other" });
  assert.deepEqual(decideSignIn(facts({ memberships: [other], organization: undefined })), { kind: "session", orgId: "org-other" });
  assert.deepEqual(decideSignIn(facts({ allowedDomains: ["example.com"], defaultRole: "member" })), {
    kind: "join",
    orgId: "org-default",
    role: "member",
  });
  assert.deepEqual(decideSignIn(facts({ memberships: [other], allowedDomains: ["example.com"] })), {
    kind: "join",
    orgId: "org-default",
    role: "viewer",
  });
  // A subdomain is not its parent, nor the reverse.
  assert.throws(
    () => decideSignIn(facts({ identity: { email: "ada@lab.example.com", displayName: "Ada" }, allowedDomains: ["example.com"] })),
    refusal("sso_not_member"),
  );
  assert.throws(() => decideSignIn(facts({ allowedDomains: ["lab.example.com"] })), refusal("sso_not_member"));
  assert.throws(() => decideSignIn(facts({ allowedDomains: ["example.com"], organization: undefined })), refusal("sso_not_member"));
  assert.throws(() => decideSignIn(facts({})), refusal("sso_not_member"));
});
