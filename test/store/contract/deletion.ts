import assert from "node:assert/strict";
import { it } from "node:test";
import { COPY_TABLES } from "../../../src/store/copy-tables.js";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0 } from "./backends.js";

/** DeletionStore: the trash, the purge and retention. Fixtures: runs with every kind of data (the whole Store). */
export function deletionContract(store: () => Store): void {
  /** Rows of every copyable table: what a purge must leave as it found it, but for the purged run. */
  async function rowCounts(s: Store): Promise<Map<string, number>> {
    return new Map(await Promise.all(COPY_TABLES.map(async (table) => [table.name, await s.countRows(table.name)] as const)));
  }

  /** A run with rows in every table that names a run. */
  async function fullRun(s: Store, orgId: string, projectName: string) {
    const { run } = await s.createRun(orgId, runInput({ projectName, tags: ["t"] }), ACTOR);
    const steps = Array.from({ length: 1200 }, (_, i) => i);
    await s.appendMetricPoints(
      orgId,
      run.id,
      [{ logName: "loss", steps, values: steps.map((i) => 1 / (i + 1)), times: steps.map((i) => T0 + i) }],
      T0 + 1,
    );
    await s.appendConsoleLines(orgId, run.id, [{ time: T0, message: "hi", lineNumber: 0, logType: "INFO", step: null }], T0 + 1);
    await s.appendDataRows(orgId, run.id, [{ time: T0, step: 1, logName: "hist", dataType: "HISTOGRAM", data: "{}" }], T0 + 1);
    const files = await s.registerFiles(
      orgId,
      run.id,
      [{ logName: "img", fileName: "a.png", fileType: "png", fileSize: 3, time: T0, step: 1 }],
      T0,
    );
    await s.markFileUploaded(files![0]!.id, 3, T0 + 2);
    await s.createAlert(orgId, run.id, { title: "t", body: "b", level: "WARN", timestamp: T0 }, T0 + 2);
    await s.updateRunStatus(orgId, run.id, { status: "COMPLETED", now: T0 + 3, source: "api" }, ACTOR);
    return run;
  }

  it("purges every row of a deleted run, counts its points and files, queues its bytes; before the cutoff nothing", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const kept = await fullRun(s, orgId, "purge");
    const before = await rowCounts(s);
    const run = await fullRun(s, orgId, "purge");
    assert.deepEqual(await s.deleteRuns(orgId, [run.id], T0 + 10), [run.id]);
    assert.equal(await s.purgeRun(run.id, T0 + 9, T0 + 20), undefined, "deleted after the cutoff: kept");
    assert.equal(await s.purgeRun(kept.id, T0 + 100, T0 + 20), undefined, "a live run is never purged");
    const purged = await s.purgeRun(run.id, T0 + 10, T0 + 20);
    assert.deepEqual(purged, { runId: run.id, orgId, projectId: run.projectId, points: 1200, files: 1 });
    const after = await rowCounts(s);
    for (const [table, count] of before) {
      assert.equal(after.get(table), table === "blob_purges" ? count + 1 : count, `${table}: every row of the run is gone, no other`);
    }
    assert.ok((await s.listBlobPurges(1000)).some((target) => target.runId === run.id));
    await s.deleteBlobPurge(run.id);
    assert.ok(!(await s.listBlobPurges(1000)).some((target) => target.runId === run.id));
    assert.equal(await s.purgeRun(run.id, T0 + 10, T0 + 20), undefined, "purged once");
  });

  it("never purges a run that a run forks: the fork goes first, then its parent", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const parent = await fullRun(s, orgId, "lineage");
    const { run: child } = await s.createRun(
      orgId,
      runInput({ projectName: "lineage", fork: { runId: parent.id, step: 5, inheritConfig: false, inheritTags: false } }),
      ACTOR,
    );
    await s.deleteRuns(orgId, [parent.id, child.id], T0 + 10);
    const listed = (await s.listPurgeableRuns(T0 + 10, 100_000)).map((target) => target.runId);
    assert.ok(listed.includes(child.id) && !listed.includes(parent.id), "the parent waits for its fork");
    assert.equal(await s.purgeRun(parent.id, T0 + 10, T0 + 20), undefined);
    assert.ok(await s.purgeRun(child.id, T0 + 10, T0 + 20));
    assert.ok(await s.purgeRun(parent.id, T0 + 10, T0 + 20));
  });

  it("purges a deleted project once it holds no run, with its policy; lists the trash of its organization only", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const run = await fullRun(s, orgId, "doomed");
    assert.ok(await s.setRetentionPolicy(orgId, run.projectId, { maxAgeDays: 3, excludeTag: null }, T0));
    assert.equal(
      await s.setRetentionPolicy(other, run.projectId, { maxAgeDays: 3, excludeTag: null }, T0),
      false,
      "another organization's project",
    );
    await s.updateProjectMlflow(orgId, run.projectId, (state) => ({ ...state, deletedAt: T0 + 10 }), T0 + 10);
    assert.deepEqual(
      (await s.listDeletedProjects(orgId)).map((p) => [p.name, p.runCount]),
      [["doomed", 1]],
    );
    assert.deepEqual(await s.listDeletedProjects(other), []);
    assert.equal((await s.listDeletedRuns(other, undefined, { limit: 10, offset: 0 })).total, 0);
    const trash = await s.listDeletedRuns(orgId, run.projectId, { limit: 10, offset: 0 });
    assert.deepEqual([trash.total, trash.runs[0]?.projectDeleted], [1, true]);
    assert.equal(await s.purgeProject(run.projectId, T0 + 10), false, "it still holds a run");
    assert.ok(await s.purgeRun(run.id, T0 + 10, T0 + 20));
    assert.ok((await s.listPurgeableProjects(T0 + 10, 100_000)).some((p) => p.projectId === run.projectId));
    assert.ok(await s.purgeProject(run.projectId, T0 + 10));
    assert.equal(await s.getMlflowProject(orgId, run.projectId), undefined);
    const { run: again } = await s.createRun(orgId, runInput({ projectName: "doomed", now: T0 + 30 }), ACTOR);
    assert.equal(again.number, 1, "the name is free: a new project, numbering its runs from 1");
    assert.equal((await s.getProject(orgId, again.projectId))?.runCount, 1);
  });
}
