import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { it } from "node:test";
import { INITIAL_STATE } from "../../../src/domain/alerts/conditions.js";
import { copyStore, nonEmptyTables } from "../../../src/services/copy-store.js";
import { COPY_TABLES, type CopyRow } from "../../../src/store/copy-tables.js";
import type { Store } from "../../../src/store/store.js";
import { ACTOR, runInput, T0, type StoreOpener } from "./backends.js";

/**
 * A store with a row in every copyable table: two organizations, keys (one revoked), a run with
 * all its attributes, a fork, metrics over several chunks, console lines, data rows, files, the secret,
 * an audit entry.
 */
async function populate(s: Store): Promise<{ orgId: string; runId: number; forkId: number }> {
  const org = await s.createOrganization("copy-source", T0);
  const other = await s.createOrganization("copy-other", T0);
  const user = await s.createUser({ orgId: org.id, email: "owner@example.com", name: "Owner", kind: "person" }, T0);
  await s.setMembership(org.id, user.id, "owner", T0);
  await s.setPasswordHash(user.id, "scrypt$copied");
  const key = {
    orgId: org.id,
    userId: user.id,
    name: "k",
    displayPrefix: "sw_abc",
    createdAt: T0,
    expiresAt: null,
    role: "viewer" as const,
  };
  await s.createApiKey({ ...key, keyHash: "a".repeat(64) });
  const revoked = await s.createApiKey({ ...key, keyHash: "b".repeat(64), expiresAt: T0 + 1000 });
  await s.revokeApiKey(revoked.id, T0 + 1);
  await s.createRun(other.id, runInput({ projectName: "theirs" }), ACTOR);

  const input = runInput({ externalId: "ext-1", tags: ["a", "b"], config: { lr: 0.1, nested: { z: 1, a: 2 } }, loggerSettings: { x: 1 } });
  const { run } = await s.createRun(org.id, input, ACTOR);
  const steps = Array.from({ length: 1500 }, (_, i) => i);
  await s.appendMetricPoints(
    org.id,
    run.id,
    [
      { logName: "train/loss", steps, values: steps.map((i) => 1 / (i + 1)), times: steps.map((i) => T0 + i) },
      { logName: "acc", steps: [0, 1, 2], values: [Number.NaN, 0.5, Number.POSITIVE_INFINITY], times: [T0, T0, T0] },
    ],
    T0 + 2,
  );
  await s.appendConsoleLines(
    org.id,
    run.id,
    [
      { time: T0, message: "hello", lineNumber: 0, logType: "INFO", step: null },
      { time: T0 + 1, message: "oops", lineNumber: 1, logType: "ERROR", step: 3 },
    ],
    T0 + 2,
  );
  await s.appendDataRows(org.id, run.id, [{ time: T0, step: 1, logName: "hist", dataType: "HISTOGRAM", data: '{"bins":[1,2]}' }], T0 + 2);
  const [file] = (await s.registerFiles(
    org.id,
    run.id,
    [{ logName: "img", fileName: "a.png", fileType: "png", fileSize: 3, time: T0, step: 1 }],
    T0,
  ))!;
  await s.markFileUploaded(file!.id, 3, T0 + 3);
  await s.updateRunNotes(org.id, run.id, "notes", T0 + 3);
  await s.addLogNames(org.id, run.id, ["table"], "TABLE", T0 + 3);
  await s.setModelGraph(org.id, run.id, { layers: [1, 2] }, T0 + 3);
  await s.createAlert(org.id, run.id, { title: "t", body: "b", level: "WARN", timestamp: T0 }, T0 + 3);
  const fork = await s.createRun(
    org.id,
    runInput({ name: "fork", now: T0 + 4, fork: { runId: run.id, step: 700, inheritConfig: true, inheritTags: true } }),
    ACTOR,
  );
  await s.updateRunStatus(org.id, run.id, { status: "COMPLETED", source: "api", now: T0 + 5, statusMetadata: { ok: true } }, ACTOR);
  await s.getOrCreateSigningSecret(randomBytes(32), T0);
  // MLflow's default experiment: a project marked as its organization's default.
  await s.createMlflowDefaultProject(org.id);
  // MLflow's model registry: a model with a tag and an alias, and a version of it.
  await s.createRegisteredModel(org.id, { name: "model", description: "d", tags: [["k", "v"]], aliases: [] }, T0);
  await s.createModelVersion(
    org.id,
    "model",
    {
      description: "",
      userId: "u",
      stage: "None",
      source: "mlflow-artifacts:/1/x/artifacts/model",
      storageLocation: "mlflow-artifacts:/1/x/artifacts/model",
      runId: "x",
      runLink: "",
      status: "READY",
      tags: [["t", "1"]],
    },
    T0 + 1,
  );
  await s.updateRegisteredModel(
    org.id,
    "model",
    (model, versions) => ({ model: { ...model, aliases: [["champion", 1]] }, versions }),
    T0 + 2,
  );
  // MLflow 3's logged model of the run, with params and tags, finalized.
  const modelId = `m-${"a".repeat(32)}`;
  await s.createLoggedModel(org.id, {
    id: modelId,
    projectId: run.projectId,
    name: "model",
    modelType: "sklearn",
    sourceRunId: run.id,
    params: [["alpha", "0.5"]],
    tags: [["k", "v"]],
    now: T0 + 6,
  });
  await s.updateLoggedModel(org.id, modelId, (m) => ({ ...m, status: "READY" }), T0 + 7);
  // A saved view of the run's project.
  await s.createSavedView(org.id, run.projectId, { name: "losses", stateText: '{"layout":{"cap":50},"hiddenRuns":[1]}' }, T0 + 8);
  // An alert destination, a rule naming it, its state for the run, the event it fired and the event's delivery.
  const destination = await s.createAlertDestination(
    org.id,
    { name: "hook", kind: "webhook", url: "https://hooks.example/x", secret: "s".repeat(43) },
    T0 + 9,
  );
  const condition = { type: "non_finite" as const, metric: "train/loss" };
  const rule = await s.createAlertRule(
    org.id,
    run.projectId,
    { name: "nan", condition, destinationIds: [destination.id], enabled: true },
    T0 + 9,
  );
  const event = { orgId: org.id, projectId: run.projectId, runId: run.id, ruleId: rule!.id, ruleName: "nan", kind: "non_finite" as const };
  await s.recordAlertTransitions(
    [
      {
        ruleId: rule!.id,
        runId: run.id,
        from: INITIAL_STATE,
        to: { active: true, streak: 1 },
        event: { ...event, title: "t", body: "b", level: "ERROR" },
      },
    ],
    T0 + 9,
  );
  await s.setRetentionPolicy(org.id, run.projectId, { maxAgeDays: 30, excludeTag: "keep" }, T0 + 8);
  // A purged run whose file bytes are still to remove (blob_purges).
  const { run: purged } = await s.createRun(org.id, runInput({ projectName: "purged", name: "gone" }), ACTOR);
  await s.deleteRuns(org.id, [purged.id], T0 + 8);
  assert.ok(await s.purgeRun(purged.id, T0 + 8, T0 + 9));
  await s.appendAuditEntries([
    {
      orgId: org.id,
      at: T0 + 9,
      actorUserId: null,
      actorApiKeyId: null,
      actorLabel: "system",
      sourceIp: null,
      action: "runs.purge",
      targetType: "run",
      targetId: String(purged.id),
      details: '{"points":0,"files":0}',
    },
  ]);
  return { orgId: org.id, runId: run.id, forkId: fork.run.id };
}

