import type { Json } from "../../domain/merge.js";
import { fromJsonText, MLFLOW_CANDIDATE_COLUMNS, MLFLOW_PROJECT_READ, MLFLOW_RUN_READ, toMlflowCandidate } from "../rows.js";
import type { MlflowCandidateRow } from "../rows.js";
import type { MlflowCandidate, MlflowProject, MlflowRun, MlflowRunRef } from "../store.js";
import { arrays, readOne, row, run, type Sql } from "./db.js";
import { projectNamed, projectOfId, projectsOf } from "./projects.js";
import { runsByIds } from "./run-list.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

/** With `lock` (MLflow's workflows), the project row is read FOR UPDATE. */
export async function getMlflowProject(sql: Sql, orgId: string, projectId: number, lock = false): Promise<MlflowProject | undefined> {
  return projectOfId(sql, MLFLOW_PROJECT_READ, orgId, projectId, lock);
}

export async function getMlflowProjectByName(sql: Sql, orgId: string, name: string): Promise<MlflowProject | undefined> {
  return projectNamed(sql, MLFLOW_PROJECT_READ, orgId, name);
}

export async function listMlflowProjects(sql: Sql, orgId: string): Promise<MlflowProject[]> {
  return projectsOf(sql, MLFLOW_PROJECT_READ, orgId);
}

export async function getMlflowDefaultProject(sql: Sql, orgId: string): Promise<MlflowProject | undefined> {
  return readOne(sql, MLFLOW_PROJECT_READ, "WHERE p.org_id = $1 AND p.mlflow_default = 1", [orgId]);
}

export async function getMlflowRunRef(sql: Sql, orgId: string, mlflowId: string): Promise<MlflowRunRef | undefined> {
  const found = await row<{ id: number; mlflow_id: string; deleted_at: number | null }>(
    sql,
    "SELECT id, mlflow_id, deleted_at FROM runs WHERE org_id = $1 AND mlflow_id = $2",
    [orgId, mlflowId],
  );
  return found && { id: found.id, mlflowId: found.mlflow_id, deletedAt: found.deleted_at };
}

export async function getRunByMlflowId(sql: Sql, orgId: string, mlflowId: string): Promise<MlflowRun | undefined> {
  return readOne(sql, MLFLOW_RUN_READ, "WHERE r.org_id = $1 AND r.mlflow_id = $2", [orgId, mlflowId]);
}

/** With `lock` (MLflow's workflows), the run row is read FOR UPDATE. */
export async function getMlflowRun(sql: Sql, orgId: string, runId: number, lock = false): Promise<MlflowRun | undefined> {
  return readOne(sql, MLFLOW_RUN_READ, lock ? "WHERE r.org_id = $1 AND r.id = $2 FOR UPDATE OF r" : "WHERE r.org_id = $1 AND r.id = $2", [
    orgId,
    runId,
  ]);
}

export async function getMlflowRuns(sql: Sql, orgId: string, runIds: number[]): Promise<MlflowRun[]> {
  return runsByIds(sql, MLFLOW_RUN_READ, orgId, runIds, false);
}

export async function listMlflowCandidates(sql: Sql, orgId: string, projectId: number): Promise<MlflowCandidate[]> {
  const found = await arrays<MlflowCandidateRow>(
    sql,
    `SELECT ${MLFLOW_CANDIDATE_COLUMNS} FROM runs r WHERE r.org_id = $1 AND r.project_id = $2 ORDER BY r.created_at DESC, r.id DESC`,
    [orgId, projectId],
  );
  return found.map(toMlflowCandidate);
}

export async function listMlflowInputs(sql: Sql, orgId: string, projectId: number): Promise<Map<number, Json>> {
  const found = await arrays<[number, string]>(
    sql,
    "SELECT r.id, r.mlflow_inputs FROM runs r WHERE r.org_id = $1 AND r.project_id = $2 AND r.mlflow_inputs IS NOT NULL",
    [orgId, projectId],
  );
  return new Map(found.map(([id, inputs]) => [id, fromJsonText<Json>(inputs)!]));
}

export async function deleteFile(sql: Sql, orgId: string, fileId: number): Promise<boolean> {
  return (await run(sql, "DELETE FROM files WHERE id = $1 AND run_id IN (SELECT id FROM runs WHERE org_id = $2)", [fileId, orgId])) > 0;
}
