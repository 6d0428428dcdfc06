import assert from "node:assert/strict";
import { it } from "node:test";
import { DomainError } from "./errors.js";
import { decodePageToken, encodePageToken, pageTokenCount } from "./page-token.js";

const refused = (fn: () => unknown, message: string) =>
  assert.throws(fn, (error: unknown) => error instanceof DomainError && error.code === "INVALID_INPUT" && error.message === message);

it("round-trips a position and refuses what is not a token", () => {
  assert.deepEqual(decodePageToken(encodePageToken({ after: [1, "a", null] })), { after: [1, "a", null] });
  assert.equal(pageTokenCount(encodePageToken({ offset: 40 }), "offset"), 40);
  refused(() => decodePageToken("!!!"), "Invalid page token, could not base64-decode");
  refused(() => decodePageToken(Buffer.from("null").toString("base64")), "Invalid page token, could not base64-decode");
  assert.deepEqual(decodePageToken(Buffer.from("5").toString("base64")), {});
  for (const offset of [-1, 1.5, "3", 2 ** 53]) refused(() => pageTokenCount(encodePageToken({ offset }), "offset"), "Invalid page token");
  refused(() => pageTokenCount(encodePageToken({ step: 1 }), "offset"), "Invalid page token");
});
