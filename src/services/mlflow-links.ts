import { DomainError, runNotFound } from "../domain/errors.js";
import { isMlflowRunId, parseExperimentId } from "../domain/mlflow/ids.js";
import type { Project, Run, Store } from "../store/store.js";

/**
 * Stepwise's project and run behind an MLflow experiment ID or run ID, for Stepwise's own routes:
 * the web UI opens the links MLflow's client prints (`#/experiments/<id>/runs/<run id>`) through
 * them. Reads only: "0" names the organization's default experiment once MLflow's protocol has
 * made it (services/mlflow.ts, defaultExperiment), and nothing before.
 */

/** The project an experiment ID names in the organization; PROJECT_NOT_FOUND when none. */
export async function projectOfExperimentId(store: Store, orgId: string, experimentId: string): Promise<Project> {
  const ref = parseExperimentId(experimentId);
  const project = !ref
    ? undefined
    : ref.default
      ? await store.getMlflowDefaultProject(orgId)
      : await store.getProject(orgId, ref.projectId);
  if (!project) throw new DomainError("PROJECT_NOT_FOUND", `no project is MLflow's experiment '${experimentId}'`);
  return project;
}

/** The run an MLflow run ID names in the organization; RUN_NOT_FOUND when none. */
export async function runOfMlflowRunId(store: Store, orgId: string, mlflowRunId: string): Promise<Run> {
  const ref = isMlflowRunId(mlflowRunId) ? await store.getMlflowRunRef(orgId, mlflowRunId) : undefined;
  const run = ref && (await store.getRun(orgId, ref.id));
  if (!run) throw runNotFound(mlflowRunId);
  return run;
}
