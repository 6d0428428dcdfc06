import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { nextAttempt, signWebhook, slackBody } from "./delivery.js";

const policy = { baseDelayMs: 1000, maxDelayMs: 10_000, maxAttempts: 5 };

describe("alert delivery rules", () => {
  it("backs off exponentially with full jitter, capped, and fails after the last attempt", () => {
    assert.deepEqual(nextAttempt(1, policy, 0.999, 0), { retryAt: 999 });
    assert.deepEqual(nextAttempt(3, policy, 0.5, 100), { retryAt: 100 + 2000 });
    assert.deepEqual(nextAttempt(4, policy, 0, 100), { retryAt: 100 }, "full jitter may retry at once");
    assert.deepEqual(nextAttempt(4, { ...policy, maxAttempts: 50 }, 0.999_999, 0), { retryAt: 8000 - 1 });
    assert.deepEqual(nextAttempt(40, { ...policy, maxAttempts: 50 }, 0.5, 0), { retryAt: 5000 }, "capped at maxDelayMs");
    assert.equal(nextAttempt(5, policy, 0.5, 0), "failed");
  });

  it("signs '<timestamp>.<body>' with HMAC-SHA256", () => {
    const expected = createHmac("sha256", "secret").update('1700000000.{"a":1}').digest("hex");
    assert.equal(signWebhook("secret", 1_700_000_000, '{"a":1}'), `sha256=${expected}`);
  });

  it("writes a Slack body with the text and one section", () => {
    const event = {
      id: 1,
      ruleId: 2,
      ruleName: "r",
      runId: 3,
      runName: "run",
      projectName: "p",
      kind: "status",
      title: "r: run",
      body: "ended",
      level: "ERROR",
      createdAt: 0,
    };
    const body = JSON.parse(
      slackBody(event, { id: 3, name: "run", displayId: "P-3", projectName: "p", url: "https://x/projects/p/runs/3" }),
    );
    assert.equal(body.text, "[ERROR] r: run (<https://x/projects/p/runs/3|p/P-3>)\nended");
    assert.deepEqual(body.blocks, [{ type: "section", text: { type: "mrkdwn", text: body.text } }]);
  });
});
