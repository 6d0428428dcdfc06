import assert from "node:assert/strict";
import { it } from "node:test";
import { MAX_RUN_JSON_LENGTH } from "../../../src/domain/runs.js";
import type { RunStatus } from "../../../src/domain/status.js";
import type { AccountStore, LogStore, MetricStore, ProjectStore, RunStore, Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, newRun, rejectsWith, runInput, T0, WRITERS } from "./backends.js";

/**
 * RunStore: creating, resuming, forking and finding runs; run lists; status precedence and history;
 * attributes (config, logger settings, tags, notes, model graph); log names; alerts; heartbeats and
 * stale runs. Fixtures: organizations (AccountStore); projects (ProjectStore), which runs create and
 * number; metric points (MetricStore), which a fork step is checked against; and console lines
 * (LogStore) and metric points as ingest that counts as a heartbeat.
 */
export function runContract(store: () => RunStore & ProjectStore & AccountStore & MetricStore & LogStore): void {
  // Lifecycle: create, number, fork, resume, find.
  it("creates a RUNNING run with a null → RUNNING api event, creating its project with a fixed prefix", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run, resumed } = await s.createRun(
      orgId,
      runInput({
        projectName: "my-ml-project",
        name: "r1",
        tags: ["a", "b"],
        config: { lr: 0.1 },
        systemMetadata: { gpu: 1 },
        loggerSettings: { x: 1 },
      }),
      ACTOR,
    );
    assert.equal(resumed, false);
    const project = (await s.getProjectByName(orgId, "my-ml-project"))!;
    assert.deepEqual(run, {
      id: run.id,
      projectId: project.id,
      projectName: "my-ml-project",
      name: "r1",
      number: 1,
      displayId: "MMP-1",
      externalId: null,
      status: "RUNNING",
      tags: ["a", "b"],
      notes: null,
      config: { lr: 0.1 },
      systemMetadata: { gpu: 1 },
      loggerSettings: { x: 1 },
      statusMetadata: null,
      createdAt: T0,
      updatedAt: T0,
      statusUpdated: null,
      heartbeatAt: T0,
      forkedFromRunId: null,
      forkStep: null,
      deletedAt: null,
    });
    assert.deepEqual(await s.getRun(orgId, run.id), run);
    assert.deepEqual(await s.listStatusEvents(orgId, run.id), [
      {
        id: (await s.listStatusEvents(orgId, run.id))![0]!.id,
        runId: run.id,
        fromStatus: null,
        toStatus: "RUNNING",
        source: "api",
        metadata: null,
        actorId: "user-1",
        apiKeyId: "key-1",
        createdAt: T0,
      },
    ]);
    assert.deepEqual(project, {
      id: project.id,
      name: "my-ml-project",
      runPrefix: "MMP",
      createdAt: T0,
      updatedAt: T0,
      runCount: 1,
      deletedAt: null,
    });
  });

  it("numbers runs per project from 1 and keeps backfilled times", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const numbers = [];
    for (let i = 0; i < 3; i++)
      numbers.push((await s.createRun(orgId, runInput({ projectName: "training", now: T0 + i }), ACTOR)).run.displayId);
    assert.deepEqual(numbers, ["TRA-1", "TRA-2", "TRA-3"]);
    const { run } = await s.createRun(orgId, runInput({ projectName: "training", createdAt: 1000, updatedAt: 2000, now: T0 + 9 }), ACTOR);
    assert.deepEqual([run.createdAt, run.updatedAt], [1000, 2000]);
    const project = (await s.getProjectByName(orgId, "training"))!;
    assert.deepEqual([project.runCount, project.createdAt, project.updatedAt], [4, T0, T0 + 9]);
  });

  it("leaves no project, run or run number behind when a fork fails", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const fork = { runId: 999_999_999, step: 0, inheritConfig: true, inheritTags: false };
    await rejectsWith(s.createRun(orgId, runInput({ projectName: "never-made", fork }), ACTOR), "RUN_NOT_FOUND");
    assert.equal(await s.getProjectByName(orgId, "never-made"), undefined);
    assert.deepEqual(await s.listProjects(orgId), []);

    const { run: parent } = await s.createRun(orgId, runInput({ projectName: "p" }), ACTOR);
    await s.appendMetricPoints(orgId, parent.id, [{ logName: "loss", steps: [0, 1, 2], values: [3, 2, 1], times: [T0, T0, T0] }], T0);
    await rejectsWith(
      s.createRun(orgId, runInput({ projectName: "p", fork: { ...fork, runId: parent.id, step: 3 } }), ACTOR),
      "INVALID_INPUT",
    );
    await rejectsWith(s.createRun(orgId, runInput({ projectName: "other", fork: { ...fork, runId: parent.id } }), ACTOR), "RUN_NOT_FOUND");
    assert.equal(await s.getProjectByName(orgId, "other"), undefined, "a fork from another project creates no project");
    const next = await s.createRun(orgId, runInput({ projectName: "p" }), ACTOR);
    assert.equal(next.run.number, 2, "the failed creates used no run number");
    assert.equal((await s.getProjectByName(orgId, "p"))!.runCount, 2);
  });

  it("forks with inherited config under the child's own keys and, when asked, the union of tags", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run: parent } = await s.createRun(
      orgId,
      runInput({ projectName: "f", tags: ["p1", "shared"], config: { lr: 1, opt: { name: "adam", eps: 1 } } }),
      ACTOR,
    );
    await s.appendMetricPoints(orgId, parent.id, [{ logName: "loss", steps: [0, 5], values: [1, 2], times: [T0, T0] }], T0);
    assert.deepEqual(await s.listForks(orgId, parent.id), []);
    const { run: child } = await s.createRun(
      orgId,
      runInput({
        projectName: "f",
        tags: ["shared", "c1"],
        config: { opt: { name: "sgd" } },
        fork: { runId: parent.id, step: 5, inheritConfig: true, inheritTags: true },
      }),
      ACTOR,
    );
    assert.deepEqual([child.forkedFromRunId, child.forkStep], [parent.id, 5]);
    assert.deepEqual(child.config, { lr: 1, opt: { name: "sgd", eps: 1 } });
    assert.deepEqual([...child.tags].sort(), ["c1", "p1", "shared"]);
    const { run: plain } = await s.createRun(
      orgId,
      runInput({ projectName: "f", tags: ["c2"], fork: { runId: parent.id, step: 0, inheritConfig: false, inheritTags: false } }),
      ACTOR,
    );
    assert.deepEqual([plain.config, plain.tags], [null, ["c2"]]);
    assert.deepEqual(
      (await s.listForks(orgId, parent.id)).map((fork) => fork.id),
      [child.id, plain.id],
      "forks oldest first",
    );
  });

  it("returns the existing run for a known externalId, resuming a finished one, and yields one run under concurrency", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => s.createRun(orgId, runInput({ projectName: "dist", externalId: "job-1", now: T0 + i }), ACTOR)),
    );
    assert.equal(new Set(results.map((r) => r.run.id)).size, 1);
    assert.equal(results.filter((r) => !r.resumed).length, 1);
    const runId = results[0]!.run.id;
    assert.equal((await s.getProjectByName(orgId, "dist"))!.runCount, 1);
    assert.equal((await s.listStatusEvents(orgId, runId))!.length, 1, "resuming a RUNNING run changes nothing");

    await s.updateRunStatus(orgId, runId, { status: "COMPLETED", source: "api", now: T0 + 100 }, ACTOR);
    const again = await s.createRun(orgId, runInput({ projectName: "dist", externalId: "job-1", now: T0 + 200 }), ACTOR);
    assert.deepEqual([again.run.id, again.resumed, again.run.status], [runId, true, "RUNNING"]);
    assert.deepEqual(
      (await s.listStatusEvents(orgId, runId))!.map((e) => [e.fromStatus, e.toStatus, e.source]),
      [
        [null, "RUNNING", "api"],
        ["RUNNING", "COMPLETED", "api"],
        ["COMPLETED", "RUNNING", "resume"],
      ],
    );
    assert.deepEqual(await s.getRunByExternalId(orgId, "dist", "job-1"), again.run);
    assert.equal(await s.getRunByExternalId(orgId, "other", "job-1"), undefined, "external IDs are scoped to a project");
    const elsewhere = await s.createRun(orgId, runInput({ projectName: "other", externalId: "job-1" }), ACTOR);
    assert.notEqual(elsewhere.run.id, runId);
  });

  it("resumes by run ID: a finished run becomes RUNNING with a resume event, a RUNNING one is unchanged", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    assert.deepEqual(await s.resumeRun(orgId, run.id, T0 + 1, ACTOR), { ...run, heartbeatAt: T0 + 1 });
    assert.equal((await s.listStatusEvents(orgId, run.id))!.length, 1);
    await s.updateRunStatus(orgId, run.id, { status: "FAILED", source: "api", now: T0 + 2 }, ACTOR);
    const resumed = (await s.resumeRun(orgId, run.id, T0 + 3, ACTOR))!;
    assert.deepEqual([resumed.status, resumed.statusUpdated], ["RUNNING", T0 + 3]);
    assert.equal((await s.listStatusEvents(orgId, run.id))!.at(-1)!.source, "resume");
    assert.equal(await s.resumeRun(orgId, 999_999_999, T0, ACTOR), undefined);
  });

  it("finds runs by display ID in every project of the organization or in one", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const a = (await s.createRun(orgId, runInput({ projectName: "my-project" }), ACTOR)).run;
    const b = (await s.createRun(orgId, runInput({ projectName: "mpr" }), ACTOR)).run;
    assert.deepEqual((await s.listRunsByDisplayId(orgId, "MPR", 1)).map((r) => r.id).sort(), [a.id, b.id].sort());
    assert.deepEqual(
      (await s.listRunsByDisplayId(orgId, "MPR", 1, "mpr")).map((r) => r.id),
      [b.id],
    );
    assert.deepEqual(await s.listRunsByDisplayId(orgId, "MPR", 2), []);
    assert.deepEqual(await s.listRunsByDisplayId(orgId, "MPR", 1, "nope"), []);
  });

  it("lists runs by search, tags and statuses, paged in column order, counting every match", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const ids: number[] = [];
    for (const [i, name, tags] of [
      [0, "Alpha", ["x"]],
      [1, "beta", ["y"]],
      [2, "alphabet", ["x", "y"]],
      [3, "gamma", []],
    ] as const) {
      ids.push((await s.createRun(orgId, runInput({ name, tags: [...tags], createdAt: T0 + i, now: T0 + i }), ACTOR)).run.id);
    }
    await s.updateRunStatus(orgId, ids[1]!, { status: "FAILED", source: "api", now: T0 + 9 }, ACTOR);
    const projectId = (await s.getProjectByName(orgId, "project"))!.id;
    const page = { limit: 2, offset: 0 };
    const names = async (query: Parameters<Store["listRuns"]>[2]) => {
      const { runs, total } = await s.listRuns(orgId, projectId, query);
      return [runs.map((run) => run.name), total];
    };
    assert.deepEqual(await names({ order: { field: "createdAt", descending: true }, page }), [["gamma", "alphabet"], 4]);
    assert.deepEqual(await names({ order: { field: "name", descending: false }, page: { limit: 10, offset: 1 } }), [
      ["alphabet", "beta", "gamma"],
      4,
    ]);
    assert.deepEqual(await names({ search: "ALPHA", order: { field: "createdAt", descending: false }, page }), [["Alpha", "alphabet"], 2]);
    assert.deepEqual(await names({ tags: ["y", "z"], order: { field: "createdAt", descending: false }, page }), [["beta", "alphabet"], 2]);
    assert.deepEqual(await names({ statuses: ["FAILED"], order: { field: "createdAt", descending: false }, page }), [["beta"], 1]);
    const candidates = await s.listRunCandidates(orgId, projectId, { tags: ["x"] });
    assert.deepEqual(
      candidates.map((run) => run.name),
      ["alphabet", "Alpha"],
      "newest first",
    );
    assert.deepEqual(Object.keys(candidates[0]!).sort(), [
      "config",
      "createdAt",
      "heartbeatAt",
      "id",
      "name",
      "status",
      "statusUpdated",
      "systemMetadata",
      "tags",
      "updatedAt",
    ]);
  });

  it("gets many runs in one call: in the order asked, unknown and other organizations' IDs left out", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const ids: number[] = [];
    for (let i = 0; i < 1_200; i++) ids.push((await s.createRun(orgId, runInput({ name: `r${i}`, config: { i } }), ACTOR)).run.id);
    const foreign = (await s.createRun(other, runInput({ name: "foreign" }), ACTOR)).run.id;
    const [a, b, c] = [ids[3]!, ids[0]!, ids[7]!];

    assert.deepEqual(
      (await s.getRuns(orgId, [a, 999_999_999, foreign, b, c, a])).map((run) => run.name),
      ["r3", "r0", "r7", "r3"],
      "order asked, a repeated ID twice, unknown and foreign IDs left out",
    );
    assert.deepEqual(await s.getRuns(orgId, [b]), [await s.getRun(orgId, b)], "whole runs, as getRun reads them");
    assert.deepEqual(await s.getRuns(orgId, []), []);
    assert.deepEqual(await s.getRuns(other, [a, b]), [], "another organization sees none of them");
    assert.deepEqual(
      (await s.getRuns(other, [a, foreign])).map((run) => run.name),
      ["foreign"],
    );
    const reversed = [...ids].reverse();
    assert.deepEqual(
      (await s.getRuns(orgId, reversed)).map((run) => run.id),
      reversed,
      "1,200 IDs in one call, in the order asked",
    );
  });

  // Status precedence and history.
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

  // Attributes, log names, alerts.
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

  // Heartbeats and stale runs.
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

    assert.deepEqual(
      await s.failStaleRuns(2000, 3000),
      [silent.runId, otherOrg.runId].sort((a, b) => a - b),
    );
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
    assert.deepEqual(await s.failStaleRuns(2000, 3001), [], "a stale run is failed once");
  });

  it("counts ingest as a heartbeat", async () => {
    const s = store();
    const { orgId, runId } = await newRun(s);
    await s.appendMetricPoints(orgId, runId, [{ logName: "m", steps: [0], values: [1], times: [0] }], T0 + 700);
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 700);
    await s.appendConsoleLines(orgId, runId, [{ time: 0, message: "x", lineNumber: 0, logType: "INFO", step: null }], T0 + 800);
    assert.equal((await s.getRun(orgId, runId))!.heartbeatAt, T0 + 800);
  });

  // Many writers at once (WRITERS, backends.ts).
  it("gives concurrent creates in one project distinct run numbers", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const created = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) => s.createRun(orgId, runInput({ projectName: "busy", name: `r${i}` }), ACTOR)),
    );
    const numbers = created.map(({ run }) => run.number);
    assert.equal(new Set(numbers).size, WRITERS, `numbers ${numbers.join(",")}`);
    assert.equal(new Set(created.map(({ run }) => run.displayId)).size, WRITERS);
    assert.equal((await s.getProjectByName(orgId, "busy"))!.runCount, WRITERS);
  });

  it("turns 32 concurrent creates with one externalId into one run with one RUNNING event", async () => {
    const s = store();
    const orgId = await newOrg(s);
    // The project exists already: creating it would queue the creates behind its first INSERT.
    await s.createRun(orgId, runInput({ projectName: "ext" }), ACTOR);
    // A race is a matter of timing: several rounds make a missing guard fail reliably.
    for (const externalId of ["job-1", "job-2", "job-3", "job-4"]) {
      const created = await Promise.all(
        Array.from({ length: WRITERS }, () => s.createRun(orgId, runInput({ projectName: "ext", externalId }), ACTOR)),
      );
      const ids = new Set(created.map(({ run }) => run.id));
      assert.equal(ids.size, 1);
      assert.equal(created.filter(({ resumed }) => !resumed).length, 1);
      const [runId] = ids;
      assert.deepEqual(
        (await s.listStatusEvents(orgId, runId!))!.map((e) => [e.fromStatus, e.toStatus]),
        [[null, "RUNNING"]],
      );
    }
    assert.equal((await s.getProjectByName(orgId, "ext"))!.runCount, 5);
  });

  it("decides concurrent terminal writes by precedence, each against the status the previous one left", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const statuses: RunStatus[] = ["COMPLETED", "TERMINATED", "CANCELLED", "FAILED"];
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        s.updateRunStatus(orgId, run.id, { status: statuses[i % statuses.length]!, source: "api", now: T0 + i }, ACTOR),
      ),
    );
    assert.equal((await s.getRun(orgId, run.id))!.status, "FAILED");
    const events = (await s.listStatusEvents(orgId, run.id))!;
    const rank = (status: RunStatus | null) => (status === null || status === "RUNNING" ? 0 : statuses.indexOf(status) + 1);
    events.slice(1).forEach((event, i) => {
      assert.equal(event.fromStatus, events[i]!.toStatus, "each event starts where the previous ended");
      assert.ok(rank(event.toStatus) > rank(event.fromStatus), `${event.fromStatus} → ${event.toStatus} breaks precedence`);
    });
  });

  it("keeps every key of concurrent config merges", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ config: { base: true } }), ACTOR);
    await Promise.all(Array.from({ length: WRITERS }, (_, i) => s.mergeRunConfig(orgId, run.id, { nested: { [`k${i}`]: i } }, T0 + i)));
    const config = (await s.getRun(orgId, run.id))!.config as { base: boolean; nested: Record<string, number> };
    assert.equal(config.base, true);
    assert.equal(Object.keys(config.nested).length, WRITERS);
  });
}
