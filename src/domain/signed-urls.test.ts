import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import { sign, verify } from "./signed-urls.js";

const secret = Buffer.alloc(32, 7);
const forbidden = (message: RegExp) => (error: unknown) => error instanceof DomainError && error.code === "FORBIDDEN" && message.test(error.message);

describe("signed URLs", () => {
  it("accepts its own signature until the expiry, inclusive", () => {
    const { expires, sig } = sign(secret, "upload", 42, 1_000);
    assert.doesNotThrow(() => verify(secret, "upload", 42, String(expires), sig, 1_000));
    assert.throws(() => verify(secret, "upload", 42, String(expires), sig, 1_001), forbidden(/expired/));
  });

  it("binds the signature to the action, the file, the expiry and the secret", () => {
    const { expires, sig } = sign(secret, "download", 42, 5_000);
    assert.throws(() => verify(secret, "upload", 42, String(expires), sig, 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 43, String(expires), sig, 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 42, String(expires + 1), sig, 0), forbidden(/does not match/));
    assert.throws(() => verify(Buffer.alloc(32, 8), "download", 42, String(expires), sig, 0), forbidden(/does not match/));
    assert.throws(() => verify(secret, "download", 42, String(expires), sig.slice(0, -2), 0), forbidden(/does not match/));
  });

  it("refuses a missing or malformed expiry or signature", () => {
    const { sig } = sign(secret, "upload", 1, 10);
    for (const [expires, signature] of [[undefined, sig], ["10", undefined], ["1e3", sig], ["-5", sig], [["10"], sig]] as const) {
      assert.throws(() => verify(secret, "upload", 1, expires, signature, 0), forbidden(/missing|does not match/));
    }
  });
});
