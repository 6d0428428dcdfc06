import assert from "node:assert/strict";
import { it } from "node:test";
import type { AccountStore, ProjectStore, SavedViewStore } from "../../../src/store/store.js";
import { newOrg, rejectsWith, T0, WRITERS } from "./backends.js";

/** SavedViewStore: named views of a project's page. Fixtures: projects (ProjectStore) in organizations (AccountStore). */
export function savedViewContract(store: () => SavedViewStore & ProjectStore & AccountStore): void {
  async function fixture() {
    const s = store();
    const orgId = await newOrg(s);
    const other = await newOrg(s);
    const project = await s.createProject(orgId, "vision", T0);
    const theirs = await s.createProject(other, "vision", T0);
    return { s, orgId, other, project, theirs };
  }

  it("creates a view with its state text as given, read back with its project's name, only in its organization", async () => {
    const { s, orgId, other, project, theirs } = await fixture();
    const stateText = '{"b":1,"a":[1,2]}';
    const created = await s.createSavedView(orgId, project.id, { name: "losses", stateText }, T0 + 5);
    assert.ok(created);
    assert.deepEqual(created, {
      id: created.id,
      projectId: project.id,
      projectName: "vision",
      name: "losses",
      createdAt: T0 + 5,
      updatedAt: T0 + 5,
      stateText,
    });
    assert.deepEqual(await s.getSavedView(orgId, created.id), created);
    assert.equal(await s.getSavedView(other, created.id), undefined, "another organization's view reads as absent");
    assert.deepEqual(await s.listSavedViews(other, theirs.id, { limit: 10, offset: 0 }), []);
    assert.deepEqual(await s.listSavedViews(other, project.id, { limit: 10, offset: 0 }), [], "nor through the project's ID");
    assert.equal(
      await s.createSavedView(other, project.id, { name: "x", stateText: "{}" }, T0),
      undefined,
      "nothing made in another's project",
    );
    assert.equal(await s.updateSavedView(other, created.id, { name: "mine" }, T0 + 6), undefined);
    assert.equal(await s.deleteSavedView(other, created.id), false);
    assert.deepEqual(await s.getSavedView(orgId, created.id), created, "another organization's update and delete changed nothing");
  });

  it("lists a project's views newest first, without their states, a page at a time", async () => {
    const { s, orgId, project } = await fixture();
    const second = await s.createProject(orgId, "nlp", T0);
    for (const [i, name] of ["a", "b", "c"].entries()) await s.createSavedView(orgId, project.id, { name, stateText: "{}" }, T0 + i);
    await s.createSavedView(orgId, second.id, { name: "elsewhere", stateText: "{}" }, T0 + 10);
    const listed = await s.listSavedViews(orgId, project.id, { limit: 10, offset: 0 });
    assert.deepEqual(
      listed.map((view) => view.name),
      ["c", "b", "a"],
    );
    assert.ok(
      listed.every((view) => !("stateText" in view)),
      "a list carries no state",
    );
    assert.deepEqual(
      (await s.listSavedViews(orgId, project.id, { limit: 2, offset: 1 })).map((view) => view.name),
      ["b", "a"],
    );
  });

  it("refuses a name the project has already, and takes it in another project", async () => {
    const { s, orgId, project } = await fixture();
    const second = await s.createProject(orgId, "nlp", T0);
    const first = (await s.createSavedView(orgId, project.id, { name: "losses", stateText: '{"v":1}' }, T0))!;
    await rejectsWith(s.createSavedView(orgId, project.id, { name: "losses", stateText: '{"v":2}' }, T0), "CONFLICT");
    assert.ok(await s.createSavedView(orgId, second.id, { name: "losses", stateText: "{}" }, T0));
    const other = (await s.createSavedView(orgId, project.id, { name: "accuracy", stateText: "{}" }, T0))!;
    await rejectsWith(s.updateSavedView(orgId, other.id, { name: "losses" }, T0 + 1), "CONFLICT");
    assert.equal((await s.getSavedView(orgId, other.id))?.name, "accuracy", "the refused rename wrote nothing");
    assert.equal((await s.getSavedView(orgId, first.id))?.stateText, '{"v":1}');
  });

  it("renames, replaces the state, or both; a field left out keeps its value", async () => {
    const { s, orgId, project } = await fixture();
    const view = (await s.createSavedView(orgId, project.id, { name: "v", stateText: '{"n":1}' }, T0))!;
    assert.deepEqual(await s.updateSavedView(orgId, view.id, { name: "w" }, T0 + 1), { ...view, name: "w", updatedAt: T0 + 1 });
    assert.deepEqual(await s.updateSavedView(orgId, view.id, { stateText: '{"n":2}' }, T0 + 2), {
      ...view,
      name: "w",
      stateText: '{"n":2}',
      updatedAt: T0 + 2,
    });
    assert.equal(await s.updateSavedView(orgId, view.id + 1000, { name: "x" }, T0), undefined);
    assert.equal(await s.deleteSavedView(orgId, view.id), true);
    assert.equal(await s.getSavedView(orgId, view.id), undefined);
    assert.equal(await s.deleteSavedView(orgId, view.id), false, "deleting twice finds nothing the second time");
  });

  it("of writers creating one name at once, exactly one succeeds; the others get CONFLICT", async () => {
    const { s, orgId, project } = await fixture();
    const results = await Promise.allSettled(
      Array.from({ length: WRITERS }, (_, i) => s.createSavedView(orgId, project.id, { name: "race", stateText: `{"i":${i}}` }, T0)),
    );
    assert.equal(results.filter((result) => result.status === "fulfilled").length, 1);
    for (const result of results) if (result.status === "rejected") assert.equal((result.reason as { code?: string }).code, "CONFLICT");
    assert.equal((await s.listSavedViews(orgId, project.id, { limit: 100, offset: 0 })).length, 1);
  });
}
