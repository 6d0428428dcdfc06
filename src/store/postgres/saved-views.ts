import { SAVED_VIEW_READ, SAVED_VIEW_SUMMARY_READ } from "../rows.js";
import type { NewSavedView, SavedView, SavedViewSummary } from "../store.js";
import { readAll, readOne, row, run, type Sql } from "./db.js";

/** Saved views (SavedViewStore) in PostgreSQL's SQL. */

export async function insertSavedView(
  sql: Sql,
  orgId: string,
  projectId: number,
  input: NewSavedView,
  now: number,
): Promise<number | undefined> {
  // Selected from the organization's project: another organization's project inserts nothing.
  const inserted = await row<{ id: number }>(
    sql,
    `INSERT INTO saved_views (org_id, project_id, name, state, created_at, updated_at)
     SELECT $1, p.id, $2, $3, $4, $4 FROM projects p WHERE p.org_id = $1 AND p.id = $5 RETURNING id`,
    [orgId, input.name, input.stateText, now, projectId],
  );
  return inserted?.id;
}

export async function writeSavedView(
  sql: Sql,
  orgId: string,
  viewId: number,
  name: string | null,
  stateText: string | null,
  now: number,
): Promise<boolean> {
  const changed = await run(
    sql,
    "UPDATE saved_views SET name = coalesce($1, name), state = coalesce($2, state), updated_at = $3 WHERE org_id = $4 AND id = $5",
    [name, stateText, now, orgId, viewId],
  );
  return changed > 0;
}

export async function getSavedView(sql: Sql, orgId: string, viewId: number): Promise<SavedView | undefined> {
  return readOne(sql, SAVED_VIEW_READ, "WHERE v.org_id = $1 AND v.id = $2", [orgId, viewId]);
}

export async function listSavedViews(
  sql: Sql,
  orgId: string,
  projectId: number,
  page: { limit: number; offset: number },
): Promise<SavedViewSummary[]> {
  return readAll(
    sql,
    SAVED_VIEW_SUMMARY_READ,
    "WHERE v.org_id = $1 AND v.project_id = $2 ORDER BY v.created_at DESC, v.id DESC LIMIT $3 OFFSET $4",
    [orgId, projectId, page.limit, page.offset],
  );
}

export async function deleteSavedView(sql: Sql, orgId: string, viewId: number): Promise<boolean> {
  return (await run(sql, "DELETE FROM saved_views WHERE org_id = $1 AND id = $2", [orgId, viewId])) > 0;
}
