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
import type { Statements } from "./statements.js";

/** What MLflow's protocol reads and writes beside Stepwise's own fields (Store, "MLflow's protocol"). */

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE";

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

/** Must run inside a write transaction. */
export function createProject(s: Statements, orgId: string, name: string, now: number): Project {
  try {
    const result = s
      .get("INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run(orgId, name, displayPrefix(name), now, now);
    return getProject(s, orgId, Number(result.lastInsertRowid))!;
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("CONFLICT", `project '${name}' already exists`);
    throw error;
  }
}

/** Must run inside a write transaction. */
export function updateProjectMlflow(
  s: Statements,
  orgId: string,
  projectId: number,
  change: (state: ProjectMlflowState) => ProjectMlflowState,
  now: number,
): Project | undefined {
  const project = getProject(s, orgId, projectId);
  if (!project) return undefined;
  const next = change({ name: project.name, mlflowTags: project.mlflowTags, deletedAt: project.deletedAt });
  try {
    s.get("UPDATE projects SET name = ?, mlflow_tags = ?, deleted_at = ?, updated_at = ? WHERE id = ?").run(
      next.name,
      JSON.stringify(next.mlflowTags),
      next.deletedAt,
      now,
      projectId,
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("CONFLICT", `project '${next.name}' already exists`);
    throw error;
  }
  if ((next.deletedAt === null) !== (project.deletedAt === null))
    s.get("UPDATE runs SET deleted_at = ?, updated_at = ? WHERE project_id = ?").run(next.deletedAt, now, projectId);
  return getProject(s, orgId, projectId);
}

export function getRunByMlflowId(s: Statements, orgId: string, mlflowId: string): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.mlflow_id = ?`).get(orgId, mlflowId) as RunRow | undefined;
  return row && toRun(row);
}

/** Must run inside a write transaction. */
export function updateRunMlflow(
  s: Statements,
  orgId: string,
  runId: number,
  change: (state: RunMlflowState) => RunMlflowState,
  now: number,
): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.id = ?`).get(orgId, runId) as RunRow | undefined;
  if (!row) return undefined;
  const run = toRun(row);
  const next = change({
    name: run.name,
    config: run.config,
    mlflowTags: run.mlflowTags,
    mlflowInputs: run.mlflowInputs,
    deletedAt: run.deletedAt,
  });
  s.get("UPDATE runs SET name = ?, config = ?, mlflow_tags = ?, mlflow_inputs = ?, deleted_at = ?, updated_at = ? WHERE id = ?").run(
    next.name,
    toJsonText(next.config),
    JSON.stringify(next.mlflowTags),
    toJsonText(next.mlflowInputs as Json | null),
    next.deletedAt,
    now,
    runId,
  );
  return toRun(s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.id = ?`).get(orgId, runId) as RunRow);
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
