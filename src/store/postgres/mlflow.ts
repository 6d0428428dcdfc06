import { MLFLOW_CANDIDATE_COLUMNS, SELECT_PROJECT_WITH_COUNT, SELECT_RUN, toMlflowCandidate, toProject, toRun } from "../rows.js";
import type { MlflowCandidateRow, ProjectWithCountRow, RunRow } from "../rows.js";
import type { MlflowCandidate, MlflowRunRef, Project, Run } from "../store.js";
import { arrays, row, run, type Sql } from "./db.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

export async function getProject(sql: Sql, orgId: string, projectId: number, lock = false): Promise<Project | undefined> {
  const found = await row<ProjectWithCountRow>(
    sql,
    lock
      ? `${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = $1 AND p.id = $2 FOR UPDATE OF p`
      : `${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = $1 AND p.id = $2`,
    [orgId, projectId],
  );
  return found && toProject(found);
}

export async function getMlflowRunRef(sql: Sql, orgId: string, mlflowId: string): Promise<MlflowRunRef | undefined> {
  const found = await row<{ id: number; mlflow_id: string; deleted_at: number | null }>(
    sql,
    "SELECT id, mlflow_id, deleted_at FROM runs WHERE org_id = $1 AND mlflow_id = $2",
    [orgId, mlflowId],
  );
  return found && { id: found.id, mlflowId: found.mlflow_id, deletedAt: found.deleted_at };
}

export async function getRunByMlflowId(sql: Sql, orgId: string, mlflowId: string): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.mlflow_id = $2`, [orgId, mlflowId]);
  return found && toRun(found);
}

export async function listMlflowCandidates(sql: Sql, orgId: string, projectId: number): Promise<MlflowCandidate[]> {
  const found = await arrays<MlflowCandidateRow>(
    sql,
    `SELECT ${MLFLOW_CANDIDATE_COLUMNS} FROM runs r WHERE r.org_id = $1 AND r.project_id = $2 ORDER BY r.created_at DESC, r.id DESC`,
    [orgId, projectId],
  );
  return found.map(toMlflowCandidate);
}

export async function deleteFile(sql: Sql, orgId: string, fileId: number): Promise<boolean> {
  return (await run(sql, "DELETE FROM files WHERE id = $1 AND run_id IN (SELECT id FROM runs WHERE org_id = $2)", [fileId, orgId])) > 0;
}
