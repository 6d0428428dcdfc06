import { formatDisplayId } from "../../domain/ids.js";
import type { Run } from "../store.js";
import { SELECT_RUN, toRun, type RunRow } from "../rows.js";
import type { Statements } from "./statements.js";

export function getRun(s: Statements, orgId: string, runId: number): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.id = ?`).get(orgId, runId) as RunRow | undefined;
  return row && toRun(row);
}

export function getRunProjectName(s: Statements, orgId: string, runId: number): string | undefined {
  const row = s.get("SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = ? AND r.id = ?").get(orgId, runId) as
    | { name: string }
    | undefined;
  return row?.name;
}

/** Runs forked from a run, oldest first. */
export function listForks(s: Statements, orgId: string, runId: number): Run[] {
  const rows = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.forked_from_run_id = ? ORDER BY r.id`).all(orgId, runId) as RunRow[];
  return rows.map(toRun);
}

export function getRunByExternalId(s: Statements, orgId: string, projectName: string, externalId: string): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND p.name = ? AND r.external_id = ?`).get(orgId, projectName, externalId) as
    | RunRow
    | undefined;
  return row && toRun(row);
}

export function listRunsByDisplayId(s: Statements, orgId: string, prefix: string, number: number, projectName?: string): Run[] {
  const displayId = formatDisplayId(prefix, number);
  const rows =
    projectName === undefined
      ? s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.display_id = ? ORDER BY r.id`).all(orgId, displayId)
      : s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.display_id = ? AND p.name = ? ORDER BY r.id`).all(orgId, displayId, projectName);
  return (rows as RunRow[]).map(toRun);
}