async function allRows(s: Store, table: string): Promise<CopyRow[]> {
  return s.exportRows(table, null, 1_000_000);
}

/**
 * CopyStore: exportRows / importRows / countRows, and the copy built on them (src/services/copy-store.ts).
 * Opens empty stores of its own, two at once; they are whole stores, since a copy fills and reads every table.
 */
export function copyContract(backend: StoreOpener<Store>): void {
  it("copies every table whole, in small batches, into an empty store that then reads the same", async () => {
    const source = await backend.open();
    const target = await backend.open();
    try {
      const { orgId, runId, forkId } = await populate(source.store);
      assert.deepEqual(await nonEmptyTables(target.store), []);
      assert.deepEqual(
        await nonEmptyTables(source.store),
        COPY_TABLES.map((table) => table.name),
        "the fixture fills every table",
      );

      const progress: string[] = [];
      const counts = await copyStore(source.store, target.store, {
        batchRows: 7,
        onTable: (table, read, inserted) => progress.push(`${table} ${read} ${inserted}`),
      });
      assert.equal(progress.length, COPY_TABLES.length);
      for (const { table, source: inSource, target: inTarget } of counts) {
        assert.equal(inTarget, inSource, table);
        assert.deepEqual(await allRows(target.store, table), await allRows(source.store, table), table);
      }

      const t = target.store;
      const s = source.store;
      assert.deepEqual(await t.getRun(orgId, forkId), await s.getRun(orgId, forkId));
      assert.deepEqual(await t.listMetricSummaries(orgId, forkId), await s.listMetricSummaries(orgId, forkId));
      assert.deepEqual(
        await t.sampleMetricPoints(orgId, forkId, "train/loss", 0, 2000, 50),
        await s.sampleMetricPoints(orgId, forkId, "train/loss", 0, 2000, 50),
      );
      assert.deepEqual(await t.listStatusEvents(orgId, runId), await s.listStatusEvents(orgId, runId));
      const defaultExperiment = await t.getMlflowDefaultProject(orgId);
      assert.deepEqual([defaultExperiment?.name, defaultExperiment?.defaultExperiment], ["Default", true]);
      assert.deepEqual(defaultExperiment, await s.getMlflowDefaultProject(orgId));
      assert.deepEqual(await t.listModelVersions(orgId), await s.listModelVersions(orgId));
      assert.deepEqual(await t.getRegisteredModel(orgId, "model"), await s.getRegisteredModel(orgId, "model"));
      assert.deepEqual((await t.getRegisteredModel(orgId, "model"))?.aliases, [["champion", 1]]);
      assert.equal((await t.createModelVersion(orgId, "model", (await s.listModelVersions(orgId))[0]!, T0 + 20))?.version, 2);
      assert.deepEqual(await t.getApiKeyByHash("a".repeat(64)), await s.getApiKeyByHash("a".repeat(64)));
      assert.deepEqual(
        Buffer.from(await t.getOrCreateSigningSecret(randomBytes(32), T0)),
        Buffer.from(await s.getOrCreateSigningSecret(randomBytes(32), T0)),
      );

      // IDs and run numbers the target makes next continue past the copied ones.
      const next = await t.createRun(orgId, runInput({ name: "after copy", now: T0 + 10 }), ACTOR);
      const maxRunId = Math.max(...(await allRows(s, "runs")).map((row) => row[0] as number));
      assert.ok(next.run.id > maxRunId, `run ID ${next.run.id} after ${maxRunId}`);
      assert.equal(next.run.number, 3, "numbers continue in the project");
      await t.appendMetricPoints(orgId, next.run.id, [{ logName: "m", steps: [0], values: [1], times: [T0] }], T0 + 10);
      assert.equal((await t.readMetricPoints(orgId, next.run.id, "m", 0, 0)).length, 1);
      await t.updateRunStatus(orgId, next.run.id, { status: "FAILED", source: "api", now: T0 + 11 }, ACTOR);
      assert.equal((await t.listStatusEvents(orgId, next.run.id))!.length, 2);
      // Every table with generated IDs takes new rows without colliding with copied ones.
      const elsewhere = await t.createRun(orgId, runInput({ projectName: "new project", now: T0 + 12 }), ACTOR);
      assert.ok(elsewhere.run.projectId > Math.max(...(await allRows(s, "projects")).map((row) => row[0] as number)));
      assert.equal(await t.createAlert(orgId, next.run.id, { title: "t", body: "b", level: "INFO", timestamp: null }, T0 + 12), true);
      const [file] = (await t.registerFiles(
        orgId,
        next.run.id,
        [{ logName: "img", fileName: "b.png", fileType: "png", fileSize: 1, time: T0, step: 0 }],
        T0,
      ))!;
      assert.ok(file!.id > Math.max(...(await allRows(s, "files")).map((row) => row[0] as number)));
      assert.equal((await t.listAlerts(orgId, next.run.id))!.length, 1);
      const [copiedDestination] = await t.listAlertDestinations(orgId);
      const test = {
        orgId,
        projectId: null,
        runId: null,
        ruleId: null,
        ruleName: null,
        kind: "test" as const,
        title: "t",
        body: "",
        level: "INFO",
      };
      assert.equal(
        (await t.recordAlertEvent(test, [copiedDestination!.id], T0 + 12)).length,
        1,
        "new events and deliveries after the copied ones",
      );
      assert.equal((await t.listAlertDeliveries(orgId, { status: null, limit: 10, beforeSeq: null })).length, 2);
      const view = await t.createSavedView(orgId, next.run.projectId, { name: "after copy", stateText: "{}" }, T0 + 12);
      assert.ok(view!.id > Math.max(...(await allRows(s, "saved_views")).map((row) => row[0] as number)));
      assert.deepEqual(
        (await t.listSavedViews(orgId, next.run.projectId, { limit: 10, offset: 0 })).map((v) => v.name),
        ["after copy", "losses"],
        "the copied view reads back beside the new one",
      );
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it("skips rows the target has already, so an interrupted copy can be run again", async () => {
    const source = await backend.open();
    const target = await backend.open();
    try {
      await populate(source.store);
      const half = (await allRows(source.store, "organizations")).slice(0, 1);
      assert.equal(await target.store.importRows("organizations", half), 1);
      assert.equal(await target.store.importRows("organizations", half), 0, "the same row again is skipped");
      const inserted = new Map<string, number>();
      const counts = await copyStore(source.store, target.store, { onTable: (table, _read, n) => inserted.set(table, n) });
      assert.equal(inserted.get("organizations"), 1, "only the missing organization");
      assert.ok(counts.every((count) => count.source === count.target));
      await copyStore(source.store, target.store, { onTable: (table, _read, n) => inserted.set(table, n) });
      assert.deepEqual(
        [...inserted.values()].filter((n) => n > 0),
        [],
        "a second copy inserts nothing",
      );
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it("refuses unknown tables, key lengths and row widths, and a row whose reference is missing, importing nothing of its batch", async () => {
    const { store, destroy } = await backend.open();
    try {
      await assert.rejects(store.exportRows("sqlite_master", null, 10));
      await assert.rejects(store.countRows("leases"));
      await assert.rejects(store.exportRows("runs", [1, 2], 10));
      await assert.rejects(store.importRows("organizations", [["id", "slug"]]));
      const user: CopyRow = ["u1", "no-such-org", "admin", T0];
      const organization: CopyRow = ["o1", "slug", T0];
      await assert.rejects(store.importRows("users", [user]));
      assert.equal(await store.countRows("users"), 0);
      await assert.rejects(store.importRows("organizations", [organization, ["o2", "slug2"]]));
      assert.equal(await store.countRows("organizations"), 0, "a failed batch leaves nothing behind");
    } finally {
      await destroy();
    }
  });
}
