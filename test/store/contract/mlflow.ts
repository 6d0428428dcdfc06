import assert from "node:assert/strict";
import { it } from "node:test";
import { DomainError } from "../../../src/domain/errors.js";
import type { AccountStore, MlflowRun, MlflowStore, ProjectStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput, T0, WRITERS } from "./backends.js";

/**
 * MlflowStore: what MLflow's protocol stores beside Stepwise's fields: run IDs, key-value tags,
 * lifecycle, projects made empty. Fixtures: runs (RunStore) and projects (ProjectStore) in
 * organizations (AccountStore).
 */
export function mlflowContract(store: () => MlflowStore & ProjectStore & RunStore & AccountStore): void {
  it("gives every run a stable 32-hex MLflow run ID, found only in its organization", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const { run: created } = await s.createRun(orgId, runInput({ mlflowTags: [["mlflow.user", "ann"]], mlflowUserId: "bob" }), ACTOR);
    const run = (await s.getMlflowRun(orgId, created.id))!;
    const second = (await s.getMlflowRun(orgId, (await s.createRun(orgId, runInput(), ACTOR)).run.id))!;
    assert.match(run.mlflowId, /^[0-9a-f]{32}$/);
    assert.notEqual(run.mlflowId, second.mlflowId);
    assert.deepEqual(run.mlflowTags, [["mlflow.user", "ann"]]);
    assert.deepEqual([run.mlflowUserId, second.mlflowUserId], ["bob", ""], "the user ID as created, apart from the tags; none is empty");
    assert.deepEqual([run.deletedAt, run.mlflowInputs], [null, null]);
    assert.equal((await s.getRunByMlflowId(orgId, run.mlflowId))?.id, run.id);
    assert.equal((await s.getMlflowRun(orgId, run.id))?.mlflowId, run.mlflowId, "stable");
    assert.equal(await s.getRunByMlflowId(other, run.mlflowId), undefined, "another organization's run reads as absent");
    assert.deepEqual(await s.getMlflowRunRef(orgId, run.mlflowId), { id: run.id, mlflowId: run.mlflowId, deletedAt: null });
    assert.equal(await s.getMlflowRunRef(other, run.mlflowId), undefined);
    await s.updateRunMlflow(orgId, run.id, (state) => ({ ...state, deletedAt: T0 + 9 }), T0 + 9);
    assert.equal((await s.getMlflowRunRef(orgId, run.mlflowId))?.deletedAt, T0 + 9);
  });

  it("applies a run's MLflow change whole, or not at all when the rule throws", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const { run } = await s.createRun(orgId, runInput({ config: { a: 1 } }), ACTOR);
    const updated = await s.updateRunMlflow(
      orgId,
      run.id,
      (state) => ({
        ...state,
        name: "renamed",
        config: { a: 1, lr: "0.1" },
        mlflowTags: [["k", "v"]],
        mlflowInputs: [{ d: 1 }],
        deletedAt: T0 + 5,
      }),
      T0 + 5,
    );
    assert.deepEqual(
      [updated?.name, updated?.config, updated?.mlflowTags, updated?.mlflowInputs, updated?.deletedAt, updated?.updatedAt],
      ["renamed", { a: 1, lr: "0.1" }, [["k", "v"]], [{ d: 1 }], T0 + 5, T0 + 5],
    );
    await assert.rejects(
      s.updateRunMlflow(
        orgId,
        run.id,
        () => {
          throw new DomainError("INVALID_INPUT", "no");
        },
        T0 + 6,
      ),
      /no/,
    );
    // A deleted run is read through MlflowStore only: RunStore's reads see live runs (docs/semantics.md, "Deletion").
    assert.equal(await s.getRun(orgId, run.id), undefined, "deleted: gone from core reads");
    assert.equal((await s.getMlflowRun(orgId, run.id))?.updatedAt, T0 + 5, "nothing written");
    assert.equal(await s.updateRunMlflow(await newOrg(s), run.id, (state) => state, T0), undefined, "other organization");
  });

  it("creates empty projects once per name, and renames, tags and deletes them; a taken name is a CONFLICT", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const project = (await s.getMlflowProject(orgId, (await s.createProject(orgId, "exp", T0)).id))!;
    assert.deepEqual([project.name, project.runCount, project.mlflowTags, project.deletedAt], ["exp", 0, [], null]);
    await assert.rejects(s.createProject(orgId, "exp", T0), (error: DomainError) => error.code === "CONFLICT");
    await s.createProject(orgId, "taken", T0);
    assert.equal((await s.getProject(orgId, project.id))?.name, "exp");
    assert.equal(await s.getProject(await newOrg(s), project.id), undefined, "other organization");
    const changed = await s.updateProjectMlflow(
      orgId,
      project.id,
      (state) => ({ ...state, name: "exp2", mlflowTags: [["t", "1"]], deletedAt: T0 + 1 }),
      T0 + 1,
    );
    assert.deepEqual([changed?.name, changed?.mlflowTags, changed?.deletedAt], ["exp2", [["t", "1"]], T0 + 1]);
    await assert.rejects(
      s.updateProjectMlflow(orgId, project.id, (state) => ({ ...state, name: "taken" }), T0 + 2),
      (error: DomainError) => error.code === "CONFLICT",
    );
    assert.equal((await s.getMlflowProject(orgId, project.id))?.name, "exp2");
    assert.equal(await s.getProject(orgId, project.id), undefined, "deleted: gone from core reads");
    await assert.rejects(
      s.createRun(orgId, runInput({ projectName: "exp2" }), ACTOR),
      (error: DomainError) => error.code === "CONFLICT" && /is deleted/.test(error.message),
      "a deleted project takes no run",
    );
    await s.updateProjectMlflow(orgId, project.id, (state) => ({ ...state, deletedAt: null }), T0 + 3);
    const { run } = await s.createRun(orgId, runInput({ projectName: "exp2" }), ACTOR);
    assert.equal(run.projectId, project.id, "a run logged to the restored project lands in it");
  });

  it("reads runs and experiments with MLflow's fields, only in their organization", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const { run: created } = await s.createRun(orgId, runInput({ projectName: "exp", name: "a", mlflowTags: [["t", "x"]] }), ACTOR);
    const a = (await s.getMlflowRun(orgId, created.id))!;
    assert.deepEqual([a.name, a.mlflowTags, a.mlflowInputs], ["a", [["t", "x"]], null]);
    assert.deepEqual(await s.getRunByMlflowId(orgId, a.mlflowId), a);
    const b = (await s.updateRunMlflow(
      orgId,
      (
        await s.createRun(orgId, runInput({ projectName: "exp", name: "b" }), ACTOR)
      ).run.id,
      (state) => ({ ...state, mlflowInputs: [{ d: 1 }] }),
      T0 + 1,
    ))!;
    const runs = await s.getMlflowRuns(orgId, [b.id, 999_999_999, a.id, b.id]);
    assert.deepEqual(
      runs.map((r) => [r.id, r.mlflowId, r.mlflowTags, r.mlflowInputs]),
      [
        [b.id, b.mlflowId, [], [{ d: 1 }]],
        [a.id, a.mlflowId, [["t", "x"]], null],
        [b.id, b.mlflowId, [], [{ d: 1 }]],
      ],
      "in the order asked, an ID asked twice twice, unknown IDs left out",
    );
    assert.deepEqual(await s.getMlflowRuns(orgId, []), []);
    assert.equal(await s.getMlflowRun(other, a.id), undefined, "another organization's run reads as absent");
    assert.deepEqual(await s.getMlflowRuns(other, [a.id]), []);

    await s.updateProjectMlflow(orgId, a.projectId, (state) => ({ ...state, mlflowTags: [["p", "1"]] }), T0 + 2);
    await s.createProject(orgId, "another", T0);
    const experiment = (await s.getMlflowProject(orgId, a.projectId))!;
    assert.deepEqual(
      [experiment.name, experiment.runCount, experiment.mlflowTags, experiment.deletedAt, experiment.updatedAt],
      ["exp", 2, [["p", "1"]], null, T0 + 2],
    );
    assert.deepEqual(await s.getMlflowProjectByName(orgId, "exp"), experiment);
    assert.deepEqual(
      (await s.listMlflowProjects(orgId)).map((p) => [p.name, p.mlflowTags]),
      [
        ["another", []],
        ["exp", [["p", "1"]]],
      ],
      "by name",
    );
    assert.equal(await s.getMlflowProject(other, a.projectId), undefined, "another organization's project reads as absent");
    assert.equal(await s.getMlflowProjectByName(other, "exp"), undefined);
    assert.deepEqual(await s.listMlflowProjects(other), []);
  });

  it("makes each organization's default experiment once, dated from the organization, or adopts its project named Default", async () => {
    const s = store();
    const orgId = (await s.createOrganization(`org-default-${Math.random().toString(36).slice(2, 8)}`, T0 - 1000)).id;
    await s.createProject(orgId, "earlier", T0);
    assert.equal(await s.getMlflowDefaultProject(orgId), undefined, "none until it is first needed");
    const made = await s.createMlflowDefaultProject(orgId);
    assert.deepEqual(
      [made.name, made.defaultExperiment, made.runCount, made.deletedAt, made.mlflowTags, made.createdAt, made.updatedAt],
      ["Default", true, 0, null, [], T0 - 1000, T0 - 1000],
    );
    assert.equal((await s.createMlflowDefaultProject(orgId)).id, made.id, "made once");
    assert.deepEqual(await s.getMlflowDefaultProject(orgId), made);
    assert.deepEqual(
      (await s.listMlflowProjects(orgId)).map((p) => [p.name, p.defaultExperiment]),
      [
        ["Default", true],
        ["earlier", false],
      ],
    );
    const { run: inDefault } = await s.createRun(orgId, runInput({ projectName: "Default" }), ACTOR);
    const { run: elsewhere } = await s.createRun(orgId, runInput({ projectName: "earlier" }), ACTOR);
    assert.equal((await s.getMlflowRun(orgId, inDefault.id))?.inDefaultExperiment, true);
    assert.equal((await s.getRunByMlflowId(orgId, (await s.getMlflowRun(orgId, elsewhere.id))!.mlflowId))?.inDefaultExperiment, false);
    assert.deepEqual(
      (await s.getMlflowRuns(orgId, [inDefault.id, elsewhere.id])).map((r) => r.inDefaultExperiment),
      [true, false],
    );

    // Renamed or deleted, it stays the default: a new project named "Default" is not adopted.
    await s.updateProjectMlflow(orgId, made.id, (state) => ({ ...state, name: "Renamed", deletedAt: T0 + 1 }), T0 + 1);
    await s.createProject(orgId, "Default", T0 + 2);
    const still = await s.createMlflowDefaultProject(orgId);
    assert.deepEqual([still.id, still.name, still.deletedAt, still.defaultExperiment], [made.id, "Renamed", T0 + 1, true]);
    assert.equal((await s.getMlflowProjectByName(orgId, "Default"))?.defaultExperiment, false);

    // An organization whose runs made a project named "Default" has that project adopted, as it is.
    const other = await newOrg(s);
    const { run: logged } = await s.createRun(other, runInput({ projectName: "Default", now: T0 + 5 }), ACTOR);
    const adopted = await s.createMlflowDefaultProject(other);
    assert.deepEqual([adopted.id, adopted.runCount, adopted.createdAt, adopted.defaultExperiment], [logged.projectId, 1, T0 + 5, true]);
    assert.notEqual(adopted.id, made.id);
    assert.equal((await s.getMlflowDefaultProject(orgId))?.id, made.id, "each organization its own");
    assert.equal(await s.getMlflowDefaultProject(await newOrg(s)), undefined, "another organization's default reads as absent");
  });

  it("makes one default experiment of concurrent first calls, with runs logged to a project named Default at the same time", async () => {
    const s = store();
    // A race is a matter of timing: several rounds make a missing guard fail reliably.
    for (let round = 0; round < 4; round++) {
      const orgId = await newOrg(s);
      const calls = await Promise.all(
        Array.from({ length: WRITERS }, (_, i) =>
          i % 4 === 3
            ? s.createRun(orgId, runInput({ projectName: "Default", name: `r${i}` }), ACTOR).then(({ run }) => run.projectId)
            : s.createMlflowDefaultProject(orgId).then((project) => project.id),
        ),
      );
      assert.equal(new Set(calls).size, 1, `one project: ${[...new Set(calls)].join(", ")}`);
      assert.deepEqual(
        (await s.listMlflowProjects(orgId)).map((p) => [p.id, p.name, p.defaultExperiment, p.runCount]),
        [[calls[0], "Default", true, WRITERS / 4]],
      );
    }
  });

  it("lists a project's runs with what MLflow's search reads, newest first", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const created = [
      (await s.createRun(orgId, runInput({ name: "a", config: { p: "1" }, mlflowTags: [["t", "x"]], mlflowUserId: "ann", now: T0 }), ACTOR))
        .run,
      (await s.createRun(orgId, runInput({ name: "b", tags: ["good"], now: T0 + 1 }), ACTOR)).run,
    ];
    const [a, b] = (await s.getMlflowRuns(
      orgId,
      created.map((run) => run.id),
    )) as [MlflowRun, MlflowRun];
    assert.deepEqual([a.id, b.id], [created[0]!.id, created[1]!.id]);
    const listed = await s.listMlflowCandidates(orgId, a.projectId);
    assert.deepEqual(
      listed.map((c) => [c.id, c.mlflowId, c.name, c.status, c.tags, c.mlflowTags, c.mlflowUserId, c.createdAt, c.config, c.deletedAt]),
      [
        [b.id, b.mlflowId, "b", "RUNNING", ["good"], [], "", T0 + 1, null, null],
        [a.id, a.mlflowId, "a", "RUNNING", [], [["t", "x"]], "ann", T0, { p: "1" }, null],
      ],
    );
    assert.deepEqual(await s.listMlflowCandidates(await newOrg(s), a.projectId), []);
  });

  it("lists the dataset inputs of a project's runs that have any, by run", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const a = (await s.createRun(orgId, runInput({ projectName: "inputs", name: "a" }), ACTOR)).run;
    const b = (await s.createRun(orgId, runInput({ projectName: "inputs", name: "b" }), ACTOR)).run;
    await s.createRun(orgId, runInput({ projectName: "inputs", name: "none" }), ACTOR);
    const elsewhere = (await s.createRun(orgId, runInput({ projectName: "other", name: "c" }), ACTOR)).run;
    for (const [run, inputs] of [
      [a, [{ dataset: { name: "d", digest: "1" } }]],
      [b, [{ dataset: { name: "e", digest: "2" } }, { dataset: { name: "f", digest: "3" } }]],
      [elsewhere, [{ dataset: { name: "g", digest: "4" } }]],
    ] as const)
      await s.updateRunMlflow(orgId, run.id, (state) => ({ ...state, mlflowInputs: inputs as never }), T0 + 1);
    const listed = await s.listMlflowInputs(orgId, a.projectId);
    assert.deepEqual(
      [...listed].sort(([x], [y]) => x - y),
      [
        [a.id, [{ dataset: { name: "d", digest: "1" } }]],
        [b.id, [{ dataset: { name: "e", digest: "2" } }, { dataset: { name: "f", digest: "3" } }]],
      ],
      "only the project's runs with inputs",
    );
    assert.deepEqual(await s.listMlflowInputs(await newOrg(s), a.projectId), new Map(), "another organization's project reads as empty");
  });
}
