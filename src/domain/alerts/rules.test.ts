import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "../errors.js";
import { alertName, displayedUrl, normalizeCondition } from "./rules.js";

const invalid = (error: unknown) => error instanceof DomainError && error.code === "INVALID_INPUT";

describe("alert rules as stored", () => {
  it("fills defaults in and keeps only the fields of the condition's type", () => {
    assert.deepEqual(normalizeCondition({ type: "threshold", metric: "loss", op: "above", value: 2 }), {
      type: "threshold",
      metric: "loss",
      op: "above",
      value: 2,
      consecutive: 1,
    });
    assert.deepEqual(normalizeCondition({ type: "client_alert" }), { type: "client_alert", minLevel: "INFO" });
    assert.deepEqual(normalizeCondition({ type: "status", statuses: ["FAILED", "FAILED", "CANCELLED"] }), {
      type: "status",
      statuses: ["FAILED", "CANCELLED"],
    });
    const extra = { type: "non_finite", metric: "*", op: "above" } as unknown as Parameters<typeof normalizeCondition>[0];
    assert.deepEqual(normalizeCondition(extra), { type: "non_finite", metric: "*" });
  });

  it("refuses what the schema cannot say", () => {
    assert.throws(() => normalizeCondition({ type: "threshold", metric: " ", op: "above", value: 1 }), invalid);
    assert.throws(() => normalizeCondition({ type: "threshold", metric: "m", op: "above", value: Number.NaN }), invalid);
    assert.throws(() => normalizeCondition({ type: "stalled", afterSeconds: 9.5 }), invalid);
    assert.throws(() => normalizeCondition({ type: "status", statuses: [] }), invalid);
    assert.throws(() => alertName("   "), invalid);
    assert.equal(alertName("  ops  "), "ops");
  });

  it("lists a Slack URL without its token", () => {
    assert.equal(displayedUrl("slack", "https://hooks.slack.com/services/T1/B2/secret"), "https://hooks.slack.com/services/T1/B2/…");
    assert.equal(displayedUrl("webhook", "https://x.example/a/b"), "https://x.example/a/b");
  });
});
