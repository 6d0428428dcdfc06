import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { API_KEY_PREFIX, assertKeyUsable, generateApiKey, hashApiKey, parseKeyLifetime } from "./api-keys.js";
import { DomainError } from "./errors.js";

describe("generateApiKey", () => {
  it("makes sw_ keys carrying at least 128 random bits in URL-safe characters", () => {
    const { key } = generateApiKey();
    assert.equal(API_KEY_PREFIX, "sw_");
    assert.match(key, /^sw_[A-Za-z0-9_-]+$/);
    const randomBits = (key.length - API_KEY_PREFIX.length) * 6; // base64url: 6 bits per character
    assert.ok(randomBits >= 128, `${randomBits} bits`);
  });

  it("never repeats a key over many draws", () => {
    const keys = new Set(Array.from({ length: 5000 }, () => generateApiKey().key));
    assert.equal(keys.size, 5000);
  });

  it("returns the SHA-256 hex of the whole key as its hash, and a short display prefix of the key", () => {
    const { key, keyHash, displayPrefix } = generateApiKey();
    assert.equal(keyHash, createHash("sha256").update(key, "utf8").digest("hex"));
    assert.match(keyHash, /^[0-9a-f]{64}$/);
    assert.ok(key.startsWith(displayPrefix) && displayPrefix.startsWith("sw_"));
    assert.ok(displayPrefix.length < key.length / 2, "the prefix must not give the key away");
  });
});

describe("hashApiKey", () => {
  it("is SHA-256 hex, deterministic and different for different keys", () => {
    assert.equal(hashApiKey("sw_abc"), createHash("sha256").update("sw_abc").digest("hex"));
    assert.equal(hashApiKey("sw_abc"), hashApiKey("sw_abc"));
    assert.notEqual(hashApiKey("sw_abc"), hashApiKey("sw_abd"));
  });
});

describe("assertKeyUsable", () => {
  const now = Date.UTC(2026, 0, 1);
  const rejects = (key: { expiresAt: number | null; revokedAt: number | null }, code: string, message: string) =>
    assert.throws(
      () => assertKeyUsable(key, now),
      (error: unknown) => error instanceof DomainError && error.code === code && error.message === message,
    );

  it("accepts keys without expiry or revocation, and keys that expire later", () => {
    assertKeyUsable({ expiresAt: null, revokedAt: null }, now);
    assertKeyUsable({ expiresAt: now + 1, revokedAt: null }, now);
  });

  it("rejects a key at and after its expiry with 'API key has expired'", () => {
    rejects({ expiresAt: now, revokedAt: null }, "EXPIRED_API_KEY", "API key has expired");
    rejects({ expiresAt: now - 1, revokedAt: null }, "EXPIRED_API_KEY", "API key has expired");
  });

  it("rejects a revoked key with 'API key has been revoked', also when it has expired too", () => {
    rejects({ expiresAt: null, revokedAt: now - 5 }, "REVOKED_API_KEY", "API key has been revoked");
    rejects({ expiresAt: now - 1, revokedAt: now - 5 }, "REVOKED_API_KEY", "API key has been revoked");
  });
});

describe("parseKeyLifetime", () => {
  it("takes <n>s|m|h|d, more than 0 and at most 36500d", () => {
    assert.equal(parseKeyLifetime("30d"), 30 * 86_400_000);
    assert.equal(parseKeyLifetime("90s"), 90_000);
    assert.equal(parseKeyLifetime("36500d"), 36_500 * 86_400_000);
    for (const bad of ["0d", "36501d", "999999999999d", "30", "3x", "-1d", "1.5h", " 1d", "1d "])
      assert.throws(() => parseKeyLifetime(bad), /expiresIn/, bad);
  });
});
