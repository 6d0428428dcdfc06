import { formatDisplayId } from "../../domain/ids.js";
import type { Run } from "../store.js";
import { SELECT_RUN, toRun, type RunRow } from "../rows.js";
import { row, rows, type Sql } from "./db.js";

export async function getRun(sql: Sql, orgId: string, runId: number): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.id = $2`, [orgId, runId]);
  return found && toRun(found);
}

export async function getRunProjectName(sql: Sql, orgId: string, runId: number): Promise<string | undefined> {
  const found = await row<{ name: string }>(
    sql,
    "SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = $1 AND r.id = $2",
    [orgId, runId],
  );
  return found?.name;
}

/** Runs forked from a run, oldest first. */
export async function listForks(sql: Sql, orgId: string, runId: number): Promise<Run[]> {
  return (await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.forked_from_run_id = $2 ORDER BY r.id`, [orgId, runId])).map(
    toRun,
  );
}

export async function getRunByExternalId(sql: Sql, orgId: string, projectName: string, externalId: string): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND p.name = $2 AND r.external_id = $3`, [
    orgId,
    projectName,
    externalId,
  ]);
  return found && toRun(found);
}

export async function listRunsByDisplayId(sql: Sql, orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]> {
  const displayId = formatDisplayId(prefix, number);
  const found =
    projectName === undefined
      ? await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.display_id = $2 ORDER BY r.id`, [orgId, displayId])
      : await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.display_id = $2 AND p.name = $3 ORDER BY r.id`, [
          orgId,
          displayId,
          projectName,
        ]);
  return found.map(toRun);
}
