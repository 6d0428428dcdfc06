import { displayPrefix } from "../../domain/ids.js";
import { SELECT_PROJECT_WITH_COUNT, toProject, type ProjectRow, type ProjectWithCountRow } from "../rows.js";
import type { Project } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";

export async function listProjects(sql: Sql, orgId: string): Promise<Project[]> {
  return (await rows<ProjectWithCountRow>(sql, `${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = $1 ORDER BY p.name`, [orgId])).map(toProject);
}

export async function getProjectByName(sql: Sql, orgId: string, name: string): Promise<Project | undefined> {
  const found = await row<ProjectWithCountRow>(sql, `${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = $1 AND p.name = $2`, [orgId, name]);
  return found && toProject(found);
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
