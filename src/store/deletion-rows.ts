import type { LiveFork, RetentionCandidate, RunForChange } from "../domain/deletion.js";
import type { RunStatus } from "../domain/status.js";
import type { DeletedProject, DeletedRun, PurgeTarget, StoredRetentionPolicy } from "./store.js";

// The columns deletion's reads select and how their rows become records, shared by both backends
// (rows.ts for the other aggregates).

export const DELETED_RUN_SELECT = `SELECT r.id, r.project_id, p.name AS project_name, r.name, r.display_id, r.status, r.deleted_at,
         p.deleted_at IS NOT NULL AS project_deleted
       FROM runs r JOIN projects p ON p.id = r.project_id`;

export interface DeletedRunRow {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  display_id: string;
  status: RunStatus;
  deleted_at: number;
  project_deleted: number | boolean;
}

export const toDeletedRun = (row: DeletedRunRow): DeletedRun => ({
  id: row.id,
  projectId: row.project_id,
  projectName: row.project_name,
  name: row.name,
  displayId: row.display_id,
  status: row.status,
  deletedAt: row.deleted_at,
  projectDeleted: Boolean(row.project_deleted),
});

export const DELETED_PROJECT_SELECT = `SELECT p.id, p.name, p.deleted_at, (SELECT count(*) FROM runs r WHERE r.project_id = p.id) AS run_count
       FROM projects p`;

export interface DeletedProjectRow {
  id: number;
  name: string;
  deleted_at: number;
  run_count: number;
}

export const toDeletedProject = (row: DeletedProjectRow): DeletedProject => ({
  id: row.id,
  name: row.name,
  deletedAt: row.deleted_at,
  runCount: row.run_count,
});

export const RUN_FOR_CHANGE_SELECT = `SELECT r.id, r.deleted_at, r.forked_from_run_id, f.deleted_at AS parent_deleted_at, p.deleted_at AS project_deleted_at
       FROM runs r JOIN projects p ON p.id = r.project_id LEFT JOIN runs f ON f.id = r.forked_from_run_id`;

export interface RunForChangeRow {
  id: number;
  deleted_at: number | null;
  forked_from_run_id: number | null;
  parent_deleted_at: number | null;
  project_deleted_at: number | null;
}

export const toRunForChange = (row: RunForChangeRow): RunForChange => ({
  id: row.id,
  deletedAt: row.deleted_at,
  forkedFromRunId: row.forked_from_run_id,
  parentDeletedAt: row.parent_deleted_at,
  projectDeletedAt: row.project_deleted_at,
});

export interface LiveForkRow {
  parent_id: number;
  child_id: number;
}

export const toLiveFork = (row: LiveForkRow): LiveFork => ({ parentId: row.parent_id, childId: row.child_id });

export interface PurgeTargetRow {
  run_id: number;
  org_id: string;
  project_id: number;
}

export const toPurgeTarget = (row: PurgeTargetRow): PurgeTarget => ({ runId: row.run_id, orgId: row.org_id, projectId: row.project_id });

export interface RetentionPolicyRow {
  max_age_days: number;
  exclude_tag: string | null;
  updated_at: number;
}

export const toRetentionPolicy = (row: RetentionPolicyRow): StoredRetentionPolicy => ({
  maxAgeDays: row.max_age_days,
  excludeTag: row.exclude_tag,
  updatedAt: row.updated_at,
});

export interface RetentionCandidateRow {
  id: number;
  status: RunStatus;
  status_updated: number | null;
  tags: string;
}

export const toRetentionCandidate = (row: RetentionCandidateRow): RetentionCandidate => ({
  id: row.id,
  status: row.status,
  statusUpdated: row.status_updated,
  tags: JSON.parse(row.tags) as string[],
});

/**
 * What a purge deletes for one run, children first, then the run (`id`: the dialect's placeholder
 * of the run's ID). Tables that reference runs with ON DELETE CASCADE (the alert tables) go with it.
 * A backend deletes rows of its own storage (SQLite's chunk points) before these.
 */
export const runRowDeletes = (id: string): string[] => [
  `DELETE FROM metric_chunks WHERE metric_id IN (SELECT id FROM metrics WHERE run_id = ${id})`,
  `DELETE FROM metrics WHERE run_id = ${id}`,
  `DELETE FROM run_log_names WHERE run_id = ${id}`,
  `DELETE FROM status_events WHERE run_id = ${id}`,
  `DELETE FROM alerts WHERE run_id = ${id}`,
  `DELETE FROM console_logs WHERE run_id = ${id}`,
  `DELETE FROM console_log_counts WHERE run_id = ${id}`,
  `DELETE FROM data_rows WHERE run_id = ${id}`,
  `DELETE FROM files WHERE run_id = ${id}`,
  // A logged model is its experiment's, not its run's (MLflow's server keeps it): it only forgets the run.
  `UPDATE mlflow_logged_models SET source_run_id = NULL WHERE source_run_id = ${id}`,
  `DELETE FROM runs WHERE id = ${id}`,
];

/** What a purge deletes for one project once it holds no run, then the project. */
export const projectRowDeletes = (id: string): string[] => [
  `DELETE FROM project_metric_names WHERE project_id = ${id}`,
  `DELETE FROM saved_views WHERE project_id = ${id}`,
  `DELETE FROM mlflow_logged_models WHERE project_id = ${id}`,
  `DELETE FROM retention_policies WHERE project_id = ${id}`,
  `DELETE FROM projects WHERE id = ${id}`,
];
