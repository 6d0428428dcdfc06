import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AUDIT_ACTIONS,
  CLI_ACTOR,
  MAX_AUDIT_DETAILS_BYTES,
  MAX_AUDIT_TEXT,
  actionsMatching,
  actorLabel,
  auditDetailsText,
  auditEntry,
} from "./audit.js";

describe("audit entries", () => {
  it("shape an event: actor, target and address as given, details as JSON text", () => {
    const entry = auditEntry(
      {
        orgId: "o",
        actor: { userId: "u", apiKeyId: "k", label: "ada@example.com" },
        action: "runs.delete",
        target: { type: "run", id: "7" },
        sourceIp: "::1",
        details: { displayId: "P-7" },
      },
      42,
    );
    assert.deepEqual(entry, {
      orgId: "o",
      at: 42,
      actorUserId: "u",
      actorApiKeyId: "k",
      actorLabel: "ada@example.com",
      sourceIp: "::1",
      action: "runs.delete",
      targetType: "run",
      targetId: "7",
      details: '{"displayId":"P-7"}',
    });
    const bare = auditEntry({ orgId: "o", actor: CLI_ACTOR, action: "key.create", target: null, sourceIp: null }, 1);
    assert.equal(bare.actorLabel, "cli");
    assert.equal(bare.targetType, null);
    assert.equal(bare.details, null);
  });

  it("bound every text: labels and target IDs, addresses, details", () => {
    const long = "x".repeat(10_000);
    const entry = auditEntry(
      {
        orgId: "o",
        actor: { userId: null, apiKeyId: null, label: long },
        action: "sign_in_failed",
        target: { type: "user", id: long },
        sourceIp: long,
      },
      1,
    );
    assert.equal(entry.actorLabel.length, MAX_AUDIT_TEXT);
    assert.equal(entry.targetId!.length, MAX_AUDIT_TEXT);
    assert.equal(entry.sourceIp!.length, 64);
  });

  it("cut details too large: long arrays and strings first, else only the mark", () => {
    assert.equal(auditDetailsText({}), null);
    assert.equal(auditDetailsText(undefined), null);
    const ids = Array.from({ length: 5000 }, (_, i) => i);
    const cut = JSON.parse(auditDetailsText({ runIds: ids, note: "y".repeat(9000), n: 3 })!);
    assert.deepEqual(cut.runIds, ids.slice(0, 20));
    assert.equal(cut.note.length, 200);
    assert.equal(cut.n, 3);
    assert.equal(cut.truncated, true);
    const many: Record<string, string> = {};
    for (let i = 0; i < 100; i++) many[`k${i}`] = "z".repeat(150);
    const text = auditDetailsText(many)!;
    assert.ok(Buffer.byteLength(text) <= MAX_AUDIT_DETAILS_BYTES);
    assert.deepEqual(JSON.parse(text), { truncated: true });
  });

  it("label an actor: a person's email, a service account's name, else the user's name or ID", () => {
    assert.equal(actorLabel({ id: "u", name: "Ada", email: "ada@example.com", kind: "person" }), "ada@example.com");
    assert.equal(actorLabel({ id: "u", name: "ci-bot", email: null, kind: "service" }), "ci-bot");
    assert.equal(actorLabel({ id: "u", name: "admin" }), "admin");
    assert.equal(actorLabel({ id: "u", name: "" }), "u");
  });

  it("match a filter to one action or every action under a prefix; refuse anything else", () => {
    assert.deepEqual(actionsMatching("runs.delete"), ["runs.delete"]);
    assert.deepEqual(actionsMatching("key."), ["key.create", "key.revoke"]);
    assert.deepEqual(actionsMatching("alert_rule."), ["alert_rule.create", "alert_rule.update", "alert_rule.delete"]);
    for (const filter of ["runs", "key", ".", "nope.", "constructor", "__proto__", ""]) {
      assert.throws(() => actionsMatching(filter), /action/, filter);
    }
    assert.ok(AUDIT_ACTIONS.every((action) => /^[a-z_]+(\.[a-z_]+)?$/.test(action)));
  });
});
