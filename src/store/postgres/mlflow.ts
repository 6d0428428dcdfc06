import { DomainError } from "../../domain/errors.js";
import { displayPrefix } from "../../domain/ids.js";
import type { Json } from "../../domain/merge.js";
import {
  MLFLOW_CANDIDATE_COLUMNS,
  SELECT_PROJECT_WITH_COUNT,
  SELECT_RUN,
  toJsonText,
  toMlflowCandidate,
  toProject,
  toRun,
  type MlflowCandidateRow,
  type ProjectWithCountRow,
  type RunRow,
} from "../rows.js";
import type { MlflowCandidate, MlflowRunRef, Project, ProjectMlflowState, Run, RunMlflowState } from "../store.js";
import { arrays, row, run, type Sql } from "./db.js";
import { UNIQUE_VIOLATION } from "./organizations.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === UNIQUE_VIOLATION;

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

/** Must run inside a transaction. */
export async function createProject(sql: Sql, orgId: string, name: string, now: number): Promise<Project> {
  const inserted = await row<{ id: number }>(
    sql,
    `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, name) DO NOTHING RETURNING id`,
    [orgId, name, displayPrefix(name), now, now],
  );
  if (!inserted) throw new DomainError("CONFLICT", `project '${name}' already exists`);
  return (await getProject(sql, orgId, inserted.id))!;
}

/** Must run inside a transaction: the project row is locked while `change` decides. */
export async function updateProjectMlflow(
  sql: Sql,
  orgId: string,
  projectId: number,
  change: (state: ProjectMlflowState) => ProjectMlflowState,
  now: number,
): Promise<Project | undefined> {
  const project = await getProject(sql, orgId, projectId, true);
  if (!project) return undefined;
  const next = change({ name: project.name, mlflowTags: project.mlflowTags, deletedAt: project.deletedAt });
  try {
    await run(sql, "UPDATE projects SET name = $1, mlflow_tags = $2, deleted_at = $3, updated_at = $4 WHERE id = $5", [
      next.name,
      JSON.stringify(next.mlflowTags),
      next.deletedAt,
      now,
      projectId,
    ]);
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("CONFLICT", `project '${next.name}' already exists`);
    throw error;
  }
  if ((next.deletedAt === null) !== (project.deletedAt === null))
    await run(sql, "UPDATE runs SET deleted_at = $1, updated_at = $2 WHERE project_id = $3", [next.deletedAt, now, projectId]);
  return getProject(sql, orgId, projectId);
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

/** Must run inside a transaction: the run row is locked while `change` decides (write-once params, tags). */
export async function updateRunMlflow(
  sql: Sql,
  orgId: string,
  runId: number,
  change: (state: RunMlflowState) => RunMlflowState,
  now: number,
): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.id = $2 FOR UPDATE OF r`, [orgId, runId]);
  if (!found) return undefined;
  const current = toRun(found);
  const next = change({
    name: current.name,
    config: current.config,
    mlflowTags: current.mlflowTags,
    mlflowInputs: current.mlflowInputs,
    deletedAt: current.deletedAt,
  });
  await run(
    sql,
    "UPDATE runs SET name = $1, config = $2, mlflow_tags = $3, mlflow_inputs = $4, deleted_at = $5, updated_at = $6 WHERE id = $7",
    [
      next.name,
      toJsonText(next.config),
      JSON.stringify(next.mlflowTags),
      toJsonText(next.mlflowInputs as Json | null),
      next.deletedAt,
      now,
      runId,
    ],
  );
  return toRun((await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.id = $2`, [orgId, runId]))!);
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
