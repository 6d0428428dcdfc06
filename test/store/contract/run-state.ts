import assert from "node:assert/strict";
import { it } from "node:test";
import { MAX_METRICS_PER_RUN } from "../../../src/domain/log-names.js";
import { MAX_RUN_JSON_LENGTH } from "../../../src/domain/runs.js";
import type { RunStatus } from "../../../src/domain/status.js";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, rejectsWith, runInput, T0 } from "./backends.js";

/** Status precedence and history, run attributes, heartbeats and stale runs. */
export function runStateContract(store: () => Store): void {
  async function newRun(s: Store, overrides = {}) {
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(overrides), ACTOR);
    return { orgId, runId: run.id };
  }

  it("applies status writes by precedence and records one event per applied write", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    const writes: [RunStatus, boolean][] = [
      ["COMPLETED", true],
      ["COMPLETED", false],
      ["TERMINATED", true],
      ["COMPLETED", false],
      ["FAILED", true],
      ["CANCELLED", false],
      ["FAILED", false],
      ["RUNNING", true],
      ["CANCELLED", true],
    ];
    let now = T0;
    for (const [status, applied] of writes) {
      const result = await s.updateRunStatus(orgId, runId, { status, source: "api", now: ++now, statusMetadata: { n: now } }, ACTOR);
      assert.deepEqual(result, { applied }, `${status} at ${now}`);
    }
    const events = (await s.listStatusEvents(orgId, runId))!;
    assert.deepEqual(
      events.map((e) => [e.fromStatus, e.toStatus]),
      [
        [null, "RUNNING"],
        ["RUNNING", "COMPLETED"],
        ["COMPLETED", "TERMINATED"],
        ["TERMINATED", "FAILED"],
        ["FAILED", "RUNNING"],
        ["RUNNING", "CANCELLED"],
      ],
    );
    assert.ok(
      events.every((e, i) => i === 0 || e.id > events[i - 1]!.id),
      "events come in the order they happened",
    );
    const run = (await s.getRun(orgId, runId))!;
    assert.equal(run.status, "CANCELLED");
    assert.deepEqual(run.statusMetadata, { n: T0 + 9 });
  });

  it("stores nothing for an ignored write: no metadata, no settings, no event, no time", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s, { loggerSettings: { a: 1 } });
    await s.updateRunStatus(orgId, runId, { status: "FAILED", source: "api", now: T0 + 1, statusMetadata: { why: "oom" } }, ACTOR);
    const before = await s.getRun(orgId, runId);
    const result = await s.updateRunStatus(
      orgId,
      runId,
      { status: "COMPLETED", source: "api", now: T0 + 2, statusUpdated: 5, statusMetadata: { why: "ok" }, loggerSettings: { b: 2 } },
      ACTOR,
    );
    assert.deepEqual(result, { applied: false });
    assert.deepEqual(await s.getRun(orgId, runId), before);
    assert.equal((await s.listStatusEvents(orgId, runId))!.length, 2);
  });

  it("takes statusUpdated when given (backfill), else now; merges logger settings; records actor and metadata", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s, { loggerSettings: { a: { x: 1, y: 2 }, keep: true } });
    await s.updateRunStatus(
      orgId,
      runId,
      {
        status: "COMPLETED",
        source: "api",
        now: T0 + 50,
        statusUpdated: 1234,
        statusMetadata: { ok: 1 },
        loggerSettings: { a: { y: 3 }, b: null },
      },
      ACTOR,
    );
    const run = (await s.getRun(orgId, runId))!;
    assert.equal(run.statusUpdated, 1234);
    assert.deepEqual(run.loggerSettings, { a: { x: 1, y: 3 }, keep: true, b: null });
    const event = (await s.listStatusEvents(orgId, runId))!.at(-1)!;
    assert.deepEqual(
      { ...event, id: 0 },
      {
        id: 0,
        runId,
        fromStatus: "RUNNING",
        toStatus: "COMPLETED",
        source: "api",
        metadata: { ok: 1 },
        actorId: "user-1",
        apiKeyId: "key-1",
        createdAt: 1234,
      },
    );
    await s.updateRunStatus(orgId, runId, { status: "FAILED", source: "api", now: T0 + 60 }, { userId: null, apiKeyId: null });
    assert.equal((await s.getRun(orgId, runId))!.statusUpdated, T0 + 60);
    assert.equal(await s.updateRunStatus(orgId, 999_999_999, { status: "FAILED", source: "api", now: T0 }, ACTOR), undefined);
  });

  it("deep-merges config updates: objects key by key, arrays and scalars replace, null sets null", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s, { config: { lr: 0.1, layers: [1, 2], opt: { name: "adam", betas: [0.9] }, drop: 0.5 } });
    assert.equal(await s.mergeRunConfig(orgId, runId, { layers: [3], opt: { name: "sgd" }, drop: null, extra: { a: 1 } }, T0 + 5), true);
    const run = (await s.getRun(orgId, runId))!;
    assert.deepEqual(run.config, { lr: 0.1, layers: [3], opt: { name: "sgd", betas: [0.9] }, drop: null, extra: { a: 1 } });
    assert.equal(run.updatedAt, T0 + 5);
    const { orgId: o2, runId: r2 } = await newRun(s);
    await s.mergeRunConfig(o2, r2, { first: true }, T0);
    assert.deepEqual((await s.getRun(o2, r2))!.config, { first: true }, "a run without config takes the patch");
    assert.equal(await s.mergeRunConfig(orgId, 999_999_999, {}, T0), false);
  });

  it("refuses a config or logger-settings merge past what a run may accumulate, changing nothing", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s, { config: { a: "x".repeat(MAX_RUN_JSON_LENGTH - 20) } });
    await rejectsWith(s.mergeRunConfig(orgId, runId, { b: "y".repeat(30) }, T0 + 1), "PAYLOAD_TOO_LARGE");
    assert.deepEqual(Object.keys((await s.getRun(orgId, runId))!.config as object), ["a"]);
    const update = {
      status: "COMPLETED" as const,
      source: "api" as const,
      now: T0 + 1,
      loggerSettings: { s: "z".repeat(MAX_RUN_JSON_LENGTH) },
    };
    await rejectsWith(s.updateRunStatus(orgId, runId, update, ACTOR), "PAYLOAD_TOO_LARGE");
  });

  it("refuses a metric batch that would give a run more than MAX_METRICS_PER_RUN metrics, writing none of it", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    const series = (names: string[]) => names.map((logName) => ({ logName, steps: [0], values: [1], times: [T0] }));
    const names = Array.from({ length: MAX_METRICS_PER_RUN - 1 }, (_, i) => `m${i}`);
    assert.equal(await s.appendMetricPoints(orgId, runId, series(names), T0), MAX_METRICS_PER_RUN - 1);
    await rejectsWith(s.appendMetricPoints(orgId, runId, series(["m0", "new-1", "new-2"]), T0), "INVALID_INPUT");
    assert.equal((await s.listMetricSummaries(orgId, runId)).length, MAX_METRICS_PER_RUN - 1, "nothing of the refused batch");
    assert.equal(await s.appendMetricPoints(orgId, runId, series(["m0", "new-1"]), T0 + 1), 2, "up to the bound, existing names too");
    assert.equal(await s.appendMetricPoints(orgId, runId, series(["m1"]), T0 + 1), 1, "a full run still takes points");
  });

  it("replaces tags (deduplicated, order kept) and clears notes on null or empty", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s, { tags: ["old"] });
    assert.equal(await s.updateRunTags(orgId, runId, ["b", "a", "b", "c"], T0 + 1), true);
    assert.deepEqual((await s.getRun(orgId, runId))!.tags, ["b", "a", "c"]);
    for (const [notes, stored] of [
      ["n1", "n1"],
      [null, null],
      ["n2", "n2"],
      ["", null],
    ] as const) {
      assert.equal(await s.updateRunNotes(orgId, runId, notes, T0 + 2), true);
      assert.equal((await s.getRun(orgId, runId))!.notes, stored);
    }
    assert.equal(await s.updateRunTags(orgId, 999_999_999, [], T0), false);
  });

  it("adds log names once, keeping the first type, with the group before the last slash", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    assert.equal(await s.addLogNames(orgId, runId, ["train/loss", "a/b/c", "acc"], "METRIC", T0), true);
    assert.equal(await s.addLogNames(orgId, runId, ["acc", "img"], "IMAGE", T0), true);
    const names = (await s.listLogNames(orgId, runId)).sort((x, y) => x.logName.localeCompare(y.logName));
    assert.deepEqual(names, [
      { logName: "a/b/c", logType: "METRIC", logGroup: "a/b" },
      { logName: "acc", logType: "METRIC", logGroup: null },
      { logName: "img", logType: "IMAGE", logGroup: null },
      { logName: "train/loss", logType: "METRIC", logGroup: "train" },
    ]);
  });

  it("lists a metric's name as METRIC from its first points on, keeping a type the name already had", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    assert.equal(await s.addLogNames(orgId, runId, ["shared"], "DATA", T0), true);
    const points = (logName: string, step: number) => ({ logName, steps: [step], values: [step], times: [T0] });
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 0), points("shared", 0)], T0 + 1);
    // Later batches write to metrics that exist, and one creates a metric beside them.
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 1), points("acc", 1)], T0 + 2);
    await s.appendMetricPoints(orgId, runId, [points("train/loss", 2), points("acc", 2), points("shared", 2)], T0 + 3);
    const names = (await s.listLogNames(orgId, runId)).sort((x, y) => x.logName.localeCompare(y.logName));
    assert.deepEqual(names, [
      { logName: "acc", logType: "METRIC", logGroup: null },
      { logName: "shared", logType: "DATA", logGroup: null },
      { logName: "train/loss", logType: "METRIC", logGroup: "train" },
    ]);
  });

  it("stores a model graph and alerts per run", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    assert.equal(await s.getModelGraph(orgId, runId), null);
    const graph = { format: "torch", nodes: { fc: { type: "Linear", depth: 1 } } };
    assert.equal(await s.setModelGraph(orgId, runId, graph, T0), true);
    assert.deepEqual(await s.getModelGraph(orgId, runId), graph);
    assert.deepEqual(await s.listAlerts(orgId, runId), []);
    await s.createAlert(orgId, runId, { title: "t1", body: "b1", level: "WARN", timestamp: 5 }, T0 + 1);
    await s.createAlert(orgId, runId, { title: "t2", body: "b2", level: "INFO", timestamp: null }, T0 + 2);
    assert.deepEqual(
      (await s.listAlerts(orgId, runId))!.map(({ id: _id, ...alert }) => alert),
      [
        { title: "t1", body: "b1", level: "WARN", timestamp: 5, createdAt: T0 + 1 },
        { title: "t2", body: "b2", level: "INFO", timestamp: null, createdAt: T0 + 2 },
      ],
    );
  });

  it("records heartbeats that only move forward and returns the run's status", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    assert.equal(await s.recordHeartbeat(orgId, runId, T0 + 100), "RUNNING");
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 100);
    await s.recordHeartbeat(orgId, runId, T0 + 50);
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 100, "a late ping with an old clock does not move it back");
    await s.updateRunStatus(orgId, runId, { status: "COMPLETED", source: "api", now: T0 + 200 }, ACTOR);
    assert.equal(await s.recordHeartbeat(orgId, runId, T0 + 300), "COMPLETED");
    assert.equal(await s.recordHeartbeat(orgId, 999_999_999, T0), undefined);
  });

  it("fails RUNNING runs silent since before the cutoff, across organizations, with a stale event", async () => {
    const s = store();
    // Tiny times, far below T0, so runs of the other tests in this store are never stale here.
    const silent = await newRun(s, { now: 1000 });
    const otherOrg = await newRun(s, { now: 1500 });
    const pinged = await newRun(s, { now: 1000 });
    await s.recordHeartbeat(pinged.orgId, pinged.runId, 2500);
    const finished = await newRun(s, { now: 1000 });
    await s.updateRunStatus(finished.orgId, finished.runId, { status: "COMPLETED", source: "api", now: 1100 }, ACTOR);
    const atCutoff = await newRun(s, { now: 2000 });

    assert.equal(await s.failStaleRuns(2000, 3000), 2);
    for (const { orgId, runId } of [silent, otherOrg]) {
      const run = (await s.getRun(orgId, runId))!;
      assert.deepEqual([run.status, run.statusMetadata, run.statusUpdated], ["FAILED", { reason: "stale" }, 3000]);
      const event = (await s.listStatusEvents(orgId, runId))!.at(-1)!;
      assert.deepEqual(
        [event.fromStatus, event.toStatus, event.source, event.metadata, event.actorId, event.apiKeyId, event.createdAt],
        ["RUNNING", "FAILED", "stale", { reason: "stale" }, null, null, 3000],
      );
    }
    for (const { orgId, runId } of [pinged, atCutoff]) assert.equal((await s.getRun(orgId, runId))!.status, "RUNNING");
    assert.equal((await s.getRun(finished.orgId, finished.runId))!.status, "COMPLETED");
    assert.equal(await s.failStaleRuns(2000, 3001), 0, "a stale run is failed once");
  });

  it("counts ingest as a heartbeat", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    await s.appendMetricPoints(orgId, runId, [{ logName: "m", steps: [0], values: [1], times: [0] }], T0 + 700);
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 700);
    await s.appendConsoleLines(orgId, runId, [{ time: 0, message: "x", lineNumber: 0, logType: "INFO", step: null }], T0 + 800);
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 800);
  });
}
