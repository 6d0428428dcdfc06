import { LOGGED_MODEL_READ } from "../rows.js";
import type { LoggedModel, LoggedModelState, NewLoggedModel } from "../store.js";
import { loggedModelStateValues, loggedModelValues } from "../workflows/logged-models.js";
import { readOne, type Statements } from "./statements.js";

/** MLflow 3's logged models (LoggedModelStore) in SQLite's SQL. */

export function createLoggedModel(s: Statements, orgId: string, input: NewLoggedModel): LoggedModel | undefined {
  // The project and the source run must be the organization's: otherwise nothing is inserted.
  const inserted = s
    .get(
      `INSERT INTO mlflow_logged_models (id, org_id, project_id, name, model_type, source_run_id, status, params, tags, created_at, updated_at)
       SELECT ?, ?, p.id, ?, ?, ?, 'PENDING', ?, ?, ?, ?
       FROM projects p
       WHERE p.org_id = ? AND p.id = ? AND (? IS NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.org_id = p.org_id AND r.id = ?))`,
    )
    .run(...loggedModelValues(orgId, input), input.now, orgId, input.projectId, input.sourceRunId, input.sourceRunId);
  return inserted.changes === 0 ? undefined : getLoggedModel(s, orgId, input.id);
}

export function getLoggedModel(s: Statements, orgId: string, modelId: string): LoggedModel | undefined {
  return readOne(s, LOGGED_MODEL_READ, "WHERE m.org_id = ? AND m.id = ?", orgId, modelId);
}

export function listLoggedModels(s: Statements, orgId: string, projectIds: number[]): LoggedModel[] {
  if (projectIds.length === 0) return [];
  const rows = s
    .get(
      `${LOGGED_MODEL_READ.select} WHERE m.org_id = ? AND m.project_id IN (SELECT value FROM json_each(?)) AND m.deleted_at IS NULL
       ORDER BY m.created_at DESC, m.id`,
    )
    .all(orgId, JSON.stringify(projectIds)) as Parameters<typeof LOGGED_MODEL_READ.toRecord>[0][];
  return rows.map(LOGGED_MODEL_READ.toRecord);
}

export function writeLoggedModel(s: Statements, modelId: string, state: LoggedModelState, now: number): void {
  s.get("UPDATE mlflow_logged_models SET status = ?, params = ?, tags = ?, deleted_at = ?, updated_at = ? WHERE id = ?").run(
    ...loggedModelStateValues(modelId, state, now),
  );
}
