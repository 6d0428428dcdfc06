import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { it } from "node:test";
import { DomainError } from "../../../src/domain/errors.js";
import type { AccountStore, LoggedModelStore, MlflowStore, NewLoggedModel, ProjectStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0, WRITERS } from "./backends.js";

const modelId = () => `m-${randomBytes(16).toString("hex")}`;

/**
 * LoggedModelStore: MLflow 3's logged models, each of an experiment (a project) and optionally of
 * the run that logged it. Fixtures: runs (RunStore, MlflowStore for their MLflow IDs) and projects
 * (ProjectStore) in organizations (AccountStore).
 */
export function loggedModelContract(store: () => LoggedModelStore & MlflowStore & ProjectStore & RunStore & AccountStore): void {
  async function fixture() {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ projectName: "models" }), ACTOR);
    const mlflowRun = (await s.getMlflowRun(orgId, run.id))!;
    const input = (overrides: Partial<NewLoggedModel> = {}): NewLoggedModel => ({
      id: modelId(),
      projectId: run.projectId,
      name: "model",
      modelType: null,
      sourceRunId: run.id,
      params: [],
      tags: [],
      now: T0,
      ...overrides,
    });
    return { s, orgId, other, run, mlflowRun, input };
  }

  it("creates a PENDING model with its params, tags and source run, read back only in its organization", async () => {
    const { s, orgId, other, run, mlflowRun, input } = await fixture();
    const made = input({ modelType: "sklearn", params: [["alpha", "0.5"]], tags: [["k", "v"]] });
    const created = await s.createLoggedModel(orgId, made);
    assert.deepEqual(created, {
      id: made.id,
      projectId: run.projectId,
      inDefaultExperiment: false,
      name: "model",
      modelType: "sklearn",
      sourceRunId: run.id,
      sourceMlflowRunId: mlflowRun.mlflowId,
      status: "PENDING",
      params: [["alpha", "0.5"]],
      tags: [["k", "v"]],
      createdAt: T0,
      updatedAt: T0,
      deletedAt: null,
    });
    assert.deepEqual(await s.getLoggedModel(orgId, made.id), created);
    assert.equal(await s.getLoggedModel(other, made.id), undefined, "another organization's model reads as absent");
    assert.deepEqual(await s.listLoggedModels(other, [run.projectId]), []);
    assert.equal(await s.updateLoggedModel(other, made.id, (m) => ({ ...m, status: "READY" }), T0 + 1), undefined);
    assert.equal((await s.getLoggedModel(orgId, made.id))?.status, "PENDING", "another organization's update wrote nothing");
  });

  it("refuses a project or a source run of another organization: nothing is stored", async () => {
    const { s, orgId, other, run, input } = await fixture();
    const theirs = await s.createRun(other, runInput({ projectName: "theirs" }), ACTOR);
    const intoTheirProject = input({ projectId: theirs.run.projectId, sourceRunId: null });
    assert.equal(await s.createLoggedModel(orgId, intoTheirProject), undefined);
    const withTheirRun = input({ sourceRunId: theirs.run.id });
    assert.equal(await s.createLoggedModel(orgId, withTheirRun), undefined);
    assert.equal(await s.getLoggedModel(orgId, intoTheirProject.id), undefined);
    assert.equal(await s.getLoggedModel(other, intoTheirProject.id), undefined);
    assert.equal(await s.getLoggedModel(orgId, withTheirRun.id), undefined);
    const withoutRun = await s.createLoggedModel(orgId, input({ sourceRunId: null }));
    assert.deepEqual([withoutRun?.sourceRunId, withoutRun?.sourceMlflowRunId, withoutRun?.projectId], [null, null, run.projectId]);
  });

  it("lists the projects' models that are not deleted, newest first", async () => {
    const { s, orgId, run, input } = await fixture();
    const second = await s.createProject(orgId, "second", T0);
    const a = (await s.createLoggedModel(orgId, input({ now: T0 + 1 })))!;
    const b = (await s.createLoggedModel(orgId, input({ now: T0 + 3, projectId: second.id, sourceRunId: null })))!;
    const c = (await s.createLoggedModel(orgId, input({ now: T0 + 2 })))!;
    assert.deepEqual(
      (await s.listLoggedModels(orgId, [run.projectId, second.id])).map((m) => m.id),
      [b.id, c.id, a.id],
    );
    assert.deepEqual(
      (await s.listLoggedModels(orgId, [second.id])).map((m) => m.id),
      [b.id],
    );
    assert.deepEqual(await s.listLoggedModels(orgId, []), []);
    await s.updateLoggedModel(orgId, c.id, (m) => ({ ...m, deletedAt: T0 + 9 }), T0 + 9);
    assert.deepEqual(
      (await s.listLoggedModels(orgId, [run.projectId])).map((m) => m.id),
      [a.id],
    );
    assert.equal((await s.getLoggedModel(orgId, c.id))?.deletedAt, T0 + 9, "a deleted model is still read by its ID");
  });

  it("applies a change whole, or not at all when the rule throws", async () => {
    const { s, orgId, input } = await fixture();
    const model = (await s.createLoggedModel(orgId, input()))!;
    const updated = await s.updateLoggedModel(
      orgId,
      model.id,
      (m) => ({ ...m, status: "READY", params: [["p", "1"]], tags: [["t", "2"]] }),
      T0 + 5,
    );
    assert.deepEqual(
      [updated?.status, updated?.params, updated?.tags, updated?.updatedAt, updated?.createdAt],
      ["READY", [["p", "1"]], [["t", "2"]], T0 + 5, T0],
    );
    await assert.rejects(
      s.updateLoggedModel(
        orgId,
        model.id,
        () => {
          throw new DomainError("INVALID_INPUT", "no");
        },
        T0 + 6,
      ),
      DomainError,
    );
    assert.deepEqual(await s.getLoggedModel(orgId, model.id), updated);
    assert.equal(await s.updateLoggedModel(orgId, modelId(), (m) => m, T0), undefined, "an unknown model");
  });

  it("serializes concurrent changes of one model: no tag is lost", async () => {
    const { s, orgId, input } = await fixture();
    const model = (await s.createLoggedModel(orgId, input()))!;
    await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        s.updateLoggedModel(orgId, model.id, (m) => ({ ...m, tags: [...m.tags, [`t${i}`, String(i)]] }), T0 + i),
      ),
    );
    assert.equal((await s.getLoggedModel(orgId, model.id))?.tags.length, WRITERS);
  });
}
