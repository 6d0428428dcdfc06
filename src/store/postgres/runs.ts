import { formatDisplayId } from "../../domain/ids.js";
import type { RunStatus } from "../../domain/status.js";
import type { Run } from "../store.js";
import type { Async } from "../workflow.js";
import type { RunLifecycleOperations } from "../workflows/run-lifecycle.js";
import { SELECT_RUN, toJsonText, toRun, type RunRow } from "../rows.js";
import { row, rows, run, type Sql } from "./db.js";
import { getOrCreateProjectRow, takeRunNumber } from "./projects.js";

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

/**
 * The run lifecycle's operations (workflows/run-lifecycle.ts), each inside the caller's transaction.
 * Concurrent creates with one externalId: the INSERT … ON CONFLICT (project_id, external_id) DO NOTHING
 * of all but one finds the row the first committed (they wait on the project row's lock, taken with
 * the run number), and the workflow resumes it.
 */
export function runLifecycleOperations(sql: Sql): Async<RunLifecycleOperations> {
  return {
    projectForRuns: async (orgId, name, now) => {
      const project = await getOrCreateProjectRow(sql, orgId, name, now);
      return { id: project.id, name: project.name, runPrefix: project.run_prefix, deletedAt: project.deleted_at };
    },
    runIdByExternalId: async (projectId, externalId) =>
      (await row<{ id: number }>(sql, "SELECT id FROM runs WHERE project_id = $1 AND external_id = $2", [projectId, externalId]))?.id,
    getRun: (orgId, runId) => getRun(sql, orgId, runId),
    ownLastStep: async (runId) =>
      (await row<{ last: number | null }>(sql, "SELECT max(last_step) AS last FROM metrics WHERE run_id = $1", [runId]))!.last,
    takeRunNumber: (projectId, now) => takeRunNumber(sql, projectId, now),
    insertRun: async (run) =>
      (
        await row<{ id: number }>(
          sql,
          `INSERT INTO runs (org_id, project_id, name, number, display_id, external_id, status, tags, config, system_metadata,
                             logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags)
           VALUES ($1, $2, $3, $4, $5, $6, 'RUNNING', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
           ON CONFLICT (project_id, external_id) DO NOTHING RETURNING id`,
          [
            run.orgId,
            run.projectId,
            run.name,
            run.number,
            run.displayId,
            run.externalId,
            run.tagsText,
            run.configText,
            run.systemMetadataText,
            run.loggerSettingsText,
            run.createdAt,
            run.updatedAt,
            run.heartbeatAt,
            run.forkedFromRunId,
            run.forkStep,
            run.mlflowId,
            run.mlflowTagsText,
          ],
        )
      )?.id,
    lockRunStatus: async (orgId, runId) => {
      const locked = await row<{ status: RunStatus; logger_settings: string | null }>(
        sql,
        "SELECT status, logger_settings FROM runs WHERE org_id = $1 AND id = $2 FOR UPDATE",
        [orgId, runId],
      );
      return locked && { status: locked.status, loggerSettingsText: locked.logger_settings };
    },
    setHeartbeat: async (runId, now) => {
      await run(sql, "UPDATE runs SET heartbeat_at = $1 WHERE id = $2", [now, runId]);
    },
    writeStatus: async (runId, write) => {
      await run(
        sql,
        `UPDATE runs SET status = $1, status_updated = $2, status_metadata = $3, logger_settings = $4, updated_at = $5, heartbeat_at = $5
         WHERE id = $6`,
        [write.status, write.statusUpdated, toJsonText(write.statusMetadata), write.loggerSettingsText, write.now, runId],
      );
    },
    writeRunning: async (runId, now) => {
      await run(sql, "UPDATE runs SET status = 'RUNNING', status_updated = $1, updated_at = $1 WHERE id = $2", [now, runId]);
    },
    // One UPDATE re-checks status and heartbeat on each row it locks: two sweepers never fail one run twice.
    failRunsStaleSince: async (cutoff, now, metadata) =>
      (
        await rows<{ id: number }>(
          sql,
          `UPDATE runs SET status = 'FAILED', status_updated = $1, status_metadata = $2, updated_at = $1
           WHERE status = 'RUNNING' AND heartbeat_at < $3 RETURNING id`,
          [now, JSON.stringify(metadata), cutoff],
        )
      )
        .map((failed) => failed.id)
        .sort((a, b) => a - b),
    insertStatusEvent: async (event) => {
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
    },
  };
}
