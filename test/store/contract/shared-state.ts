import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { it } from "node:test";
import type { SharedStateStore } from "../../../src/store/store.js";
import { T0, type StoreOpener } from "./backends.js";

/** SharedStateStore: the signing secret and leases, what several processes on one store share. Opens empty stores of its own. */
export function sharedStateContract(backend: StoreOpener<SharedStateStore>): void {
  it("stores the first signing secret offered and gives it to every later caller", async () => {
    const { store, destroy } = await backend.open();
    try {
      const first = randomBytes(32);
      assert.deepEqual(Buffer.from(await store.getOrCreateSigningSecret(first, T0)), first);
      assert.deepEqual(Buffer.from(await store.getOrCreateSigningSecret(randomBytes(32), T0 + 1)), first);
    } finally {
      await destroy();
    }
  });

  it("gives callers racing on an empty store one secret", async () => {
    const { store, destroy } = await backend.open();
    try {
      const candidates = Array.from({ length: 16 }, () => randomBytes(32));
      const secrets = await Promise.all(candidates.map((candidate) => store.getOrCreateSigningSecret(candidate, T0)));
      assert.equal(new Set(secrets.map((secret) => Buffer.from(secret).toString("hex"))).size, 1);
      assert.ok(
        candidates.some((candidate) => candidate.equals(secrets[0]!)),
        "the secret is one of the candidates",
      );
    } finally {
      await destroy();
    }
  });

  it("leases: one holder at a time, renewed by the holder, taken over once expired", async () => {
    const { store, destroy } = await backend.open();
    try {
      const ttl = 30_000;
      assert.equal(await store.tryAcquireLease("sweeper", "a", T0, ttl), true);
      assert.equal(await store.tryAcquireLease("sweeper", "b", T0 + 1, ttl), false, "held by a");
      assert.equal(await store.tryAcquireLease("other", "b", T0 + 1, ttl), true, "leases are independent by name");
      assert.equal(await store.tryAcquireLease("sweeper", "a", T0 + 20_000, ttl), true, "a renews: now until T0 + 50 s");
      assert.equal(await store.tryAcquireLease("sweeper", "b", T0 + 49_999, ttl), false, "still a's after its first term");
      assert.equal(await store.tryAcquireLease("sweeper", "b", T0 + 50_000, ttl), true, "expired: b takes over");
      assert.equal(await store.tryAcquireLease("sweeper", "a", T0 + 50_001, ttl), false, "a lost it");
    } finally {
      await destroy();
    }
  });

  it("releasing a lease frees it at once, but only for its holder", async () => {
    const { store, destroy } = await backend.open();
    try {
      assert.equal(await store.tryAcquireLease("sweeper", "a", T0, 60_000), true);
      await store.releaseLease("sweeper", "b");
      assert.equal(await store.tryAcquireLease("sweeper", "b", T0 + 1, 60_000), false, "b cannot release a's lease");
      await store.releaseLease("sweeper", "a");
      assert.equal(await store.tryAcquireLease("sweeper", "b", T0 + 2, 60_000), true);
    } finally {
      await destroy();
    }
  });

  it("gives a free lease to exactly one of many racing holders", async () => {
    const { store, destroy } = await backend.open();
    try {
      const holders = Array.from({ length: 16 }, (_, i) => `holder-${i}`);
      const got = await Promise.all(holders.map((holder) => store.tryAcquireLease("race", holder, T0, 60_000)));
      assert.equal(got.filter(Boolean).length, 1);
    } finally {
      await destroy();
    }
  });
}
