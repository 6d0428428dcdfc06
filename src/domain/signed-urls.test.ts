import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import { checkMintingKey, sign, verify } from "./signed-urls.js";

const secret = Buffer.alloc(32, 7);
const forbidden = (message: RegExp) => (error: unknown) =>
  error instanceof DomainError && error.code === "FORBIDDEN" && message.test(error.message);
const query = (signature: { expires: number | string; key: string; sig: string }) => ({ ...signature, expires: String(signature.expires) });

describe("signed URLs", () => {
  it("accepts its own signature until the expiry, inclusive, and names the minting key", () => {
    const signature = sign(secret, "upload", 42, 1_000, "key-1");
    assert.equal(verify(secret, "upload", 42, query(signature), 1_000), "key-1");
    assert.throws(() => verify(secret, "upload", 42, query(signature), 1_001), forbidden(/expired/));
  });

  it("binds the signature to the action, the file, the expiry, the key and the secret", () => {
    const signature = sign(secret, "download", 42, 5_000, "key-1");
    assert.throws(() => verify(secret, "upload", 42, query(signature), 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 43, query(signature), 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 42, query({ ...signature, expires: 5_001 }), 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 42, query({ ...signature, key: "key-2" }), 0), forbidden(/does not match/));
    assert.throws(() => verify(Buffer.alloc(32, 8), "download", 42, query(signature), 0), forbidden(/does not match/));
    assert.throws(
      () => verify(secret, "download", 42, query({ ...signature, sig: signature.sig.slice(0, -2) }), 0),
      forbidden(/does not match/),
    );
  });

  it("accepts only the canonical spelling: another last character that decodes to the same bytes is refused", () => {
    const signature = sign(secret, "download", 42, 5_000, "key-1");
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(signature.sig.at(-1)!);
    // 32 bytes are 43 base64url characters; the last one carries 4 bits, so 4 spellings decode alike.
    const aliases = [0, 1, 2, 3].map((low) => alphabet[(last & ~3) | low]!).filter((char) => char !== signature.sig.at(-1));
    assert.equal(aliases.length, 3);
    for (const alias of aliases) {
      const sig = signature.sig.slice(0, -1) + alias;
      assert.deepEqual(Buffer.from(sig, "base64url"), Buffer.from(signature.sig, "base64url"), "the alias decodes to the same bytes");
      assert.throws(() => verify(secret, "download", 42, query({ ...signature, sig }), 0), forbidden(/does not match/));
    }
    for (const sig of [`${signature.sig}=`, signature.sig.replaceAll("-", "+").replaceAll("_", "/"), ` ${signature.sig}`]) {
      if (sig === signature.sig) continue;
      assert.throws(() => verify(secret, "download", 42, query({ ...signature, sig }), 0), forbidden(/does not match/), sig);
    }
  });

  it("refuses a missing or malformed expiry, key or signature", () => {
    const { sig } = sign(secret, "upload", 1, 10, "k");
    for (const [expires, key, signature] of [
      [undefined, "k", sig],
      ["10", "k", undefined],
      ["10", undefined, sig],
      ["1e3", "k", sig],
      ["-5", "k", sig],
      ["010", "k", sig],
      ["0010", "k", sig],
      [["10"], "k", sig],
    ] as const) {
      assert.throws(() => verify(secret, "upload", 1, { expires, key, sig: signature }, 0), forbidden(/missing|does not match/));
    }
  });

  it("works only while the minting key is neither revoked nor expired", () => {
    assert.doesNotThrow(() => checkMintingKey({ expiresAt: null, revokedAt: null }, 5));
    assert.doesNotThrow(() => checkMintingKey({ expiresAt: 6, revokedAt: null }, 5));
    assert.throws(() => checkMintingKey({ expiresAt: null, revokedAt: 1 }, 5), forbidden(/revoked/));
    assert.throws(() => checkMintingKey(undefined, 5), forbidden(/revoked/));
    assert.throws(() => checkMintingKey({ expiresAt: 5, revokedAt: null }, 5), forbidden(/expired/));
  });
});
