import { formatDisplayId } from "../../domain/ids.js";
import type { RunStatus } from "../../domain/status.js";
import type { Run } from "../store.js";
import { SELECT_RUN, toJsonText, toRun, type RunRow } from "../rows.js";
import type { Statements } from "./statements.js";
import { getOrCreateProjectRow } from "./projects.js";
import type { RunLifecycleOperations } from "../workflows/run-lifecycle.js";

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

/** The run lifecycle's operations (workflows/run-lifecycle.ts), each inside the caller's write transaction. */
export function runLifecycleOperations(s: Statements): RunLifecycleOperations {
  return {
    projectForRuns: (orgId, name, now) => {
      const project = getOrCreateProjectRow(s, orgId, name, now);
      return { id: project.id, name: project.name, runPrefix: project.run_prefix, deletedAt: project.deleted_at };
    },
    runIdByExternalId: (projectId, externalId) =>
      (s.get("SELECT id FROM runs WHERE project_id = ? AND external_id = ?").get(projectId, externalId) as { id: number } | undefined)?.id,
    getRun: (orgId, runId) => getRun(s, orgId, runId),
    ownLastStep: (runId) =>
      (s.get("SELECT max(last_step) AS last FROM metrics WHERE run_id = ?").get(runId) as { last: number | null }).last,
    takeRunNumber: (projectId, now) => {
      const taken = s
        .get(
          "UPDATE projects SET next_number = next_number + 1, updated_at = ? WHERE id = ? RETURNING next_number - 1 AS number, deleted_at",
        )
        .get(now, projectId) as { number: number; deleted_at: number | null };
      return { number: taken.number, deletedAt: taken.deleted_at };
    },
    insertRun: (row) =>
      Number(
        s
          .get(
            `INSERT INTO runs (org_id, project_id, name, number, display_id, external_id, status, tags, config, system_metadata,
                               logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags)
             VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            row.orgId,
            row.projectId,
            row.name,
            row.number,
            row.displayId,
            row.externalId,
            row.tagsText,
            row.configText,
            row.systemMetadataText,
            row.loggerSettingsText,
            row.createdAt,
            row.updatedAt,
            row.heartbeatAt,
            row.forkedFromRunId,
            row.forkStep,
            row.mlflowId,
            row.mlflowTagsText,
          ).lastInsertRowid,
      ),
    lockRunStatus: (orgId, runId) => {
      const row = s.get("SELECT status, logger_settings FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId) as
        | { status: RunStatus; logger_settings: string | null }
        | undefined;
      return row && { status: row.status, loggerSettingsText: row.logger_settings };
    },
    setHeartbeat: (runId, now) => {
      s.get("UPDATE runs SET heartbeat_at = ? WHERE id = ?").run(now, runId);
    },
    writeStatus: (runId, write) => {
      s.get(
        `UPDATE runs SET status = ?, status_updated = ?, status_metadata = ?, logger_settings = ?, updated_at = ?, heartbeat_at = ?
         WHERE id = ?`,
      ).run(write.status, write.statusUpdated, toJsonText(write.statusMetadata), write.loggerSettingsText, write.now, write.now, runId);
    },
    writeRunning: (runId, now) => {
      s.get("UPDATE runs SET status = 'RUNNING', status_updated = ?, updated_at = ? WHERE id = ?").run(now, now, runId);
    },
    failRunsStaleSince: (cutoff, now, metadata) => {
      const stale = (
        s.get("SELECT id FROM runs WHERE status = 'RUNNING' AND heartbeat_at < ? ORDER BY id").all(cutoff) as { id: number }[]
      ).map((row) => row.id);
      const fail = s.get("UPDATE runs SET status = 'FAILED', status_updated = ?, status_metadata = ?, updated_at = ? WHERE id = ?");
      for (const id of stale) fail.run(now, JSON.stringify(metadata), now, id);
      return stale;
    },
    insertStatusEvent: (event) => {
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
    },
  };
}
