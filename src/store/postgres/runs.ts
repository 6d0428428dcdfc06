import { formatDisplayId } from "../../domain/ids.js";
import type { Run } from "../store.js";
import { RUN_READ } from "../rows.js";
import { readAll, readOne, row, type Sql } from "./db.js";

export async function getRun(sql: Sql, orgId: string, runId: number): Promise<Run | undefined> {
  return readOne(sql, RUN_READ, "WHERE r.org_id = $1 AND r.id = $2 AND r.deleted_at IS NULL", [orgId, runId]);
}

export async function getRunProjectName(sql: Sql, orgId: string, runId: number): Promise<string | undefined> {
  const found = await row<{ name: string }>(
    sql,
    "SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = $1 AND r.id = $2 AND r.deleted_at IS NULL",
    [orgId, runId],
  );
  return found?.name;
}

/** Runs forked from a run, oldest first. */
export async function listForks(sql: Sql, orgId: string, runId: number): Promise<Run[]> {
  return readAll(sql, RUN_READ, "WHERE r.org_id = $1 AND r.forked_from_run_id = $2 AND r.deleted_at IS NULL ORDER BY r.id", [orgId, runId]);
}

export async function getRunByExternalId(sql: Sql, orgId: string, projectName: string, externalId: string): Promise<Run | undefined> {
  return readOne(sql, RUN_READ, "WHERE r.org_id = $1 AND p.name = $2 AND r.external_id = $3 AND r.deleted_at IS NULL", [
    orgId,
    projectName,
    externalId,
  ]);
}

export async function listRunsByDisplayId(sql: Sql, orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]> {
  const displayId = formatDisplayId(prefix, number);
  return projectName === undefined
    ? readAll(sql, RUN_READ, "WHERE r.org_id = $1 AND r.display_id = $2 AND r.deleted_at IS NULL ORDER BY r.id", [orgId, displayId])
    : readAll(sql, RUN_READ, "WHERE r.org_id = $1 AND r.display_id = $2 AND p.name = $3 AND r.deleted_at IS NULL ORDER BY r.id", [
        orgId,
        displayId,
        projectName,
      ]);
}
