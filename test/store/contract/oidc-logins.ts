import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { it } from "node:test";
import type { OidcLoginStore, PendingOidcLogin } from "../../../src/store/store.js";
import { T0, WRITERS } from "./backends.js";

function pending(overrides: Partial<PendingOidcLogin> = {}): PendingOidcLogin {
  return {
    stateHash: randomBytes(32).toString("hex"),
    nonce: randomBytes(16).toString("base64url"),
    codeVerifier: randomBytes(32).toString("base64url"),
    redirectUri: "https://stepwise.example.com/api/auth/oidc/callback",
    returnTo: "/projects/mnist?tab=charts",
    createdAt: T0,
    expiresAt: T0 + 600_000,
    ...overrides,
  };
}

/** OidcLoginStore: pending single sign-ins, each taken exactly once by whichever process the callback reaches. */
export function oidcLoginContract(store: () => OidcLoginStore): void {
  it("returns a pending sign-in as stored, once", async () => {
    const login = pending();
    await store().createOidcLogin(login);
    assert.deepEqual(await store().takeOidcLogin(login.stateHash, T0 + 1000), login);
    assert.equal(await store().takeOidcLogin(login.stateHash, T0 + 2000), undefined, "a state is used once");
    assert.equal(await store().takeOidcLogin(randomBytes(32).toString("hex"), T0), undefined, "an unknown state");
  });

  it("refuses a pending sign-in at its expiry, and it is gone after", async () => {
    const login = pending();
    await store().createOidcLogin(login);
    assert.equal(await store().takeOidcLogin(login.stateHash, login.expiresAt), undefined, "expired at expiresAt");
    assert.equal(await store().takeOidcLogin(login.stateHash, T0), undefined, "deleted by the refused take");
  });

  it("deletes the expired sign-ins when a new one is stored, and leaves the live ones", async () => {
    const old = pending({ createdAt: T0, expiresAt: T0 + 1000 });
    const live = pending({ createdAt: T0, expiresAt: T0 + 60_000 });
    await store().createOidcLogin(old);
    await store().createOidcLogin(live);
    await store().createOidcLogin(pending({ createdAt: T0 + 1000, expiresAt: T0 + 601_000 }));
    // Read at a time before old's expiry: only the prune can have removed it.
    assert.equal(await store().takeOidcLogin(old.stateHash, T0 + 500), undefined, "pruned");
    assert.deepEqual(await store().takeOidcLogin(live.stateHash, T0 + 500), live, "kept");
  });

  it(`gives a state to exactly one of ${WRITERS} callers taking it at once`, async () => {
    const login = pending();
    await store().createOidcLogin(login);
    const taken = await Promise.all(Array.from({ length: WRITERS }, () => store().takeOidcLogin(login.stateHash, T0 + 1)));
    assert.equal(taken.filter((found) => found !== undefined).length, 1);
  });
}
