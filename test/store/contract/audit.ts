import assert from "node:assert/strict";
import { it } from "node:test";
import type { NewAuditEntry } from "../../../src/domain/audit.js";
import type { AuditQuery } from "../../../src/store/store.js";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, rejectsWith, runInput, T0, WRITERS } from "./backends.js";

const ALL: AuditQuery = {
  actions: null,
  actor: null,
  targetType: null,
  targetId: null,
  since: null,
  until: null,
  beforeId: null,
  limit: 100,
};

function entry(orgId: string, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return {
    orgId,
    at: T0,
    actorUserId: "user-1",
    actorApiKeyId: "key-1",
    actorLabel: "ada@example.com",
    sourceIp: "203.0.113.7",
    action: "runs.delete",
    targetType: "run",
    targetId: "1",
    details: '{"displayId":"PRO-1"}',
    ...overrides,
  };
}

/** AuditStore: the append-only audit log. Fixtures: organizations, and runs for `audited` (the whole Store). */
export function auditContract(store: () => Store): void {
  it("appends entries in order with every field, reads them newest first, and only in their organization", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const first = entry(orgId);
    const second = entry(orgId, {
      at: T0 + 1,
      actorUserId: null,
      actorApiKeyId: null,
      actorLabel: "cli",
      sourceIp: null,
      action: "key.create",
      targetType: "api_key",
      targetId: "k-9",
      details: null,
    });
    await s.appendAuditEntries([first, second]);
    await s.appendAuditEntries([entry(other, { targetId: "2" })]);
    await s.appendAuditEntries([]);
    const listed = await s.listAuditEntries(orgId, ALL);
    assert.equal(listed.length, 2);
    assert.ok(listed[0]!.id > listed[1]!.id, "newest (highest ID) first");
    assert.deepEqual(listed, [
      { ...second, id: listed[0]!.id },
      { ...first, id: listed[1]!.id },
    ]);
    const theirs = await s.listAuditEntries(other, ALL);
    assert.deepEqual(
      theirs.map((e) => e.targetId),
      ["2"],
      "another organization's entries are never listed",
    );
  });

  it("filters by actions, actor (user ID or label), target, time range [since, until), and pages below an ID", async () => {
    const s = store();
    const orgId = await newOrg(s);
    await s.appendAuditEntries([
      entry(orgId, { at: T0, action: "key.create", targetType: "api_key", targetId: "k1" }),
      entry(orgId, { at: T0 + 10, action: "key.revoke", targetType: "api_key", targetId: "k1", actorUserId: "user-2", actorLabel: "bo" }),
      entry(orgId, { at: T0 + 20, action: "runs.delete", targetType: "run", targetId: "7" }),
      entry(orgId, {
        at: T0 + 30,
        action: "project.delete",
        targetType: "project",
        targetId: "vision",
        actorUserId: null,
        actorLabel: "cli",
      }),
    ]);
    const ids = async (query: Partial<AuditQuery>) =>
      (await s.listAuditEntries(orgId, { ...ALL, ...query })).map((e) => `${e.action}@${e.at - T0}`);
    assert.deepEqual(await ids({ actions: ["key.create", "key.revoke"] }), ["key.revoke@10", "key.create@0"]);
    assert.deepEqual(await ids({ actions: ["runs.restore"] }), []);
    assert.deepEqual(await ids({ actor: "user-2" }), ["key.revoke@10"], "by user ID");
    assert.deepEqual(await ids({ actor: "cli" }), ["project.delete@30"], "by label");
    assert.deepEqual(await ids({ actor: "ada@example.com" }), ["runs.delete@20", "key.create@0"]);
    assert.deepEqual(await ids({ targetType: "api_key" }), ["key.revoke@10", "key.create@0"]);
    assert.deepEqual(await ids({ targetType: "api_key", targetId: "k1", actions: ["key.revoke"] }), ["key.revoke@10"]);
    assert.deepEqual(await ids({ targetId: "vision" }), ["project.delete@30"]);
    assert.deepEqual(
      await ids({ since: T0 + 10, until: T0 + 30 }),
      ["runs.delete@20", "key.revoke@10"],
      "since inclusive, until exclusive",
    );
    const page1 = await s.listAuditEntries(orgId, { ...ALL, limit: 3 });
    assert.equal(page1.length, 3);
    const page2 = await s.listAuditEntries(orgId, { ...ALL, limit: 3, beforeId: page1.at(-1)!.id });
    assert.deepEqual(
      [...page1, ...page2].map((e) => e.action),
      ["project.delete", "runs.delete", "key.revoke", "key.create"],
    );
  });

  it("audited: a write and its entries commit together; a write that throws records nothing", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ projectName: "vision" }), ACTOR);
    const { run: fork } = await s.createRun(
      orgId,
      runInput({ projectName: "vision", name: "fork", fork: { runId: run.id, step: 0, inheritConfig: false, inheritTags: false } }),
      ACTOR,
    );
    const made: number[][] = [];
    const deleted = await s.audited("deleteRuns", [orgId, [fork.id], T0 + 1], (ids) => {
      made.push(ids);
      return ids.map((id) => entry(orgId, { targetId: String(id) }));
    });
    assert.deepEqual(deleted, [fork.id], "the method's own result");
    assert.deepEqual(made, [[fork.id]], "entries made of the result");
    // The parent of a live fork: CONFLICT inside the transaction, so neither the delete nor its entry.
    const { run: other } = await s.createRun(orgId, runInput({ projectName: "vision", name: "other" }), ACTOR);
    await s.createRun(
      orgId,
      runInput({ projectName: "vision", name: "fork2", fork: { runId: other.id, step: 0, inheritConfig: false, inheritTags: false } }),
      ACTOR,
    );
    await rejectsWith(
      s.audited("deleteRuns", [orgId, [other.id], T0 + 2], (ids) => ids.map((id) => entry(orgId, { targetId: String(id) }))),
      "CONFLICT",
    );
    // A backend function (not a workflow) audited, and a failing append rolls the write back.
    const project = await s.getProjectByName(orgId, "vision");
    await assert.rejects(
      s.audited("setRetentionPolicy", [orgId, project!.id, { maxAgeDays: 3, excludeTag: null }, T0 + 3], () => [
        entry(orgId, { orgId: "no-such-organization" }),
      ]),
    );
    assert.equal(await s.getRetentionPolicy(orgId, project!.id), undefined, "the write went with its failed entry");
    assert.equal(
      await s.audited("setRetentionPolicy", [orgId, project!.id, { maxAgeDays: 3, excludeTag: null }, T0 + 3], (set) =>
        set ? [entry(orgId, { action: "retention.set", targetType: "project", targetId: "vision" })] : [],
      ),
      true,
    );
    assert.deepEqual(
      (await s.listAuditEntries(orgId, ALL)).map((e) => `${e.action} ${e.targetId}`),
      ["retention.set vision", `runs.delete ${fork.id}`],
    );
    assert.equal((await s.getRun(orgId, other.id))?.id, other.id, "the refused delete left the run");
  });

  it("has no method that changes or removes an entry", () => {
    const methods = Object.keys(store()).filter((name) => /audit/i.test(name));
    assert.deepEqual(methods.sort(), ["appendAuditEntries", "audited", "listAuditEntries"]);
  });

  it(`${WRITERS} writers appending at once: every entry kept, each with its own ID`, async () => {
    const s = store();
    const orgId = await newOrg(s);
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        s.appendAuditEntries([entry(orgId, { targetId: `${i}-a` }), entry(orgId, { targetId: `${i}-b` })]),
      ),
    );
    const listed = await s.listAuditEntries(orgId, { ...ALL, limit: 1000 });
    assert.equal(listed.length, WRITERS * 2);
    assert.equal(new Set(listed.map((e) => e.id)).size, WRITERS * 2);
    for (let i = 0; i < WRITERS; i++) {
      const a = listed.find((e) => e.targetId === `${i}-a`)!;
      const b = listed.find((e) => e.targetId === `${i}-b`)!;
      assert.ok(b.id > a.id, "one call's entries in their order");
    }
  });
}
