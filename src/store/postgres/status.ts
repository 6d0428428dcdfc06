import type { Json } from "../../domain/merge.js";
import { mergedJsonText } from "../../domain/runs.js";
import { shouldApplyStatus, STALE_STATUS_METADATA, type RunStatus, type StatusSource } from "../../domain/status.js";
import { fromJsonText, toJsonText, toStatusEvent, type StatusEventRow } from "../rows.js";
import type { Actor, StatusEvent, StatusUpdate } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";

interface NewStatusEvent {
  runId: number;
  fromStatus: RunStatus | null;
  toStatus: RunStatus;
  source: StatusSource;
  metadata: Json | null;
  actor: Actor;
  createdAt: number;
}

export async function insertStatusEvent(sql: Sql, event: NewStatusEvent): Promise<void> {
  await run(
    sql,
    `INSERT INTO status_events (run_id, from_status, to_status, source, metadata, actor_id, api_key_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      event.runId,
      event.fromStatus,
      event.toStatus,
      event.source,
      toJsonText(event.metadata),
      event.actor.userId,
      event.actor.apiKeyId,
      event.createdAt,
    ],
  );
}

/**
 * Must run inside a transaction (see Store.updateRunStatus). The run row is read FOR UPDATE, so
 * concurrent terminal writes are decided one after the other by domain/status.ts, each against
 * the status the previous one left.
 */
export async function updateRunStatus(
  sql: Sql,
  orgId: string,
  runId: number,
  update: StatusUpdate,
  actor: Actor,
): Promise<{ applied: boolean } | undefined> {
  const current = await row<{ status: RunStatus; logger_settings: string | null }>(
    sql,
    "SELECT status, logger_settings FROM runs WHERE org_id = $1 AND id = $2 FOR UPDATE",
    [orgId, runId],
  );
  if (!current) return undefined;
  if (!shouldApplyStatus(current.status, update.status)) return { applied: false };

  const statusUpdated = update.statusUpdated ?? update.now;
  const loggerSettings =
    update.loggerSettings === undefined
      ? current.logger_settings
      : mergedJsonText("loggerSettings", fromJsonText<Json>(current.logger_settings), update.loggerSettings);
  await run(
    sql,
    `UPDATE runs SET status = $1, status_updated = $2, status_metadata = $3, logger_settings = $4, updated_at = $5, heartbeat_at = $5
     WHERE id = $6`,
    [update.status, statusUpdated, toJsonText(update.statusMetadata), loggerSettings, update.now, runId],
  );
  await insertStatusEvent(sql, {
    runId,
    fromStatus: current.status,
    toStatus: update.status,
    source: update.source,
    metadata: update.statusMetadata ?? null,
    actor,
    createdAt: statusUpdated,
  });
  return { applied: true };
}

export async function listStatusEvents(sql: Sql, orgId: string, runId: number): Promise<StatusEvent[] | undefined> {
  if (!(await row(sql, "SELECT 1 FROM runs WHERE org_id = $1 AND id = $2", [orgId, runId]))) return undefined;
  const found = await rows<StatusEventRow>(sql, "SELECT * FROM status_events WHERE run_id = $1 ORDER BY id", [runId]);
  return found.map(toStatusEvent);
}

/**
 * Must run inside a transaction (see Store.failStaleRuns). One UPDATE marks the runs, re-checking
 * status and heartbeat on each row it locks: a run resumed or heard from meanwhile is left alone,
 * and two sweepers never fail one run twice.
 */
export async function failStaleRuns(sql: Sql, cutoff: number, now: number): Promise<number> {
  const failed = await rows<{ id: number }>(
    sql,
    `UPDATE runs SET status = 'FAILED', status_updated = $1, status_metadata = $2, updated_at = $1
     WHERE status = 'RUNNING' AND heartbeat_at < $3 RETURNING id`,
    [now, JSON.stringify(STALE_STATUS_METADATA), cutoff],
  );
  const system: Actor = { userId: null, apiKeyId: null };
  for (const { id } of failed.sort((a, b) => a.id - b.id)) {
    await insertStatusEvent(sql, {
      runId: id,
      fromStatus: "RUNNING",
      toStatus: "FAILED",
      source: "stale",
      metadata: STALE_STATUS_METADATA,
      actor: system,
      createdAt: now,
    });
  }
  return failed.length;
}
