import { LOGGED_MODEL_READ, type LoggedModelRow } from "../rows.js";
import type { LoggedModel, LoggedModelState, NewLoggedModel } from "../store.js";
import { loggedModelStateValues, loggedModelValues } from "../workflows/logged-models.js";
import { readOne, rows, run, type Sql } from "./db.js";

/** MLflow 3's logged models (LoggedModelStore) in PostgreSQL's SQL. */

export async function createLoggedModel(sql: Sql, orgId: string, input: NewLoggedModel): Promise<LoggedModel | undefined> {
  // The project and the source run must be the organization's: otherwise nothing is inserted.
  const inserted = await run(
    sql,
    `INSERT INTO mlflow_logged_models (id, org_id, project_id, name, model_type, source_run_id, status, params, tags, created_at, updated_at)
     SELECT $1, $2, p.id, $3, $4, $5::bigint, 'PENDING', $6, $7, $8, $8
     FROM projects p
     WHERE p.org_id = $2 AND p.id = $9 AND ($5::bigint IS NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.org_id = p.org_id AND r.id = $5::bigint))`,
    [...loggedModelValues(orgId, input), input.projectId],
  );
  return inserted === 0 ? undefined : getLoggedModel(sql, orgId, input.id);
}

/** With `lock` (the update workflow), the model row is read FOR UPDATE. */
export async function getLoggedModel(sql: Sql, orgId: string, modelId: string, lock = false): Promise<LoggedModel | undefined> {
  return readOne(sql, LOGGED_MODEL_READ, `WHERE m.org_id = $1 AND m.id = $2${lock ? " FOR UPDATE OF m" : ""}`, [orgId, modelId]);
}

export async function listLoggedModels(sql: Sql, orgId: string, projectIds: number[]): Promise<LoggedModel[]> {
  if (projectIds.length === 0) return [];
  const found = await rows<LoggedModelRow>(
    sql,
    `${LOGGED_MODEL_READ.select} WHERE m.org_id = $1 AND m.project_id = ANY($2::bigint[]) AND m.deleted_at IS NULL
     ORDER BY m.created_at DESC, m.id`,
    [orgId, projectIds],
  );
  return found.map(LOGGED_MODEL_READ.toRecord);
}

export async function writeLoggedModel(sql: Sql, modelId: string, state: LoggedModelState, now: number): Promise<void> {
  await run(
    sql,
    "UPDATE mlflow_logged_models SET status = $1, params = $2, tags = $3, deleted_at = $4, updated_at = $5 WHERE id = $6",
    loggedModelStateValues(modelId, state, now),
  );
}
