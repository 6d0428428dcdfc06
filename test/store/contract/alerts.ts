import assert from "node:assert/strict";
import { it } from "node:test";
import { INITIAL_STATE } from "../../../src/domain/alerts/conditions.js";
import type { AlertStore, NewAlertEvent } from "../../../src/store/alert-store.js";
import type { AccountStore, ProjectStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, rejectsWith, runInput, T0, WRITERS } from "./backends.js";

/** AlertStore: destinations, rules, states, events and the outbox. Fixtures: runs (RunStore) in projects of organizations. */
export function alertContract(store: () => AlertStore & RunStore & ProjectStore & AccountStore): void {
  const hook = (name: string) => ({ name, kind: "webhook" as const, url: "https://hooks.example/x", secret: "s".repeat(43) });
  const nan = { type: "non_finite" as const, metric: "loss" };

  async function fixture() {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ projectName: "vision" }), ACTOR);
    const theirs = await s.createRun(other, runInput({ projectName: "vision" }), ACTOR);
    const destination = await s.createAlertDestination(orgId, hook("hook"), T0);
    const rule = (await s.createAlertRule(
      orgId,
      run.projectId,
      { name: "nan", condition: nan, destinationIds: [destination.id], enabled: true },
      T0,
    ))!;
    const event = (runId = run.id): NewAlertEvent => ({
      orgId,
      projectId: run.projectId,
      runId,
      ruleId: rule.id,
      ruleName: "nan",
      kind: "non_finite",
      title: "t",
      body: "b",
      level: "ERROR",
    });
    return { s, orgId, other, run, theirRun: theirs.run, destination, rule, event };
  }

  /** Takes every due delivery out of the way (other tests' too: claims are across organizations), as failed. */
  async function drain(s: AlertStore) {
    for (const delivery of await s.claimAlertDeliveries(T0 + 1e12, 10_000, 1, "drain")) {
      await s.finishAlertDelivery(delivery.id, "drain", { status: "failed", error: "drained" }, T0);
    }
  }

  it("keeps destinations per organization, names unique in it, and never reads a secret back", async () => {
    const { s, orgId, other, destination } = await fixture();
    assert.deepEqual(destination, { id: destination.id, name: "hook", kind: "webhook", url: "https://hooks.example/x", createdAt: T0 });
    assert.deepEqual(await s.listAlertDestinations(orgId), [destination]);
    await rejectsWith(s.createAlertDestination(orgId, hook("hook"), T0), "CONFLICT");
    assert.ok(await s.createAlertDestination(other, hook("hook"), T0), "another organization may use the name");
    assert.equal(await s.getAlertDestination(other, destination.id), undefined);
    assert.equal(await s.deleteAlertDestination(other, destination.id), false);
    assert.equal(await s.deleteAlertDestination(orgId, destination.id), true);
    assert.deepEqual(await s.listAlertDestinations(orgId), []);
  });

  it("keeps rules per project with the organization's destinations only; a destination deleted leaves its rules", async () => {
    const { s, orgId, other, run, theirRun, destination, rule } = await fixture();
    assert.deepEqual(rule, {
      id: rule.id,
      orgId,
      projectId: run.projectId,
      projectName: "vision",
      name: "nan",
      condition: nan,
      destinationIds: [destination.id],
      enabled: true,
      createdAt: T0,
      updatedAt: T0,
    });
    const theirs = await s.createAlertDestination(other, hook("theirs"), T0);
    const input = { name: "mixed", condition: nan, destinationIds: [destination.id, theirs.id], enabled: false };
    const mixed = (await s.createAlertRule(orgId, run.projectId, input, T0))!;
    assert.deepEqual(mixed.destinationIds, [destination.id], "another organization's destination is left out");
    assert.equal(await s.createAlertRule(other, run.projectId, input, T0), undefined, "nothing in another organization's project");
    assert.deepEqual(
      (await s.listAlertRules(orgId, run.projectId)).map((r) => r.name),
      ["nan", "mixed"],
    );
    assert.deepEqual(
      (await s.listAlertRules(orgId, run.projectId, true)).map((r) => r.name),
      ["nan"],
    );
    assert.deepEqual(await s.listAlertRules(other, run.projectId), []);
    assert.deepEqual(await s.listAlertRules(other, theirRun.projectId), []);
    const updated = await s.updateAlertRule(orgId, mixed.id, { enabled: true, destinationIds: [] }, T0 + 1);
    assert.deepEqual([updated?.enabled, updated?.destinationIds, updated?.updatedAt, updated?.name], [true, [], T0 + 1, "mixed"]);
    assert.equal(await s.updateAlertRule(other, mixed.id, { name: "x" }, T0), undefined);
    assert.equal(await s.deleteAlertRule(other, mixed.id), false);
    assert.equal(await s.deleteAlertRule(orgId, mixed.id), true);
    await s.deleteAlertDestination(orgId, destination.id);
    assert.deepEqual((await s.getAlertRule(orgId, rule.id))?.destinationIds, []);
  });

  it("applies a transition only from the stored state: of many writers firing the same change, one records the event", async () => {
    const { s, orgId, run, rule, event } = await fixture();
    const fire = { ruleId: rule.id, runId: run.id, from: INITIAL_STATE, to: { active: true, streak: 1 }, event: event() };
    const results = await Promise.all(Array.from({ length: WRITERS }, () => s.recordAlertTransitions([fire], T0 + 2)));
    assert.equal(results.filter(([applied]) => applied).length, 1);
    assert.deepEqual(await s.getAlertStates(run.id, [rule.id]), new Map([[rule.id, { active: true, streak: 1 }]]));
    const events = await s.listAlertEvents(orgId, run.projectId, { runId: null, limit: 10, beforeId: null });
    assert.equal(events.length, 1);
    assert.deepEqual(
      events[0]!.deliveries.map((d) => [d.status, d.attempts, d.nextAttemptAt]),
      [["pending", 0, T0 + 2]],
    );
    // Re-armed, then fired again: a second event.
    const rearm = { ruleId: rule.id, runId: run.id, from: { active: true, streak: 1 }, to: INITIAL_STATE };
    assert.deepEqual(await s.recordAlertTransitions([rearm, { ...fire }], T0 + 3), [true, true]);
    assert.equal((await s.listAlertEvents(orgId, run.projectId, { runId: run.id, limit: 10, beforeId: null })).length, 2);
    // A new condition starts every run's state again.
    await s.updateAlertRule(orgId, rule.id, { condition: { type: "non_finite", metric: "*" } }, T0 + 4);
    assert.deepEqual(await s.getAlertStates(run.id, [rule.id]), new Map());
  });

  it("pages events newest first with their deliveries, only the organization's", async () => {
    const { s, orgId, other, run, event } = await fixture();
    for (let i = 0; i < 3; i++) await s.recordAlertEvent({ ...event(), title: `e${i}` }, [], T0 + i);
    const first = await s.listAlertEvents(orgId, run.projectId, { runId: null, limit: 2, beforeId: null });
    assert.deepEqual(
      first.map((e) => e.title),
      ["e2", "e1"],
    );
    const next = await s.listAlertEvents(orgId, run.projectId, { runId: null, limit: 2, beforeId: first[1]!.id });
    assert.deepEqual(
      next.map((e) => e.title),
      ["e0"],
    );
    assert.deepEqual(await s.listAlertEvents(other, run.projectId, { runId: null, limit: 10, beforeId: null }), []);
    assert.deepEqual(await s.listAlertDeliveries(other, { status: null, limit: 10, beforeSeq: null }), []);
  });

  it("claims each due delivery once however many workers claim at once; a claim expires; an outcome needs the claim", async () => {
    const { s, orgId, destination, event } = await fixture();
    await drain(s);
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) for (const id of await s.recordAlertEvent(event(), [destination.id], T0 + 10)) ids.add(id);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => s.claimAlertDeliveries(T0 + 20, 10, 60_000, `worker-${i}`)));
    const claimed = claims.flat().map((delivery) => delivery.id);
    assert.equal(claimed.length, 40, "every due delivery claimed");
    assert.equal(new Set(claimed).size, 40, "none by two workers");
    assert.deepEqual(new Set(claimed), ids);
    assert.deepEqual(await s.claimAlertDeliveries(T0 + 30, 100, 60_000, "late"), [], "claimed ones are not due again");
    const [one] = claims.find((claim) => claim.length > 0)!;
    assert.deepEqual(
      [one!.destination.secret, one!.destination.kind, one!.event.title, one!.run?.projectName],
      ["s".repeat(43), "webhook", "t", "vision"],
    );
    // After the claim expires, another worker takes them; the first one's outcome is refused.
    const retaken = await s.claimAlertDeliveries(T0 + 20 + 60_000, 100, 60_000, "retaker");
    assert.equal(retaken.length, 40);
    const owner = claims.findIndex((claim) => claim.some((d) => d.id === one!.id));
    assert.equal(await s.finishAlertDelivery(one!.id, `worker-${owner}`, { status: "delivered" }, T0 + 21), false);
    assert.equal(
      await s.finishAlertDelivery(one!.id, "retaker", { status: "pending", retryAt: T0 + 500_000, error: "HTTP 500" }, T0 + 21),
      true,
    );
    assert.equal(
      await s.finishAlertDelivery(one!.id, "retaker", { status: "delivered" }, T0 + 22),
      false,
      "the claim ended with the outcome",
    );
    const [pending] = (await s.listAlertDeliveries(orgId, { status: "pending", limit: 100, beforeSeq: null })).filter(
      (d) => d.id === one!.id,
    );
    assert.deepEqual([pending?.attempts, pending?.lastError, pending?.nextAttemptAt], [1, "HTTP 500", T0 + 500_000]);
    for (const d of retaken)
      if (d.id !== one!.id) await s.finishAlertDelivery(d.id, "retaker", { status: "failed", error: "gone" }, T0 + 23);
    const failed = await s.listAlertDeliveries(orgId, { status: "failed", limit: 100, beforeSeq: null });
    assert.equal(failed.length, 39);
    assert.equal(await s.retryAlertDelivery(orgId, one!.id, T0 + 24), false, "only a failed delivery is retried");
    assert.equal(await s.retryAlertDelivery(orgId, failed[0]!.id, T0 + 24), true);
    const [again] = await s.claimAlertDeliveries(T0 + 25, 1, 60_000, "again");
    assert.deepEqual([again?.id, again?.attempts], [failed[0]!.id, 0], "back to pending with its attempts reset, the same delivery ID");
    await drain(s);
  });
}
