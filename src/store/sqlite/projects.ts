import { displayPrefix } from "../../domain/ids.js";
import { PROJECT_READ, type ProjectRow, type RecordRead } from "../rows.js";
import type { Project } from "../store.js";
import { readAll, readOne, type Statements } from "./statements.js";

// The project reads, each as `read` maps the projects: the core record here, MLflow's experiment in mlflow.ts.

export function projectsOf<R, T>(s: Statements, read: RecordRead<R, T>, orgId: string): T[] {
  return readAll(s, read, "WHERE p.org_id = ? ORDER BY p.name", orgId);
}

export function projectNamed<R, T>(s: Statements, read: RecordRead<R, T>, orgId: string, name: string): T | undefined {
  return readOne(s, read, "WHERE p.org_id = ? AND p.name = ?", orgId, name);
}

export function projectOfId<R, T>(s: Statements, read: RecordRead<R, T>, orgId: string, projectId: number): T | undefined {
  return readOne(s, read, "WHERE p.org_id = ? AND p.id = ?", orgId, projectId);
}

// ProjectStore's reads: live projects only, a deleted one (in the trash) reads like an unknown one
// (docs/semantics.md, "Deletion"). The workflows' operations read deleted ones too (projectNamed, projectOfId).

export function listProjects(s: Statements, orgId: string): Project[] {
  return readAll(s, PROJECT_READ, "WHERE p.org_id = ? AND p.deleted_at IS NULL ORDER BY p.name", orgId);
}

export function getProjectByName(s: Statements, orgId: string, name: string): Project | undefined {
  return readOne(s, PROJECT_READ, "WHERE p.org_id = ? AND p.name = ? AND p.deleted_at IS NULL", orgId, name);
}

export function getProject(s: Statements, orgId: string, projectId: number): Project | undefined {
  return readOne(s, PROJECT_READ, "WHERE p.org_id = ? AND p.id = ? AND p.deleted_at IS NULL", orgId, projectId);
}

/** Must run inside the caller's write transaction, so a failed create leaves no project behind. */
export function getOrCreateProjectRow(s: Statements, orgId: string, name: string, now: number): ProjectRow {
  s.get(
    `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (org_id, name) DO NOTHING`,
  ).run(orgId, name, displayPrefix(name), now, now);
  return s.get("SELECT id, name, run_prefix, deleted_at FROM projects WHERE org_id = ? AND name = ?").get(orgId, name) as ProjectRow;
}
