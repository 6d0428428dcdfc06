import type { Operations } from "../compose.js";
import type { ConsoleLogType } from "../../domain/console-logs.js";
import type { RunStatus } from "../../domain/status.js";
import { PROJECT_READ, toJsonText, toProjectForRuns } from "../rows.js";
import type { Async } from "../workflow.js";
import { fileValues, type UpsertedFile } from "../workflows/run-writes.js";
import { newRunValues, statusEventValues } from "../workflows/run-lifecycle.js";
import { row, rows, run, type Sql } from "./db.js";
import { getOrCreateProjectRow, projectNamed, projectOfId, takeRunNumber } from "./projects.js";
import { insertLogNames, touchHeartbeat, writeRunColumn } from "./run-attributes.js";
import { getRun } from "./runs.js";
import { consoleLineKey, consoleLinePage, consoleLineTotal } from "./console-logs.js";
import { getMlflowDefaultProject, getMlflowProject, getMlflowRun } from "./mlflow.js";
import { postgresRegistryOperations } from "./model-registry.js";
import { postgresDeletionOperations } from "./deletion.js";
import { getLoggedModel, writeLoggedModel } from "./logged-models.js";
import { getSavedView, insertSavedView, writeSavedView } from "./saved-views.js";
import { postgresAlertOperations } from "./alerts.js";
import { postgresAccountOperations } from "./accounts.js";
import { metricReadOperations } from "./metric-reads.js";
import { postgresMetricWrites } from "./metrics.js";

/**
 * The operations of the workflows in src/store/workflows/ in PostgreSQL's SQL, each on the workflow's
 * transaction. "Locked" reads are FOR UPDATE. Concurrent creates with one externalId: the INSERT …
 * ON CONFLICT (project_id, external_id) DO NOTHING of all but one finds the row the first committed
 * (they wait on the project row's lock, taken with the run number), and the workflow resumes it.
 */
