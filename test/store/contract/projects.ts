import assert from "node:assert/strict";
import { it } from "node:test";
import type { AccountStore, ProjectStore, RunStore } from "../../../src/store/store.js";
import { ACTOR, newOrg, runInput } from "./backends.js";

/**
 * ProjectStore: an organization's projects. Fixtures: runs (RunStore, whose first run creates its
 * project) in organizations (AccountStore). Creating empty projects is tested with MLflow's
 * experiments (mlflow.ts), run numbering per project with runs (runs.ts).
 */
export function projectContract(store: () => ProjectStore & RunStore & AccountStore): void {
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
