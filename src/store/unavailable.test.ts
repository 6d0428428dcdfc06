import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lowDiskSpace, storeUnavailability } from "./unavailable.js";

describe("storeUnavailability", () => {
  it("reads a lock held elsewhere as busy and a full disk as full, by error code", () => {
    for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED", "SQLITE_LOCKED_SHAREDCACHE"])
      assert.equal(storeUnavailability({ code })?.retryAfterSeconds, 1, code);
    for (const code of ["SQLITE_FULL", "ENOSPC", "EDQUOT"]) assert.equal(storeUnavailability({ code })?.retryAfterSeconds, 60, code);
  });

  it("reads PostgreSQL's lock, deadlock, connection-limit, full-disk and connection errors as states that pass", () => {
    for (const code of ["55P03", "40P01", "53300"]) assert.equal(storeUnavailability({ code })?.retryAfterSeconds, 1, code);
    assert.equal(storeUnavailability({ code: "53100" })?.retryAfterSeconds, 60);
    for (const code of ["08006", "08001", "57P01", "57P03", "ECONNREFUSED", "ECONNRESET"])
      assert.match(storeUnavailability({ code })!.message, /store unreachable/, code);
    for (const code of ["23505", "22P02", "42P01", "57000"]) assert.equal(storeUnavailability({ code }), undefined, code);
  });

  it("reads a statement cancelled by statement_timeout, and node-postgres's code-less connection errors, as states that pass", () => {
    assert.match(storeUnavailability({ code: "57014" })!.message, /took longer than the server allows/);
    for (const message of ["Connection terminated unexpectedly", "Connection terminated due to connection timeout"])
      assert.match(storeUnavailability(new Error(message))!.message, /store unreachable/, message);
    assert.match(storeUnavailability(new Error("timeout exceeded when trying to connect"))!.message, /no database connection/);
    assert.equal(storeUnavailability(new Error("Connection terminated")), undefined, "a pool being closed on purpose");
  });

  it("leaves every other error alone", () => {
    for (const error of [new Error("x"), { code: "SQLITE_CONSTRAINT" }, { code: "SQLITE_BUSYNESS" }, { code: 5 }, null, "ENOSPC"])
      assert.equal(storeUnavailability(error), undefined, JSON.stringify(error));
  });
});

describe("lowDiskSpace", () => {
  it("fails below the reserve only", () => {
    assert.equal(lowDiskSpace(1024, 1024), undefined);
    assert.match(lowDiskSpace(1023, 1024)!.message, /1023 bytes free/);
  });
});
