import type { Operations } from "../compose.js";
import { PROJECT_READ, toJsonText, toProjectForRuns } from "../rows.js";
import type { RunStatus } from "../../domain/status.js";
import type { ConsoleLogType } from "../../domain/console-logs.js";
import { fileValues, type UpsertedFile } from "../workflows/run-writes.js";
import { newRunValues, statusEventValues } from "../workflows/run-lifecycle.js";
import { getRun } from "./runs.js";
import { consoleLineKey, consoleLinePage, consoleLineTotal } from "./console-logs.js";
import { getMlflowDefaultProject, getMlflowProject, getMlflowRun } from "./mlflow.js";
import { sqliteRegistryOperations } from "./model-registry.js";
import { sqliteDeletionOperations } from "./deletion.js";
import { getLoggedModel, writeLoggedModel } from "./logged-models.js";
import { getSavedView, insertSavedView, writeSavedView } from "./saved-views.js";
import { sqliteAlertOperations } from "./alerts.js";
import { sqliteAccountOperations } from "./accounts.js";
import { metricReadOperations } from "./metric-reads.js";
import { sqliteMetricWrites } from "./metrics.js";
import { getOrCreateProjectRow, projectNamed, projectOfId } from "./projects.js";
import { touchHeartbeat, writeRunColumn } from "./run-attributes.js";
import type { Statements } from "./statements.js";

/**
 * The operations of the workflows in src/store/workflows/ in SQLite's SQL, each run inside the
 * workflow's write transaction (which holds the whole database: "locked" reads need no more).
 */
