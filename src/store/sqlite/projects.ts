import { displayPrefix } from "../../domain/ids.js";
import { SELECT_PROJECT_WITH_COUNT, toProject, type ProjectRow, type ProjectWithCountRow } from "../rows.js";
import type { Project } from "../store.js";
import type { Statements } from "./statements.js";

export function listProjects(s: Statements, orgId: string): Project[] {
  return (s.get(`${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = ? ORDER BY p.name`).all(orgId) as ProjectWithCountRow[]).map(toProject);
}

export function getProjectByName(s: Statements, orgId: string, name: string): Project | undefined {
  const row = s.get(`${SELECT_PROJECT_WITH_COUNT} WHERE p.org_id = ? AND p.name = ?`).get(orgId, name) as ProjectWithCountRow | undefined;
  return row && toProject(row);
}

/** Must run inside the caller's write transaction, so a failed create leaves no project behind. */
export function getOrCreateProjectRow(s: Statements, orgId: string, name: string, now: number): ProjectRow {
  s.get(
    `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id, name) DO NOTHING`,
  ).run(orgId, name, displayPrefix(name), now, now);
  return s.get("SELECT id, name, run_prefix, deleted_at FROM projects WHERE org_id = ? AND name = ?").get(orgId, name) as ProjectRow;
}
