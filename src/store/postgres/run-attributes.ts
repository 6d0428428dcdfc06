import type { LogNameEntry } from "../../domain/log-names.js";
import type { Json } from "../../domain/merge.js";
import type { RunStatus } from "../../domain/status.js";
import { PROJECT_ACTIVITY_RESOLUTION_MS } from "../../domain/time.js";
import type { Alert, LogName, NewAlert } from "../store.js";
import { ALERT_COLUMNS, type AlertRow, fromJsonText, type LogNameRow, toAlert, toLogName } from "../rows.js";
import type { RunColumn } from "../workflows/run-writes.js";
import { row, rows, run, type Sql } from "./db.js";

/** The writeRunColumn operation (workflows/run-writes.ts). */
export async function writeRunColumn(
  sql: Sql,
  orgId: string,
  runId: number,
  column: RunColumn,
  value: string | null,
  now: number,
): Promise<boolean> {
  return (
    (await run(sql, `UPDATE runs SET ${column} = $1, updated_at = $2 WHERE org_id = $3 AND id = $4 AND deleted_at IS NULL`, [
      value,
      now,
      orgId,
      runId,
    ])) === 1
  );
}

export async function getModelGraph(sql: Sql, orgId: string, runId: number): Promise<Json | null | undefined> {
  const found = await row<{ model_graph: string | null }>(sql, "SELECT model_graph FROM runs WHERE org_id = $1 AND id = $2", [
    orgId,
    runId,
  ]);
  return found && fromJsonText<Json>(found.model_graph);
}

export async function runExists(sql: Sql, orgId: string, runId: number): Promise<boolean> {
  return (await row(sql, "SELECT 1 FROM runs WHERE org_id = $1 AND id = $2", [orgId, runId])) !== undefined;
}

/** Adds log names not yet known, in the order given (a known name keeps its first type), in one statement. */
export async function insertLogNames(sql: Sql, runId: number, names: LogNameEntry[], now: number): Promise<void> {
  if (names.length === 0) return;
  await run(
    sql,
    `INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at)
     SELECT $1, n.name, n.type, n.grp, $2 FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS n(name, type, grp, i)
     ORDER BY n.i ON CONFLICT DO NOTHING`,
    [runId, now, names.map((n) => n.logName), names.map((n) => n.logType), names.map((n) => n.logGroup)],
  );
}

export async function listLogNames(sql: Sql, orgId: string, runId: number): Promise<LogName[]> {
  const found = await rows<LogNameRow>(
    sql,
    `SELECT l.log_name, l.log_type, l.log_group FROM run_log_names l JOIN runs r ON r.id = l.run_id
     WHERE r.org_id = $1 AND l.run_id = $2 ORDER BY l.log_name`,
    [orgId, runId],
  );
  return found.map(toLogName);
}

/**
 * An ingested batch: a heartbeat of its run, and activity of the run and its project (domain/time.ts).
 * Heartbeats only move forward: a late request with an old clock never makes a run look stale. The
 * project row is written (and locked) at most once a second, so batches of its runs rarely wait on it.
 */
export async function touchHeartbeat(sql: Sql, runId: number, now: number): Promise<void> {
  await run(sql, "UPDATE runs SET heartbeat_at = greatest(heartbeat_at, $1), updated_at = greatest(updated_at, $1) WHERE id = $2", [
    now,
    runId,
  ]);
  await run(sql, "UPDATE projects SET updated_at = $1 WHERE id = (SELECT project_id FROM runs WHERE id = $2) AND updated_at <= $3", [
    now,
    runId,
    now - PROJECT_ACTIVITY_RESOLUTION_MS,
  ]);
}

export async function recordHeartbeat(sql: Sql, orgId: string, runId: number, now: number): Promise<RunStatus | undefined> {
  const found = await row<{ status: RunStatus }>(
    sql,
    "UPDATE runs SET heartbeat_at = greatest(heartbeat_at, $1) WHERE org_id = $2 AND id = $3 RETURNING status",
    [now, orgId, runId],
  );
  return found?.status;
}

export async function createAlert(sql: Sql, orgId: string, runId: number, alert: NewAlert, now: number): Promise<boolean> {
  const inserted = await run(
    sql,
    `INSERT INTO alerts (run_id, title, body, level, timestamp, created_at)
     SELECT id, $3, $4, $5, $6, $7 FROM runs WHERE org_id = $1 AND id = $2`,
    [orgId, runId, alert.title, alert.body, alert.level, alert.timestamp, now],
  );
  return inserted === 1;
}

export async function listAlerts(sql: Sql, orgId: string, runId: number): Promise<Alert[] | undefined> {
  if (!(await runExists(sql, orgId, runId))) return undefined;
  const found = await rows<AlertRow>(sql, `SELECT ${ALERT_COLUMNS} FROM alerts WHERE run_id = $1 ORDER BY id`, [runId]);
  return found.map(toAlert);
}
