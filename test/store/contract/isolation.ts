import assert from "node:assert/strict";
import { it } from "node:test";
import type {
  AccountStore,
  FileStore,
  LogStore,
  MetricStore,
  MlflowStore,
  NewFile,
  ProjectStore,
  RunStore,
} from "../../../src/store/store.js";
import { ACTOR, newOrg, rejectsWith, runInput, T0 } from "./backends.js";

const PAGE = { limit: 10, offset: 0, maxBytes: 1024 };
/** A run, project or file ID no organization has. */
const NO_SUCH_ID = 999_999_999;
const FILE: NewFile = { logName: "img", fileName: "a.png", fileType: "png", fileSize: 1, time: T0, step: 0 };

/**
 * Organization isolation by construction, across the tenant interfaces: with another organization's
 * ID, every method that takes one reads a run (project, file) of organization A exactly as one that
 * does not exist, and writes nothing to it.
 */
export function isolationContract(
  store: () => AccountStore & ProjectStore & RunStore & MetricStore & LogStore & FileStore & MlflowStore,
): void {
  it("makes a run of organization A absent for organization B in every method", async () => {
    const s = store();
    const a = await newOrg(s);
    const b = await newOrg(s);
    await s.createRun(b, runInput({ projectName: "b-own" }), ACTOR);
    const { run } = await s.createRun(
      a,
      runInput({ projectName: "shared-name", name: "secret", externalId: "ext", tags: ["t"], config: { lr: 1 } }),
      ACTOR,
    );
    const id = run.id;
    await s.addLogNames(a, id, ["train/loss"], "METRIC", T0);
    await s.setModelGraph(a, id, { format: "torch", nodes: {} }, T0);
    await s.createAlert(a, id, { title: "t", body: "b", level: "INFO", timestamp: null }, T0);
    await s.appendMetricPoints(a, id, [{ logName: "train/loss", steps: [0, 1], values: [1, 2], times: [T0, T0] }], T0);
    await s.appendConsoleLines(a, id, [{ time: T0, message: "hi", lineNumber: 1, logType: "INFO", step: null }], T0);
    await s.appendDataRows(a, id, [{ time: T0, step: 0, logName: "hist", dataType: "HISTOGRAM", data: "{}" }], T0);
    const before = await s.getRun(a, id);
    const project = (await s.getProjectByName(a, "shared-name"))!;

    assert.equal(await s.getRun(b, id), undefined);
    assert.equal(await s.getRunProjectName(b, id), undefined);
    assert.equal(await s.getRunProjectName(a, id), "shared-name");
    assert.deepEqual(await s.getRuns(b, [id]), []);
    assert.equal(await s.getRunByExternalId(b, "shared-name", "ext"), undefined);
    assert.deepEqual(await s.listRunsByDisplayId(b, project.runPrefix, run.number), []);
    assert.deepEqual(await s.listRunsByDisplayId(b, project.runPrefix, run.number, "shared-name"), []);
    assert.equal(await s.resumeRun(b, id, T0 + 1, ACTOR), undefined);
    assert.equal(await s.updateRunStatus(b, id, { status: "FAILED", source: "api", now: T0 + 1 }, ACTOR), undefined);
    assert.equal(await s.listStatusEvents(b, id), undefined);
    assert.equal(await s.updateRunTags(b, id, ["x"], T0 + 1), false);
    assert.equal(await s.updateRunNotes(b, id, "x", T0 + 1), false);
    assert.equal(await s.mergeRunConfig(b, id, { lr: 2 }, T0 + 1), false);
    assert.equal(await s.addLogNames(b, id, ["x"], "METRIC", T0 + 1), false);
    assert.deepEqual(await s.listLogNames(b, id), []);
    assert.equal(await s.setModelGraph(b, id, { format: "x", nodes: {} }, T0 + 1), false);
    assert.equal(await s.getModelGraph(b, id), undefined);
    assert.equal(await s.recordHeartbeat(b, id, T0 + 1), undefined);
    assert.equal(await s.createAlert(b, id, { title: "x", body: "x", level: "INFO", timestamp: null }, T0 + 1), false);
    assert.equal(await s.listAlerts(b, id), undefined);
    assert.equal(await s.appendMetricPoints(b, id, [{ logName: "train/loss", steps: [5], values: [9], times: [T0] }], T0 + 1), undefined);
    assert.equal(
      await s.appendConsoleLines(b, id, [{ time: T0, message: "x", lineNumber: 2, logType: "INFO", step: null }], T0 + 1),
      undefined,
    );
    assert.equal(
      await s.appendDataRows(b, id, [{ time: T0, step: 1, logName: "hist", dataType: "HISTOGRAM", data: "x" }], T0 + 1),
      undefined,
    );
    assert.deepEqual(await s.listRuns(b, project.id, { order: { field: "createdAt", descending: true }, page: { limit: 10, offset: 0 } }), {
      runs: [],
      total: 0,
    });
    assert.deepEqual(await s.listRunCandidates(b, project.id, {}), []);
    assert.deepEqual(await s.listMetricSummaries(b, id), []);
    assert.deepEqual(await s.listMetricSummariesOfRuns(b, [id]), new Map());
    assert.deepEqual(await s.countMetricsOfRuns(b, [id]), new Map());
    assert.deepEqual(await s.listRunLastValues(b, project.id, "train/loss"), new Map());
    assert.deepEqual(await s.readMetricPoints(b, id, "train/loss", 0, 10), []);
    assert.deepEqual(await s.sampleMetricPoints(b, id, "train/loss", 0, 10, 5), []);
    assert.deepEqual(await s.listRunMetricSummaries(b, project.id, "train/loss"), []);
    assert.deepEqual(await s.listRunMetricSummaries(b, project.id, "train/loss", [id]), []);
    assert.deepEqual(await s.listMetricNames(b, project.id, { limit: 10 }), []);
    assert.deepEqual(await s.listMetricNames(b, project.id, { limit: 10, runIds: [id] }), []);
    assert.deepEqual(await s.listConsoleLines(b, id, PAGE), { items: [], nextOffset: null, total: 0 });
    assert.deepEqual(await s.listDataRows(b, id, PAGE), { items: [], nextOffset: null });
    assert.equal(await s.getProjectByName(b, "shared-name"), undefined);
    assert.deepEqual(
      (await s.listProjects(b)).map((p) => p.name),
      ["b-own"],
    );
    await rejectsWith(
      s.createRun(b, runInput({ projectName: "shared-name", fork: { runId: id, step: 0, inheritConfig: true, inheritTags: true } }), ACTOR),
      "RUN_NOT_FOUND",
    );
    assert.deepEqual(await s.listForks(b, id), []);

    assert.deepEqual(await s.getRun(a, id), before, "nothing B did changed A's run");
    assert.equal((await s.listStatusEvents(a, id))!.length, 1);
    assert.equal((await s.readMetricPoints(a, id, "train/loss", 0, 10)).length, 2);
    assert.equal((await s.listConsoleLines(a, id, PAGE)).total, 1);
    assert.equal((await s.listDataRows(a, id, PAGE)).items[0]!.data, "{}");
    assert.equal((await s.listAlerts(a, id))!.length, 1);
    assert.deepEqual((await s.listLogNames(a, id)).map((l) => l.logName).sort(), ["hist", "train/loss"]);
  });

  it("makes the files of a run of organization A absent for organization B, as those of a run that does not exist", async () => {
    const s = store();
    const a = await newOrg(s);
    const b = await newOrg(s);
    const { run } = await s.createRun(a, runInput(), ACTOR);
    const [uploaded, pending] = (await s.registerFiles(a, run.id, [FILE, { ...FILE, fileName: "b.png" }], T0))!;
    await s.markFileUploaded(uploaded!.id, 1, T0);
    const before = await s.getRun(a, run.id);
    const logNames = await s.listLogNames(a, run.id);
    const unchanged = async (label: string) => {
      assert.deepEqual(await s.getRun(a, run.id), before, `${label}: A's run unchanged`);
      assert.deepEqual(await s.listLogNames(a, run.id), logNames, `${label}: A's log names unchanged`);
      assert.deepEqual(
        (await s.listFiles(a, run.id, {})).map((f) => [f.id, f.step]),
        [[uploaded!.id, 0]],
        `${label}: A's uploaded file unchanged`,
      );
      assert.deepEqual(
        (await s.listFiles(a, run.id, { pending: true })).map((f) => f.id),
        [pending!.id],
        `${label}: A's pending file unchanged`,
      );
    };

    for (const [label, org, runId, fileIds] of [
      ["organization B", b, run.id, [uploaded!.id, pending!.id]],
      ["no such run or file", a, NO_SUCH_ID, [NO_SUCH_ID]],
    ] as const) {
      assert.equal(await s.registerFiles(org, runId, [{ ...FILE, fileName: "c.png", logName: "other" }], T0 + 1), undefined, label);
      assert.equal(await s.registerFiles(org, runId, [{ ...FILE, step: 7 }], T0 + 1), undefined, `${label}: a name A registered`);
      assert.deepEqual(await s.listFiles(org, runId, {}), [], label);
      assert.deepEqual(await s.listFiles(org, runId, { pending: true }), [], label);
      assert.deepEqual(await s.listFiles(org, runId, { logName: "img" }), [], label);
      for (const fileId of fileIds) assert.equal(await s.deleteFile(org, fileId), false, label);
      await unchanged(label);
    }
  });

  it("makes MLflow's runs and projects of organization A absent for organization B, as ones that do not exist", async () => {
    const s = store();
    const a = await newOrg(s);
    const b = await newOrg(s);
    await s.createRun(b, runInput({ projectName: "b-own" }), ACTOR);
    const run = (await s.getMlflowRun(a, (await s.createRun(a, runInput({ projectName: "shared-name" }), ACTOR)).run.id))!;
    const projectId = run.projectId;
    const before = await s.getRun(a, run.id);
    const project = await s.getProject(a, projectId);
    const changed = (what: string) => () => assert.fail(`a change was asked of a ${what} the organization cannot see`);

    for (const [label, org, runId, mlflowId, projectOf] of [
      ["organization B", b, run.id, run.mlflowId, projectId],
      ["no such run or project", a, NO_SUCH_ID, "0".repeat(32), NO_SUCH_ID],
    ] as const) {
      assert.equal(await s.getRunByMlflowId(org, mlflowId), undefined, label);
      assert.equal(await s.getMlflowRunRef(org, mlflowId), undefined, label);
      assert.deepEqual(await s.listMlflowCandidates(org, projectOf), [], label);
      assert.deepEqual(await s.listMlflowInputs(org, projectOf), new Map(), label);
      assert.equal(await s.getProject(org, projectOf), undefined, label);
      assert.equal(await s.updateRunMlflow(org, runId, changed("run"), T0 + 1), undefined, label);
      assert.equal(await s.updateProjectMlflow(org, projectOf, changed("project"), T0 + 1), undefined, label);
      assert.deepEqual(await s.getRun(a, run.id), before, `${label}: A's run unchanged`);
      assert.deepEqual(await s.getProject(a, projectId), project, `${label}: A's project unchanged`);
    }
  });

  it("keeps projects of the same name in two organizations apart, numbering each from 1", async () => {
    const s = store();
    const a = await newOrg(s);
    const b = await newOrg(s);
    const first = await s.createRun(a, runInput({ projectName: "same", externalId: "e" }), ACTOR);
    const second = await s.createRun(b, runInput({ projectName: "same", externalId: "e" }), ACTOR);
    assert.notEqual(first.run.id, second.run.id);
    assert.equal(second.resumed, false, "an external ID is scoped to the organization's project");
    assert.equal(first.run.number, 1);
    assert.equal(second.run.number, 1);
    assert.notEqual((await s.getProjectByName(a, "same"))!.id, (await s.getProjectByName(b, "same"))!.id);
  });
}
