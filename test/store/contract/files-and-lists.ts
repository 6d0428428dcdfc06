import assert from "node:assert/strict";
import { it } from "node:test";
import type { NewFile, Store } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0 } from "./backends.js";

const file = (overrides: Partial<NewFile>): NewFile => ({
  logName: "img",
  fileName: "a.png",
  fileType: "png",
  fileSize: 1,
  time: T0,
  step: 0,
  ...overrides,
});

/** File records, run lists and the last values run filters read. */
export function fileAndListContract(store: () => Store): void {
  it("registers files idempotently on (run, logName, fileName) and lists only uploaded ones, in order", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput(), ACTOR);
    const [first] = (await s.registerFiles(orgId, run.id, [file({ fileName: "b.png", step: 1 })], T0))!;
    const again = (await s.registerFiles(
      orgId,
      run.id,
      [file({ fileName: "b.png", step: 2, caption: "c" }), file({ fileName: "a.png", step: 2, sampleIndex: 0 })],
      T0,
    ))!;
    assert.equal(again[0]!.id, first!.id, "same file, same ID");
    assert.deepEqual([again[0]!.step, again[0]!.caption, again[0]!.uploadedAt], [2, "c", null]);
    assert.deepEqual(await s.listFiles(orgId, run.id, {}), [], "nothing uploaded yet");
    assert.deepEqual([again[0]!.orgId, again[0]!.projectId], [orgId, run.projectId], "the file names its blob's organization and project");
    assert.deepEqual(
      (await s.listFiles(orgId, run.id, { pending: true })).map((f) => f.fileName),
      ["b.png", "a.png"],
      "the files waiting for their bytes",
    );
    await s.markFileUploaded(first!.id, 42, T0 + 1);
    await s.markFileUploaded(again[1]!.id, 7, T0 + 1);
    const listed = await s.listFiles(orgId, run.id, {});
    assert.deepEqual(
      listed.map((f) => [f.fileName, f.fileSize]),
      [
        ["b.png", 42],
        ["a.png", 7],
      ],
      "null sample index first within a step",
    );
    assert.deepEqual(await s.getFile(first!.id), listed[0]);
    assert.deepEqual(await s.listFiles(orgId, run.id, { pending: true }), [], "none waits any more");
    assert.deepEqual(await s.listLogNames(orgId, run.id), [{ logName: "img", logType: "IMAGE", logGroup: null }]);
  });

  it("keeps files of other organizations out of registration and listing", async () => {
    const s = store();
    const [mine, theirs] = [await newOrg(s), await newOrg(s)];
    const { run } = await s.createRun(mine, runInput(), ACTOR);
    assert.equal(await s.registerFiles(theirs, run.id, [file({})], T0), undefined);
    const [registered] = (await s.registerFiles(mine, run.id, [file({})], T0))!;
    assert.deepEqual(await s.listFiles(theirs, run.id, { pending: true }), []);
    await s.markFileUploaded(registered!.id, 1, T0);
    assert.deepEqual(await s.listFiles(theirs, run.id, {}), []);
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

  it("keeps the client time of each metric's last point with its summary; none for a fork's inherited points", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const runId = (await s.createRun(orgId, runInput(), ACTOR)).run.id;
    const write = (steps: number[], times: number[]) =>
      s.appendMetricPoints(orgId, runId, [{ logName: "m", steps, values: steps.map(() => 1), times }], T0);
    const lastTime = async (id = runId) => (await s.listMetricSummaries(orgId, id)).map((summary) => [summary.lastStep, summary.lastTime]);
    await write([0, 1, 2], [10, 11, 12]);
    assert.deepEqual(await lastTime(), [[2, 12]], "an append");
    await write([2], [20]);
    assert.deepEqual(await lastTime(), [[2, 20]], "the last step written again");
    await write([0, 1], [30, 31]);
    assert.deepEqual(await lastTime(), [[2, 20]], "earlier steps leave it");
    await write([1, 3], [40, 41]);
    assert.deepEqual(await lastTime(), [[3, 41]], "a write past the end and before it");
    const fork = { runId, step: 1, inheritConfig: false, inheritTags: false };
    const child = (await s.createRun(orgId, runInput({ name: "child", fork }), ACTOR)).run.id;
    assert.deepEqual(await lastTime(child), [[1, null]], "a lineage's summary: the point must be read");
    assert.deepEqual((await s.listMetricSummariesOfRuns(orgId, [runId])).get(runId)![0]!.lastTime, 41);
  });

  it("lists the metric summaries of many runs at once, as listMetricSummaries does for each, forks included", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const series = (logName: string, values: number[]) => ({
      logName,
      steps: values.map((_, i) => i),
      values,
      times: values.map(() => T0),
    });
    const parent = (await s.createRun(orgId, runInput({ name: "parent" }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, parent, [series("loss", [3, 2, 1, Number.NaN]), series("acc", [0.1, 0.2])], T0);
    const fork = { runId: parent, step: 1, inheritConfig: false, inheritTags: false };
    const child = (await s.createRun(orgId, runInput({ name: "child", fork }), ACTOR)).run.id;
    await s.appendMetricPoints(orgId, child, [series("lr", [0.5])], T0);
    const empty = (await s.createRun(orgId, runInput({ name: "empty" }), ACTOR)).run.id;
    const foreign = (await s.createRun(other, runInput({ name: "foreign" }), ACTOR)).run.id;

    const all = await s.listMetricSummariesOfRuns(orgId, [child, 999_999_999, parent, foreign, empty]);
    assert.deepEqual([...all.keys()].sort(), [parent, child, empty].sort(), "unknown and foreign runs left out");
    for (const runId of [parent, child, empty]) assert.deepEqual(all.get(runId), await s.listMetricSummaries(orgId, runId));
    assert.deepEqual(
      all.get(child)!.map((summary) => [summary.logName, summary.count]),
      [
        ["acc", 2],
        ["loss", 2],
        ["lr", 1],
      ],
      "the child's own metric and its parent's up to the fork step",
    );
    assert.deepEqual(await s.listMetricSummariesOfRuns(other, [parent, child]), new Map());
    assert.deepEqual(await s.listMetricSummariesOfRuns(orgId, []), new Map());
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

  it("gives the LAST finite value per run, inherited through a fork", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run: parent } = await s.createRun(orgId, runInput(), ACTOR);
    await s.appendMetricPoints(
      orgId,
      parent.id,
      [{ logName: "loss", steps: [0, 1, 2, 3], values: [4, 3, NaN, 1], times: [0, 0, 0, 0] }],
      T0,
    );
    const { run: child } = await s.createRun(
      orgId,
      runInput({ fork: { runId: parent.id, step: 2, inheritConfig: true, inheritTags: false } }),
      ACTOR,
    );
    const { run: silent } = await s.createRun(orgId, runInput(), ACTOR);
    const values = await s.listRunLastValues(orgId, parent.projectId, "loss");
    assert.deepEqual(
      Object.fromEntries(values),
      { [parent.id]: 1, [child.id]: 3 },
      "the child's last finite value at or below the fork step",
    );
    assert.ok(!values.has(silent.id));
  });
}
