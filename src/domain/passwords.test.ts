import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertPasswordAcceptable, hashPassword, parseHash, PASSWORD_MIN_LENGTH, verifyPassword } from "./passwords.js";

describe("passwords", () => {
  it("hashes with scrypt, its parameters and a salt of its own in the stored string", async () => {
    const stored = await hashPassword("correct horse battery");
    assert.match(stored, /^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    const again = await hashPassword("correct horse battery");
    assert.notEqual(stored, again, "a new salt each time");
    assert.notEqual(parseHash(stored)!.salt.toString("hex"), parseHash(again)!.salt.toString("hex"));
  });

  it("verifies the right password and refuses others", async () => {
    const stored = await hashPassword("correct horse battery");
    assert.equal(await verifyPassword("correct horse battery", stored), true);
    assert.equal(await verifyPassword("correct horse batterY", stored), false);
    assert.equal(await verifyPassword("", stored), false);
  });

  it("verifies hashes made with other parameters (they are read from the stored string)", async () => {
    const stored = await hashPassword("another password", { N: 1024, r: 8, p: 1 });
    assert.match(stored, /^scrypt\$N=1024,r=8,p=1\$/);
    assert.equal(await verifyPassword("another password", stored), true);
  });

  it("answers false, after hashing all the same, without a stored hash or with one it did not make", async () => {
    for (const stored of [undefined, null, "", "plain", "scrypt$N=3,r=8,p=1$aaaa$bbbb", "scrypt$N=1073741824,r=8,p=1$aaaa$bbbb"]) {
      assert.equal(await verifyPassword("whatever password", stored), false, String(stored));
    }
  });

  it("takes about as long for an unknown account as for a wrong password", async () => {
    const stored = await hashPassword("correct horse battery");
    const time = async (work: () => Promise<unknown>) => {
      const start = performance.now();
      for (let i = 0; i < 3; i++) await work();
      return performance.now() - start;
    };
    const wrong = await time(() => verifyPassword("wrong password!", stored));
    const unknown = await time(() => verifyPassword("wrong password!", undefined));
    assert.ok(unknown > wrong / 3 && unknown < wrong * 3, `unknown ${unknown} ms, wrong ${wrong} ms`);
  });

  it(`needs at least ${PASSWORD_MIN_LENGTH} characters (counted as characters, not bytes)`, () => {
    assert.throws(() => assertPasswordAcceptable("short"), /at least 10 characters/);
    assert.throws(() => assertPasswordAcceptable("ünïcödé12"), /at least 10/);
    assertPasswordAcceptable("ünïcödé123");
    assert.throws(() => assertPasswordAcceptable("x".repeat(1025)), /at most 1024/);
  });
});
