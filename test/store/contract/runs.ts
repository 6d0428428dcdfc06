import assert from "node:assert/strict";
import { it } from "node:test";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, rejectsWith, runInput, T0 } from "./backends.js";

/** Creating, resuming and finding runs; projects and display IDs. */
export function runContract(store: () => Store): void {
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
      mlflowId: run.mlflowId,
      mlflowTags: [],
      mlflowInputs: null,
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
      mlflowTags: [],
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

  it("lists the organization's projects with run counts", async () => {
    const s = store();
    const orgId = await newOrg(s);
    for (const name of ["b", "a", "b"]) await s.createRun(orgId, runInput({ projectName: name }), ACTOR);
    assert.deepEqual((await s.listProjects(orgId)).map((p) => [p.name, p.runCount]).sort(), [
      ["a", 1],
      ["b", 2],
    ]);
  });
}
