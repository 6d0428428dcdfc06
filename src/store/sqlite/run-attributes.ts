import type { Json } from "../../domain/merge.js";
import type { RunStatus } from "../../domain/status.js";
import { PROJECT_ACTIVITY_RESOLUTION_MS } from "../../domain/time.js";
import type { Alert, LogName, NewAlert } from "../store.js";
import { ALERT_COLUMNS, type AlertRow, fromJsonText, type LogNameRow, toAlert, toLogName } from "../rows.js";
import type { RunColumn } from "../workflows/run-writes.js";
import type { Statements } from "./statements.js";

/** The writeRunColumn operation (workflows/run-writes.ts). */
export function writeRunColumn(s: Statements, orgId: string, runId: number, column: RunColumn, value: string | null, now: number): boolean {
  return (
    s.get(`UPDATE runs SET ${column} = ?, updated_at = ? WHERE org_id = ? AND id = ? AND deleted_at IS NULL`).run(value, now, orgId, runId)
      .changes === 1
  );
}

export function getModelGraph(s: Statements, orgId: string, runId: number): Json | null | undefined {
  const row = s.get("SELECT model_graph FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId) as
    | { model_graph: string | null }
    | undefined;
  return row && fromJsonText<Json>(row.model_graph);
}

export function runExists(s: Statements, orgId: string, runId: number): boolean {
  return s.get("SELECT 1 FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId) !== undefined;
}

export function listLogNames(s: Statements, orgId: string, runId: number): LogName[] {
  const rows = s
    .get(
      `SELECT l.log_name, l.log_type, l.log_group FROM run_log_names l JOIN runs r ON r.id = l.run_id
       WHERE r.org_id = ? AND l.run_id = ? ORDER BY l.log_name`,
    )
    .all(orgId, runId) as LogNameRow[];
  return rows.map(toLogName);
}

/**
 * The touchActivity operation (workflows/run-writes.ts): heartbeats only move forward, the project
 * row is written at most once per PROJECT_ACTIVITY_RESOLUTION_MS.
 */
export function touchHeartbeat(s: Statements, runId: number, now: number): void {
  s.get("UPDATE runs SET heartbeat_at = max(heartbeat_at, ?), updated_at = max(updated_at, ?) WHERE id = ?").run(now, now, runId);
  s.get("UPDATE projects SET updated_at = ? WHERE id = (SELECT project_id FROM runs WHERE id = ?) AND updated_at <= ?").run(
    now,
    runId,
    now - PROJECT_ACTIVITY_RESOLUTION_MS,
  );
}

export function recordHeartbeat(s: Statements, orgId: string, runId: number, now: number): RunStatus | undefined {
  const row = s
    .get("UPDATE runs SET heartbeat_at = max(heartbeat_at, ?) WHERE org_id = ? AND id = ? RETURNING status")
    .get(now, orgId, runId) as { status: RunStatus } | undefined;
  return row?.status;
}

export function createAlert(s: Statements, orgId: string, runId: number, alert: NewAlert, now: number): boolean {
  if (!runExists(s, orgId, runId)) return false;
  s.get("INSERT INTO alerts (run_id, title, body, level, timestamp, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
    runId,
    alert.title,
    alert.body,
    alert.level,
    alert.timestamp,
    now,
  );
  return true;
}

export function listAlerts(s: Statements, orgId: string, runId: number): Alert[] | undefined {
  if (!runExists(s, orgId, runId)) return undefined;
  const rows = s.get(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE run_id = ? ORDER BY id`).all(runId) as AlertRow[];
  return rows.map(toAlert);
}
