import type { Json } from "../../domain/merge.js";
import { fromJsonText, MLFLOW_CANDIDATE_COLUMNS, MLFLOW_PROJECT_READ, MLFLOW_RUN_READ, toMlflowCandidate } from "../rows.js";
import type { MlflowCandidateRow } from "../rows.js";
import type { MlflowCandidate, MlflowProject, MlflowRun, MlflowRunRef } from "../store.js";
import { projectNamed, projectOfId, projectsOf } from "./projects.js";
import { runsByIds } from "./run-list.js";
import { readOne, type Statements } from "./statements.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

export function getMlflowProject(s: Statements, orgId: string, projectId: number): MlflowProject | undefined {
  return projectOfId(s, MLFLOW_PROJECT_READ, orgId, projectId);
}

export function getMlflowProjectByName(s: Statements, orgId: string, name: string): MlflowProject | undefined {
  return projectNamed(s, MLFLOW_PROJECT_READ, orgId, name);
}

export function listMlflowProjects(s: Statements, orgId: string): MlflowProject[] {
  return projectsOf(s, MLFLOW_PROJECT_READ, orgId);
}

export function getMlflowDefaultProject(s: Statements, orgId: string): MlflowProject | undefined {
  return readOne(s, MLFLOW_PROJECT_READ, "WHERE p.org_id = ? AND p.mlflow_default = 1", orgId);
}

export function getMlflowRunRef(s: Statements, orgId: string, mlflowId: string): MlflowRunRef | undefined {
  const row = s.get("SELECT id, mlflow_id, deleted_at FROM runs WHERE org_id = ? AND mlflow_id = ?").get(orgId, mlflowId) as
    | { id: number; mlflow_id: string; deleted_at: number | null }
    | undefined;
  return row && { id: row.id, mlflowId: row.mlflow_id, deletedAt: row.deleted_at };
}

export function getRunByMlflowId(s: Statements, orgId: string, mlflowId: string): MlflowRun | undefined {
  return readOne(s, MLFLOW_RUN_READ, "WHERE r.org_id = ? AND r.mlflow_id = ?", orgId, mlflowId);
}

export function getMlflowRun(s: Statements, orgId: string, runId: number): MlflowRun | undefined {
  return readOne(s, MLFLOW_RUN_READ, "WHERE r.org_id = ? AND r.id = ?", orgId, runId);
}

export function getMlflowRuns(s: Statements, orgId: string, runIds: number[]): MlflowRun[] {
  return runsByIds(s, MLFLOW_RUN_READ, orgId, runIds, false);
}

export function listMlflowCandidates(s: Statements, orgId: string, projectId: number): MlflowCandidate[] {
  const rows = s
    .get(`SELECT ${MLFLOW_CANDIDATE_COLUMNS} FROM runs r WHERE r.org_id = ? AND r.project_id = ? ORDER BY r.created_at DESC, r.id DESC`)
    .raw(true)
    .all(orgId, projectId) as MlflowCandidateRow[];
  return rows.map(toMlflowCandidate);
}

export function listMlflowInputs(s: Statements, orgId: string, projectId: number): Map<number, Json> {
  const rows = s
    .get("SELECT r.id, r.mlflow_inputs FROM runs r WHERE r.org_id = ? AND r.project_id = ? AND r.mlflow_inputs IS NOT NULL")
    .raw(true)
    .all(orgId, projectId) as [number, string][];
  return new Map(rows.map(([id, inputs]) => [id, fromJsonText<Json>(inputs)!]));
}

export function deleteFile(s: Statements, orgId: string, fileId: number): boolean {
  return s.get("DELETE FROM files WHERE id = ? AND run_id IN (SELECT id FROM runs WHERE org_id = ?)").run(fileId, orgId).changes > 0;
}
