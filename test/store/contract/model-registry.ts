import assert from "node:assert/strict";
import { it } from "node:test";
import type { AccountStore, ModelRegistryStore, NewModelVersion } from "../../../src/store/store.js";
import { newOrg, rejectsWith, T0, WRITERS } from "./backends.js";

const version = (overrides: Partial<NewModelVersion> = {}): NewModelVersion => ({
  description: "",
  userId: "alice",
  stage: "None",
  source: "mlflow-artifacts:/1/abc/artifacts/model",
  storageLocation: "mlflow-artifacts:/1/abc/artifacts/model",
  runId: "abc",
  runLink: "",
  status: "READY",
  tags: [],
  ...overrides,
});

const model = (name: string) => ({ name, description: "", tags: [] as [string, string][], aliases: [] as [string, number][] });

/** ModelRegistryStore: MLflow's registered models and their versions. */
export function modelRegistryContract(store: () => AccountStore & ModelRegistryStore): void {
  it("creates a model once per organization and name; another organization sees none of it", async () => {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const created = await s.createRegisteredModel(orgId, { ...model("m"), description: "d", tags: [["k", "v"]] }, T0);
    assert.deepEqual(
      [created.name, created.description, created.tags, created.aliases, created.lastVersion, created.createdAt, created.updatedAt],
      ["m", "d", [["k", "v"]], [], 0, T0, T0],
    );
    await rejectsWith(s.createRegisteredModel(orgId, model("m"), T0), "CONFLICT");
    assert.deepEqual(await s.getRegisteredModel(orgId, "m"), created);
    assert.equal(await s.getRegisteredModel(other, "m"), undefined);
    assert.deepEqual(await s.listRegisteredModels(other), []);
    await s.createRegisteredModel(other, model("m"), T0);
    assert.equal(await s.createModelVersion(other, "nope", version(), T0), undefined);
    await s.createModelVersion(orgId, "m", version(), T0);
    assert.deepEqual(await s.listModelVersions(other), []);
    assert.equal(await s.getModelVersion(other, "m", 1), undefined);
    assert.equal(await s.updateRegisteredModel(other, "nope", (m, v) => ({ model: m, versions: v }), T0), undefined);
    assert.deepEqual(
      (await s.listRegisteredModels(orgId)).map((m) => m.name),
      ["m"],
    );
  });

  it("numbers versions 1, 2, … and never gives a deleted version's number again", async () => {
    const s = store();
    const orgId = await newOrg(s);
    await s.createRegisteredModel(orgId, model("m"), T0);
    const first = await s.createModelVersion(orgId, "m", version({ tags: [["a", "1"]], description: "first" }), T0 + 1);
    assert.deepEqual(
      [first?.modelName, first?.version, first?.tags, first?.description, first?.userId, first?.stage, first?.createdAt],
      ["m", 1, [["a", "1"]], "first", "alice", "None", T0 + 1],
    );
    assert.equal((await s.getRegisteredModel(orgId, "m"))?.updatedAt, T0 + 1, "a new version dates its model");
    assert.equal((await s.createModelVersion(orgId, "m", version(), T0 + 2))?.version, 2);
    await s.updateRegisteredModel(orgId, "m", (m, versions) => ({ model: m, versions: versions.filter((v) => v.version !== 2) }), T0 + 3);
    assert.deepEqual(
      (await s.listModelVersions(orgId, "m")).map((v) => v.version),
      [1],
    );
    assert.equal((await s.createModelVersion(orgId, "m", version(), T0 + 4))?.version, 3);
    assert.deepEqual(await s.getModelVersion(orgId, "m", 1), first);
  });

  it(`gives ${WRITERS} concurrent creators distinct, consecutive numbers`, async () => {
    const s = store();
    const orgId = await newOrg(s);
    await s.createRegisteredModel(orgId, model("m"), T0);
    const created = await Promise.all(Array.from({ length: WRITERS }, () => s.createModelVersion(orgId, "m", version(), T0)));
    assert.deepEqual(
      created.map((v) => v!.version).sort((a, b) => a - b),
      Array.from({ length: WRITERS }, (_, i) => i + 1),
    );
  });

  it("writes what a change decides: renamed with its versions, a version's stage, the model dated; a refused rename writes nothing", async () => {
    const s = store();
    const orgId = await newOrg(s);
    await s.createRegisteredModel(orgId, model("a"), T0);
    await s.createRegisteredModel(orgId, model("b"), T0);
    await s.createModelVersion(orgId, "a", version(), T0);
    const entry = await s.updateRegisteredModel(
      orgId,
      "a",
      (m, versions) => ({
        model: { ...m, name: "c", aliases: [["best", 1]] },
        versions: versions.map((v) => ({ ...v, stage: "Production", tags: [["x", "y"]] })),
      }),
      T0 + 5,
    );
    assert.deepEqual([entry?.model?.name, entry?.model?.aliases, entry?.model?.updatedAt], ["c", [["best", 1]], T0 + 5]);
    assert.deepEqual(
      entry?.versions.map((v) => [v.modelName, v.version, v.stage, v.tags, v.updatedAt]),
      [["c", 1, "Production", [["x", "y"]], T0 + 5]],
    );
    assert.equal(await s.getRegisteredModel(orgId, "a"), undefined);
    assert.deepEqual(await s.getModelVersion(orgId, "c", 1), entry?.versions[0]);

    await rejectsWith(
      s.updateRegisteredModel(
        orgId,
        "c",
        (m, versions) => ({ model: { ...m, name: "b" }, versions: versions.map((v) => ({ ...v, stage: "Archived" })) }),
        T0 + 6,
      ),
      "CONFLICT",
    );
    assert.equal((await s.getModelVersion(orgId, "c", 1))?.stage, "Production", "nothing of a refused change is written");
    await assert.rejects(
      s.updateRegisteredModel(
        orgId,
        "c",
        () => {
          throw new Error("refused");
        },
        T0 + 7,
      ),
      /refused/,
    );
    assert.equal((await s.getRegisteredModel(orgId, "c"))?.updatedAt, T0 + 5);
  });

  it("deletes a model with its versions; its name is free again, numbered from 1", async () => {
    const s = store();
    const orgId = await newOrg(s);
    await s.createRegisteredModel(orgId, model("m"), T0);
    await s.createModelVersion(orgId, "m", version(), T0);
    const entry = await s.updateRegisteredModel(orgId, "m", () => ({ model: null, versions: [] }), T0 + 1);
    assert.deepEqual(entry, { model: null, versions: [] });
    assert.equal(await s.getRegisteredModel(orgId, "m"), undefined);
    assert.deepEqual(await s.listModelVersions(orgId), []);
    await s.createRegisteredModel(orgId, model("m"), T0 + 2);
    assert.equal((await s.createModelVersion(orgId, "m", version(), T0 + 3))?.version, 1);
  });
}
