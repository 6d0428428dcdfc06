import { formatDisplayId } from "../../domain/ids.js";
import type { Run } from "../store.js";
import { RUN_READ } from "../rows.js";
import { readAll, readOne, type Statements } from "./statements.js";

export function getRun(s: Statements, orgId: string, runId: number): Run | undefined {
  return readOne(s, RUN_READ, "WHERE r.org_id = ? AND r.id = ? AND r.deleted_at IS NULL", orgId, runId);
}

export function getRunProjectName(s: Statements, orgId: string, runId: number): string | undefined {
  const row = s
    .get("SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = ? AND r.id = ? AND r.deleted_at IS NULL")
    .get(orgId, runId) as { name: string } | undefined;
  return row?.name;
}

/** Runs forked from a run, oldest first. */
export function listForks(s: Statements, orgId: string, runId: number): Run[] {
  return readAll(s, RUN_READ, "WHERE r.org_id = ? AND r.forked_from_run_id = ? AND r.deleted_at IS NULL ORDER BY r.id", orgId, runId);
}

export function getRunByExternalId(s: Statements, orgId: string, projectName: string, externalId: string): Run | undefined {
  return readOne(
    s,
    RUN_READ,
    "WHERE r.org_id = ? AND p.name = ? AND r.external_id = ? AND r.deleted_at IS NULL",
    orgId,
    projectName,
    externalId,
  );
}

export function listRunsByDisplayId(s: Statements, orgId: string, prefix: string, number: number, projectName?: string): Run[] {
  const displayId = formatDisplayId(prefix, number);
  return projectName === undefined
    ? readAll(s, RUN_READ, "WHERE r.org_id = ? AND r.display_id = ? AND r.deleted_at IS NULL ORDER BY r.id", orgId, displayId)
    : readAll(
        s,
        RUN_READ,
        "WHERE r.org_id = ? AND r.display_id = ? AND p.name = ? AND r.deleted_at IS NULL ORDER BY r.id",
        orgId,
        displayId,
        projectName,
      );
}