export function postgresOperations(sql: Sql): Async<Operations> {
  return {
    projectForRuns: async (orgId, name, now) => {
      return toProjectForRuns(await getOrCreateProjectRow(sql, orgId, name, now));
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
                             logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags,
                             mlflow_user_id)
           VALUES ($1, $2, $3, $4, $5, $6, 'RUNNING', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
           ON CONFLICT (project_id, external_id) DO NOTHING RETURNING id`,
          newRunValues(run),
        )
      )?.id,
    lockRunStatus: async (orgId, runId) => {
      const locked = await row<{ status: RunStatus; logger_settings: string | null }>(
        sql,
        "SELECT status, logger_settings FROM runs WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
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
           WHERE status = 'RUNNING' AND deleted_at IS NULL AND heartbeat_at < $3 RETURNING id`,
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
        statusEventValues(event),
      );
    },

    runProjectId: async (orgId, runId) =>
      (
        await row<{ project_id: number }>(sql, "SELECT project_id FROM runs WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL", [
          orgId,
          runId,
        ])
      )?.project_id,
    lockRunConfig: async (orgId, runId) => {
      const found = await row<{ config: string | null }>(
        sql,
        "SELECT config FROM runs WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
        [orgId, runId],
      );
      return found && { configText: found.config };
    },
    writeRunColumn: (orgId, runId, column, value, now) => writeRunColumn(sql, orgId, runId, column, value, now),
    writeRunConfig: async (runId, configText, now) => {
      await run(sql, "UPDATE runs SET config = $1, updated_at = $2 WHERE id = $3", [configText, now, runId]);
    },
    insertLogNames: (runId, names, now) => insertLogNames(sql, runId, names, now),
    touchActivity: (runId, now) => touchHeartbeat(sql, runId, now),
    // One upsert writes the batch and tells which lines were new (xmax = 0 on an inserted row).
    upsertConsoleLines: async (runId, lines) => {
      const written = await rows<{ log_type: ConsoleLogType; inserted: boolean }>(
        sql,
        `INSERT INTO console_logs (run_id, log_type, line_number, time, message, step)
         SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[])
         ON CONFLICT (run_id, time, line_number, log_type) DO UPDATE SET message = excluded.message, step = excluded.step
         RETURNING log_type, (xmax = 0) AS inserted`,
        [
          runId,
          lines.map((line) => line.logType),
          lines.map((line) => line.lineNumber),
          lines.map((line) => line.time),
          lines.map((line) => line.message),
          lines.map((line) => line.step),
        ],
      );
      const added = new Map<ConsoleLogType, number>();
      for (const line of written) if (line.inserted) added.set(line.log_type, (added.get(line.log_type) ?? 0) + 1);
      return added;
    },
    addConsoleLineCounts: async (runId, added) => {
      for (const [logType, n] of added) {
        await run(
          sql,
          `INSERT INTO console_log_counts (run_id, log_type, lines) VALUES ($1, $2, $3)
           ON CONFLICT (run_id, log_type) DO UPDATE SET lines = console_log_counts.lines + excluded.lines`,
          [runId, logType, n],
        );
      }
    },
    upsertDataRows: async (runId, dataRows) => {
      await run(
        sql,
        `INSERT INTO data_rows (run_id, log_name, step, data_type, time, data)
         SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[])
         ON CONFLICT (run_id, log_name, step) DO UPDATE SET data_type = excluded.data_type, time = excluded.time, data = excluded.data`,
        [
          runId,
          dataRows.map((r) => r.logName),
          dataRows.map((r) => r.step),
          dataRows.map((r) => r.dataType),
          dataRows.map((r) => r.time),
          dataRows.map((r) => r.data),
        ],
      );
    },
    // The upsert on (run_id, log_name, file_name) keeps the ID whoever registers the name at the same time.
    upsertFile: async (runId, file, now) =>
      (await row<UpsertedFile>(
        sql,
        `INSERT INTO files (run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (run_id, log_name, file_name) DO UPDATE SET file_type = excluded.file_type, file_size = excluded.file_size,
           time = excluded.time, step = excluded.step, sample_index = excluded.sample_index, caption = excluded.caption,
           annotations = excluded.annotations
         RETURNING id, run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, uploaded_at`,
        fileValues(runId, file, now),
      ))!,

    insertOrganization: async (organization) => {
      await run(sql, "INSERT INTO organizations (id, slug, created_at) VALUES ($1, $2, $3)", [
        organization.id,
        organization.slug,
        organization.createdAt,
      ]);
    },

    getProject: (orgId, projectId) => projectOfId(sql, PROJECT_READ, orgId, projectId),
    getMlflowProject: (orgId, projectId, lock) => getMlflowProject(sql, orgId, projectId, lock),
    insertProject: async (orgId, name, runPrefix, now) =>
      (
        await row<{ id: number }>(
          sql,
          `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (org_id, name) DO NOTHING RETURNING id`,
          [orgId, name, runPrefix, now, now],
        )
      )?.id,
    getProjectByName: (orgId, name) => projectNamed(sql, PROJECT_READ, orgId, name),
    getMlflowDefaultProject: (orgId) => getMlflowDefaultProject(sql, orgId),
    markMlflowDefaultProject: async (orgId, projectId) => {
      await run(sql, "UPDATE projects SET mlflow_default = 1 WHERE org_id = $1 AND id = $2", [orgId, projectId]);
    },
    organizationCreatedAt: async (orgId) =>
      (await row<{ created_at: number }>(sql, "SELECT created_at FROM organizations WHERE id = $1", [orgId]))?.created_at,
    writeProjectMlflow: async (projectId, state, now) => {
      await run(sql, "UPDATE projects SET name = $1, mlflow_tags = $2, deleted_at = $3, updated_at = $4 WHERE id = $5", [
        state.name,
        JSON.stringify(state.mlflowTags),
        state.deletedAt,
        now,
        projectId,
      ]);
    },
    setProjectRunsDeleted: async (projectId, deletedAt, now) => {
      await run(sql, "UPDATE runs SET deleted_at = $1, updated_at = $2 WHERE project_id = $3", [deletedAt, now, projectId]);
    },
    lockLoggedModel: (orgId, modelId) => getLoggedModel(sql, orgId, modelId, true),
    writeLoggedModel: (modelId, state, now) => writeLoggedModel(sql, modelId, state, now),
    getLoggedModel: (orgId, modelId) => getLoggedModel(sql, orgId, modelId),
    insertSavedView: (orgId, projectId, input, now) => insertSavedView(sql, orgId, projectId, input, now),
    writeSavedView: (orgId, viewId, name, stateText, now) => writeSavedView(sql, orgId, viewId, name, stateText, now),
    getSavedView: (orgId, viewId) => getSavedView(sql, orgId, viewId),
    ...postgresAlertOperations(sql),
    ...postgresAccountOperations(sql),
    lockMlflowRun: (orgId, runId) => getMlflowRun(sql, orgId, runId, true),
    getMlflowRun: (orgId, runId) => getMlflowRun(sql, orgId, runId),
    writeRunMlflow: async (runId, mlflowRow, now) => {
      await run(
        sql,
        "UPDATE runs SET name = $1, config = $2, mlflow_tags = $3, mlflow_inputs = $4, deleted_at = $5, updated_at = $6 WHERE id = $7",
        [mlflowRow.name, mlflowRow.configText, mlflowRow.mlflowTagsText, mlflowRow.mlflowInputsText, mlflowRow.deletedAt, now, runId],
      );
    },

    consoleLineTotal: (runId, logType) => consoleLineTotal(sql, runId, logType),
    consoleLineKey: (runId, logType, skip, fromEnd) => consoleLineKey(sql, runId, logType, skip, fromEnd),
    consoleLinePage: (runId, logType, first, page) => consoleLinePage(sql, runId, logType, first, page),

    ...postgresDeletionOperations(sql),
    ...postgresRegistryOperations(sql),
    ...metricReadOperations(sql),
    ...postgresMetricWrites(sql),
  };
}
