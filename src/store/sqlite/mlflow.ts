import { MLFLOW_CANDIDATE_COLUMNS, SELECT_PROJECT_WITH_COUNT, SELECT_RUN, toMlflowCandidate, toProject, toRun } from "../rows.js";
import type { MlflowCandidateRow, ProjectWithCountRow, RunRow } from "../rows.js";
import type { MlflowCandidate, MlflowRunRef, Project, Run } from "../store.js";
import type { Statements } from "./statements.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

export function getProject(s: Statements, orgId: string, projectId: number): Project | undefined {
  const row = s.get(`${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = ? AND p.id = ?`).get(orgId, projectId) as
    | ProjectWithCountRow
    | undefined;
  return row && toProject(row);
}

export function getMlflowRunRef(s: Statements, orgId: string, mlflowId: string): MlflowRunRef | undefined {
  const row = s.get("SELECT id, mlflow_id, deleted_at FROM runs WHERE org_id = ? AND mlflow_id = ?").get(orgId, mlflowId) as
    | { id: number; mlflow_id: string; deleted_at: number | null }
    | undefined;
  return row && { id: row.id, mlflowId: row.mlflow_id, deletedAt: row.deleted_at };
}

export function getRunByMlflowId(s: Statements, orgId: string, mlflowId: string): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.mlflow_id = ?`).get(orgId, mlflowId) as RunRow | undefined;
  return row && toRun(row);
}

export function listMlflowCandidates(s: Statements, orgId: string, projectId: number): MlflowCandidate[] {
  const rows = s
    .get(`SELECT ${MLFLOW_CANDIDATE_COLUMNS} FROM runs r WHERE r.org_id = ? AND r.project_id = ? ORDER BY r.created_at DESC, r.id DESC`)
    .raw(true)
    .all(orgId, projectId) as MlflowCandidateRow[];
  return rows.map(toMlflowCandidate);
}

export function deleteFile(s: Statements, orgId: string, fileId: number): boolean {
  return s.get("DELETE FROM files WHERE id = ? AND run_id IN (SELECT id FROM runs WHERE org_id = ?)").run(fileId, orgId).changes > 0;
}
