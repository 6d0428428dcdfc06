import type { Json } from "../../domain/merge.js";
import { mergedJsonText } from "../../domain/runs.js";
import { shouldApplyStatus, STALE_STATUS_METADATA, type RunStatus, type StatusSource } from "../../domain/status.js";
import { fromJsonText, toJsonText, toStatusEvent, type StatusEventRow } from "../rows.js";
import type { Actor, StatusEvent, StatusUpdate } from "../store.js";
import type { Statements } from "./db.js";

interface NewStatusEvent {
  runId: number;
  fromStatus: RunStatus | null;
  toStatus: RunStatus;
  source: StatusSource;
  metadata: Json | null;
  actor: Actor;
  createdAt: number;
}

export function insertStatusEvent(s: Statements, event: NewStatusEvent): void {
  s.get(
    `INSERT INTO status_events (run_id, from_status, to_status, source, metadata, actor_id, api_key_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    event.runId,
    event.fromStatus,
    event.toStatus,
    event.source,
    toJsonText(event.metadata),
    event.actor.userId,
    event.actor.apiKeyId,
    event.createdAt,
  );
}

/** Must run inside a write transaction (see Store.updateRunStatus). */
export function updateRunStatus(
  s: Statements,
  orgId: string,
  runId: number,
  update: StatusUpdate,
  actor: Actor,
): { applied: boolean } | undefined {
  const run = s.get("SELECT status, logger_settings FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId) as
    | { status: RunStatus; logger_settings: string | null }
    | undefined;
  if (!run) return undefined;
  if (!shouldApplyStatus(run.status, update.status)) return { applied: false };

  const statusUpdated = update.statusUpdated ?? update.now;
  const loggerSettings =
    update.loggerSettings === undefined
      ? run.logger_settings
      : mergedJsonText("loggerSettings", fromJsonText<Json>(run.logger_settings), update.loggerSettings);
  s.get(
    `UPDATE runs SET status = ?, status_updated = ?, status_metadata = ?, logger_settings = ?, updated_at = ?, heartbeat_at = ?
     WHERE id = ?`,
  ).run(update.status, statusUpdated, toJsonText(update.statusMetadata), loggerSettings, update.now, update.now, runId);
  insertStatusEvent(s, {
    runId,
    fromStatus: run.status,
    toStatus: update.status,
    source: update.source,
    metadata: update.statusMetadata ?? null,
    actor,
    createdAt: statusUpdated,
  });
  return { applied: true };
}

export function listStatusEvents(s: Statements, orgId: string, runId: number): StatusEvent[] | undefined {
  if (!s.get("SELECT 1 FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId)) return undefined;
  const rows = s.get("SELECT * FROM status_events WHERE run_id = ? ORDER BY id").all(runId) as StatusEventRow[];
  return rows.map(toStatusEvent);
}

/** Must run inside a write transaction (see Store.failStaleRuns). */
export function failStaleRuns(s: Statements, cutoff: number, now: number): number {
  const stale = s.get("SELECT id FROM runs WHERE status = 'RUNNING' AND heartbeat_at < ?").all(cutoff) as { id: number }[];
  const system: Actor = { userId: null, apiKeyId: null };
  for (const { id } of stale) {
    s.get("UPDATE runs SET status = 'FAILED', status_updated = ?, status_metadata = ?, updated_at = ? WHERE id = ?").run(
      now,
      JSON.stringify(STALE_STATUS_METADATA),
      now,
      id,
    );
    insertStatusEvent(s, {
      runId: id,
      fromStatus: "RUNNING",
      toStatus: "FAILED",
      source: "stale",
      metadata: STALE_STATUS_METADATA,
      actor: system,
      createdAt: now,
    });
  }
  return stale.length;
}