export function sqliteOperations(s: Statements): Operations {
  return {
    projectForRuns: (orgId, name, now) => {
      return toProjectForRuns(getOrCreateProjectRow(s, orgId, name, now));
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
                               logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags,
                               mlflow_user_id)
             VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(...newRunValues(row)).lastInsertRowid,
      ),
    lockRunStatus: (orgId, runId) => {
      const row = s.get("SELECT status, logger_settings FROM runs WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, runId) as
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
        s.get("SELECT id FROM runs WHERE status = 'RUNNING' AND deleted_at IS NULL AND heartbeat_at < ? ORDER BY id").all(cutoff) as {
          id: number;
        }[]
      ).map((row) => row.id);
      const fail = s.get("UPDATE runs SET status = 'FAILED', status_updated = ?, status_metadata = ?, updated_at = ? WHERE id = ?");
      for (const id of stale) fail.run(now, JSON.stringify(metadata), now, id);
      return stale;
    },
    insertStatusEvent: (event) => {
      s.get(
        `INSERT INTO status_events (run_id, from_status, to_status, source, metadata, actor_id, api_key_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...statusEventValues(event));
    },

    runProjectId: (orgId, runId) =>
      (
        s.get("SELECT project_id FROM runs WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, runId) as
          | { project_id: number }
          | undefined
      )?.project_id,
    lockRunConfig: (orgId, runId) => {
      const row = s.get("SELECT config FROM runs WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, runId) as
        | { config: string | null }
        | undefined;
      return row && { configText: row.config };
    },
    writeRunColumn: (orgId, runId, column, value, now) => writeRunColumn(s, orgId, runId, column, value, now),
    writeRunConfig: (runId, configText, now) => {
      s.get("UPDATE runs SET config = ?, updated_at = ? WHERE id = ?").run(configText, now, runId);
    },
    insertLogNames: (runId, names, now) => {
      const insert = s.get(
        "INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      );
      for (const name of names) insert.run(runId, name.logName, name.logType, name.logGroup, now);
    },
    touchActivity: (runId, now) => touchHeartbeat(s, runId, now),
    upsertConsoleLines: (runId, lines) => {
      const insert = s.get(
        `INSERT INTO console_logs (run_id, log_type, line_number, time, message, step) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT DO NOTHING`,
      );
      const replace = s.get(
        "UPDATE console_logs SET message = ?, step = ? WHERE run_id = ? AND time = ? AND line_number = ? AND log_type = ?",
      );
      const added = new Map<ConsoleLogType, number>();
      for (const line of lines) {
        if (insert.run(runId, line.logType, line.lineNumber, line.time, line.message, line.step).changes === 1) {
          added.set(line.logType, (added.get(line.logType) ?? 0) + 1);
        } else {
          replace.run(line.message, line.step, runId, line.time, line.lineNumber, line.logType);
        }
      }
      return added;
    },
    addConsoleLineCounts: (runId, added) => {
      const count = s.get(
        `INSERT INTO console_log_counts (run_id, log_type, lines) VALUES (?, ?, ?)
         ON CONFLICT DO UPDATE SET lines = lines + excluded.lines`,
      );
      for (const [logType, n] of added) count.run(runId, logType, n);
    },
    upsertDataRows: (runId, rows) => {
      const upsert = s.get(
        `INSERT INTO data_rows (run_id, log_name, step, data_type, time, data) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, log_name, step) DO UPDATE SET data_type = excluded.data_type, time = excluded.time, data = excluded.data`,
      );
      for (const row of rows) upsert.run(runId, row.logName, row.step, row.dataType, row.time, row.data);
    },
    upsertFile: (runId, file, now) =>
      s
        .get(
          `INSERT INTO files (run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (run_id, log_name, file_name) DO UPDATE SET file_type = excluded.file_type, file_size = excluded.file_size,
             time = excluded.time, step = excluded.step, sample_index = excluded.sample_index, caption = excluded.caption,
             annotations = excluded.annotations
           RETURNING id, run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, uploaded_at`,
        )
        .get(...fileValues(runId, file, now)) as UpsertedFile,

    insertOrganization: (organization) => {
      s.get("INSERT INTO organizations (id, slug, created_at) VALUES (?, ?, ?)").run(
        organization.id,
        organization.slug,
        organization.createdAt,
      );
    },

    getProject: (orgId, projectId) => projectOfId(s, PROJECT_READ, orgId, projectId),
    getMlflowProject: (orgId, projectId) => getMlflowProject(s, orgId, projectId),
    insertProject: (orgId, name, runPrefix, now) =>
      (
        s
          .get(
            `INSERT INTO projects (org_id, name, run_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (org_id, name) DO NOTHING RETURNING id`,
          )
          .get(orgId, name, runPrefix, now, now) as { id: number } | undefined
      )?.id,
    getProjectByName: (orgId, name) => projectNamed(s, PROJECT_READ, orgId, name),
    getMlflowDefaultProject: (orgId) => getMlflowDefaultProject(s, orgId),
    markMlflowDefaultProject: (orgId, projectId) => {
      s.get("UPDATE projects SET mlflow_default = 1 WHERE org_id = ? AND id = ?").run(orgId, projectId);
    },
    organizationCreatedAt: (orgId) =>
      (s.get("SELECT created_at FROM organizations WHERE id = ?").get(orgId) as { created_at: number } | undefined)?.created_at,
    writeProjectMlflow: (projectId, state, now) => {
      s.get("UPDATE projects SET name = ?, mlflow_tags = ?, deleted_at = ?, updated_at = ? WHERE id = ?").run(
        state.name,
        JSON.stringify(state.mlflowTags),
        state.deletedAt,
        now,
        projectId,
      );
    },
    setProjectRunsDeleted: (projectId, deletedAt, now) => {
      s.get("UPDATE runs SET deleted_at = ?, updated_at = ? WHERE project_id = ?").run(deletedAt, now, projectId);
    },
    lockLoggedModel: (orgId, modelId) => getLoggedModel(s, orgId, modelId),
    writeLoggedModel: (modelId, state, now) => writeLoggedModel(s, modelId, state, now),
    getLoggedModel: (orgId, modelId) => getLoggedModel(s, orgId, modelId),
    insertSavedView: (orgId, projectId, input, now) => insertSavedView(s, orgId, projectId, input, now),
    writeSavedView: (orgId, viewId, name, stateText, now) => writeSavedView(s, orgId, viewId, name, stateText, now),
    getSavedView: (orgId, viewId) => getSavedView(s, orgId, viewId),
    ...sqliteAlertOperations(s),
    ...sqliteAccountOperations(s),
    lockMlflowRun: (orgId, runId) => getMlflowRun(s, orgId, runId),
    getMlflowRun: (orgId, runId) => getMlflowRun(s, orgId, runId),
    writeRunMlflow: (runId, row, now) => {
      s.get("UPDATE runs SET name = ?, config = ?, mlflow_tags = ?, mlflow_inputs = ?, deleted_at = ?, updated_at = ? WHERE id = ?").run(
        row.name,
        row.configText,
        row.mlflowTagsText,
        row.mlflowInputsText,
        row.deletedAt,
        now,
        runId,
      );
    },

    consoleLineTotal: (runId, logType) => consoleLineTotal(s, runId, logType),
    consoleLineKey: (runId, logType, skip, fromEnd) => consoleLineKey(s, runId, logType, skip, fromEnd),
    consoleLinePage: (runId, logType, first, page) => consoleLinePage(s, runId, logType, first, page),

    ...sqliteDeletionOperations(s),
    ...sqliteRegistryOperations(s),
    ...metricReadOperations(s),
    ...sqliteMetricWrites(s),
  };
}
