import { toStatusEvent, type StatusEventRow } from "../rows.js";
import type { StatusEvent } from "../store.js";
import type { Statements } from "./statements.js";

export function listStatusEvents(s: Statements, orgId: string, runId: number): StatusEvent[] | undefined {
  if (!s.get("SELECT 1 FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId)) return undefined;
  const rows = s.get("SELECT * FROM status_events WHERE run_id = ? ORDER BY id").all(runId) as StatusEventRow[];
  return rows.map(toStatusEvent);
}
