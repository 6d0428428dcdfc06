import { toStatusEvent, type StatusEventRow } from "../rows.js";
import type { StatusEvent } from "../store.js";
import { row, rows, type Sql } from "./db.js";

export async function listStatusEvents(sql: Sql, orgId: string, runId: number): Promise<StatusEvent[] | undefined> {
  if (!(await row(sql, "SELECT 1 FROM runs WHERE org_id = $1 AND id = $2", [orgId, runId]))) return undefined;
  const found = await rows<StatusEventRow>(sql, "SELECT * FROM status_events WHERE run_id = $1 ORDER BY id", [runId]);
  return found.map(toStatusEvent);
}
