import { SAVED_VIEW_READ, SAVED_VIEW_SUMMARY_READ } from "../rows.js";
import type { NewSavedView, SavedView, SavedViewSummary } from "../store.js";
import { readAll, readOne, type Statements } from "./statements.js";

/** Saved views (SavedViewStore) in SQLite's SQL. */

export function insertSavedView(s: Statements, orgId: string, projectId: number, input: NewSavedView, now: number): number | undefined {
  // Selected from the organization's project: another organization's project inserts nothing.
  const row = s
    .get(
      `INSERT INTO saved_views (org_id, project_id, name, state, created_at, updated_at)
       SELECT ?, p.id, ?, ?, ?, ? FROM projects p WHERE p.org_id = ? AND p.id = ? RETURNING id`,
    )
    .get(orgId, input.name, input.stateText, now, now, orgId, projectId) as { id: number } | undefined;
  return row?.id;
}

export function writeSavedView(
  s: Statements,
  orgId: string,
  viewId: number,
  name: string | null,
  stateText: string | null,
  now: number,
): boolean {
  const { changes } = s
    .get("UPDATE saved_views SET name = coalesce(?, name), state = coalesce(?, state), updated_at = ? WHERE org_id = ? AND id = ?")
    .run(name, stateText, now, orgId, viewId);
  return changes > 0;
}

export function getSavedView(s: Statements, orgId: string, viewId: number): SavedView | undefined {
  return readOne(s, SAVED_VIEW_READ, "WHERE v.org_id = ? AND v.id = ?", orgId, viewId);
}

export function listSavedViews(
  s: Statements,
  orgId: string,
  projectId: number,
  page: { limit: number; offset: number },
): SavedViewSummary[] {
  return readAll(
    s,
    SAVED_VIEW_SUMMARY_READ,
    "WHERE v.org_id = ? AND v.project_id = ? ORDER BY v.created_at DESC, v.id DESC LIMIT ? OFFSET ?",
    orgId,
    projectId,
    page.limit,
    page.offset,
  );
}

export function deleteSavedView(s: Statements, orgId: string, viewId: number): boolean {
  return s.get("DELETE FROM saved_views WHERE org_id = ? AND id = ?").run(orgId, viewId).changes > 0;
}
