import { displayPrefix } from "../../domain/ids.js";
import { PROJECT_READ, type ProjectRow, type RecordRead } from "../rows.js";
import type { Project } from "../store.js";
import { readAll, readOne, row, run, type Sql } from "./db.js";

// The project reads, each as `read` maps the projects: the core record here, MLflow's experiment in mlflow.ts.

export async function projectsOf<R, T>(sql: Sql, read: RecordRead<R, T>, orgId: string): Promise<T[]> {
  return readAll(sql, read, "WHERE p.org_id = $1 ORDER BY p.name", [orgId]);
}

export async function projectNamed<R, T>(sql: Sql, read: RecordRead<R, T>, orgId: string, name: string): Promise<T | undefined> {
  return readOne(sql, read, "WHERE p.org_id = $1 AND p.name = $2", [orgId, name]);
}

/** With `lock`, the project row is read FOR UPDATE. */
export async function projectOfId<R, T>(
  sql: Sql,
  read: RecordRead<R, T>,
  orgId: string,
  projectId: number,
  lock = false,
): Promise<T | undefined> {
  return readOne(sql, read, lock ? "WHERE p.org_id = $1 AND p.id = $2 FOR UPDATE OF p" : "WHERE p.org_id = $1 AND p.id = $2", [
    orgId,
    projectId,
  ]);
}

// ProjectStore's reads: live projects only, a deleted one (in the trash) reads like an unknown one
// (docs/semantics.md, "Deletion"). The workflows' operations read deleted ones too (projectNamed, projectOfId).

export async function listProjects(sql: Sql, orgId: string): Promise<Project[]> {
  return readAll(sql, PROJECT_READ, "WHERE p.org_id = $1 AND p.deleted_at IS NULL ORDER BY p.name", [orgId]);
}

export async function getProjectByName(sql: Sql, orgId: string, name: string): Promise<Project | undefined> {
  return readOne(sql, PROJECT_READ, "WHERE p.org_id = $1 AND p.name = $2 AND p.deleted_at IS NULL", [orgId, name]);
}

export async function getProject(sql: Sql, orgId: string, projectId: number): Promise<Project | undefined> {
  return readOne(sql, PROJECT_READ, "WHERE p.org_id = $1 AND p.id = $2 AND p.deleted_at IS NULL", [orgId, projectId]);
}

/**
 * Must run inside the caller's transaction, so a failed create leaves no project behind. Two
 * creates of one new project: the second INSERT waits for the first to commit and then does
 * nothing, and the SELECT (a fresh snapshot under READ COMMITTED) sees the committed row.
 */
export async function getOrCreateProjectRow(sql: Sql, orgId: string, name: string, now: number): Promise<ProjectRow> {
  await run(
    sql,
    `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, name) DO NOTHING`,
    [orgId, name, displayPrefix(name), now, now],
  );
  return (await row<ProjectRow>(sql, "SELECT id, name, run_prefix, deleted_at FROM projects WHERE org_id = $1 AND name = $2", [
    orgId,
    name,
  ]))!;
}

/**
 * The project's next run number. UPDATE … RETURNING takes the project row's lock until the
 * transaction ends, so concurrent creates each get their own number; a rolled-back create leaves
 * a gap, which is allowed. It returns the row as it is once locked, so a delete that committed
 * while the create waited is seen and the create rolls back.
 */
export async function takeRunNumber(sql: Sql, projectId: number, now: number): Promise<{ number: number; deletedAt: number | null }> {
  const taken = await row<{ number: number; deleted_at: number | null }>(
    sql,
    "UPDATE projects SET next_number = next_number + 1, updated_at = $1 WHERE id = $2 RETURNING next_number - 1 AS number, deleted_at",
    [now, projectId],
  );
  return { number: taken!.number, deletedAt: taken!.deleted_at };
}
