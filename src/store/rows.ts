import type { Role } from "../domain/roles.js";
import type { Json } from "../domain/merge.js";
import type { ColumnSort } from "../domain/run-list.js";
import type { RunStatus, StatusSource } from "../domain/status.js";
import type { MetricSummaryState } from "../domain/summaries.js";
import { logGroupOf } from "../domain/log-names.js";
import type { LoggedModelStatus } from "../domain/mlflow/logged-model-status.js";
import type {
  Alert,
  LoggedModel,
  ApiKeyRecord,
  ConsoleLine,
  LogName,
  LogType,
  MetricSummary,
  MlflowCandidate,
  MlflowProject,
  MlflowRun,
  Organization,
  Project,
  Run,
  RunCandidate,
  SavedView,
  SavedViewSummary,
  StatusEvent,
  StoredDataRow,
  StoredFile,
} from "./store.js";

/**
 * Rows as both backends select them (the tables have the same columns in SQLite and PostgreSQL)
 * and how they become the Store's records: written once, so the backends differ only in SQL.
 */

export function toJsonText(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

export function fromJsonText<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

export interface OrganizationRow {
  id: string;
  slug: string;
  created_at: number;
}

export const toOrganization = (row: OrganizationRow): Organization => ({ id: row.id, slug: row.slug, createdAt: row.created_at });

export interface ApiKeyRow {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  display_prefix: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  role: Role | null;
}

export const API_KEY_COLUMNS = "id, org_id, user_id, name, display_prefix, created_at, expires_at, revoked_at, role";

export const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  orgId: row.org_id,
  userId: row.user_id,
  name: row.name,
  displayPrefix: row.display_prefix,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  role: row.role,
});

/**
 * How records of one kind are read: the SELECT … FROM that a read completes with its WHERE, ORDER BY
 * and LIMIT, and how a row becomes the record. A core read and MLflow's read of the same rows differ
 * only here (RUN_READ and MLFLOW_RUN_READ, PROJECT_READ and MLFLOW_PROJECT_READ), so a backend writes
 * each query once for both.
 */
export interface RecordRead<Row, T> {
  select: string;
  toRecord: (row: Row) => T;
}

export interface ProjectWithCountRow {
  id: number;
  name: string;
  run_prefix: string;
  created_at: number;
  updated_at: number;
  run_count: number;
  deleted_at: number | null;
}

/** A project's row with MLflow's columns (ProjectMlflowFields). */
export interface MlflowProjectRow extends ProjectWithCountRow {
  mlflow_tags: string;
  mlflow_default: number;
}

const PROJECT_WITH_COUNT_COLUMNS = `p.id, p.name, p.run_prefix, p.created_at, p.updated_at,
         (SELECT count(*) FROM runs r WHERE r.project_id = p.id AND r.deleted_at IS NULL) AS run_count, p.deleted_at`;

const projectFields = (row: ProjectWithCountRow): Project => ({
  id: row.id,
  name: row.name,
  runPrefix: row.run_prefix,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  runCount: row.run_count,
  deletedAt: row.deleted_at,
});

/** An experiment: the project with MLflow's fields (MlflowStore's reads). */
export const MLFLOW_PROJECT_READ: RecordRead<MlflowProjectRow, MlflowProject> = {
  select: `SELECT ${PROJECT_WITH_COUNT_COLUMNS}, p.mlflow_tags, p.mlflow_default FROM projects p`,
  toRecord: (row) =>
    Object.assign(projectFields(row), {
      mlflowTags: JSON.parse(row.mlflow_tags) as [string, string][],
      defaultExperiment: row.mlflow_default === 1,
    }),
};

/** A project as ProjectStore reads it: no MLflow column. */
export const PROJECT_READ: RecordRead<ProjectWithCountRow, Project> = {
  select: `SELECT ${PROJECT_WITH_COUNT_COLUMNS} FROM projects p`,
  toRecord: projectFields,
};

export interface RunRow {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  number: number;
  display_id: string;
  external_id: string | null;
  status: RunStatus;
  tags: string;
  notes: string | null;
  config: string | null;
  system_metadata: string | null;
  logger_settings: string | null;
  status_metadata: string | null;
  created_at: number;
  updated_at: number;
  status_updated: number | null;
  heartbeat_at: number;
  forked_from_run_id: number | null;
  fork_step: number | null;
  deleted_at: number | null;
}

/** A run's row with MLflow's columns (RunMlflowFields): mlflow_tags and mlflow_inputs may hold up to 1 MB each. */
export interface MlflowRunRow extends RunRow {
  mlflow_id: string;
  mlflow_tags: string;
  mlflow_user_id: string;
  mlflow_inputs: string | null;
  project_mlflow_default: number;
}

const RUN_COLUMNS = `r.id, r.project_id, p.name AS project_name, r.name, r.number, r.display_id, r.external_id, r.status,
         r.tags, r.notes, r.config, r.system_metadata, r.logger_settings, r.status_metadata, r.created_at,
         r.updated_at, r.status_updated, r.heartbeat_at, r.forked_from_run_id, r.fork_step, r.deleted_at`;
const RUN_MLFLOW_COLUMNS = "r.mlflow_id, r.mlflow_tags, r.mlflow_user_id, r.mlflow_inputs, p.mlflow_default AS project_mlflow_default";
const RUNS_WITH_PROJECT = "FROM runs r JOIN projects p ON p.id = r.project_id";

function runFields(row: RunRow): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    projectName: row.project_name,
    name: row.name,
    number: row.number,
    displayId: row.display_id,
    externalId: row.external_id,
    status: row.status,
    tags: JSON.parse(row.tags) as string[],
    notes: row.notes,
    config: fromJsonText<Json>(row.config),
    systemMetadata: fromJsonText<Json>(row.system_metadata),
    loggerSettings: fromJsonText<Json>(row.logger_settings),
    statusMetadata: fromJsonText<Json>(row.status_metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    statusUpdated: row.status_updated,
    heartbeatAt: row.heartbeat_at,
    forkedFromRunId: row.forked_from_run_id,
    forkStep: row.fork_step,
    deletedAt: row.deleted_at,
  };
}

/** A run with MLflow's fields (MlflowStore's reads). */
export const MLFLOW_RUN_READ: RecordRead<MlflowRunRow, MlflowRun> = {
  select: `SELECT ${RUN_COLUMNS}, ${RUN_MLFLOW_COLUMNS} ${RUNS_WITH_PROJECT}`,
  // Fields added to the core record rather than spread into a new one: a spread of this many fields
  // makes a dictionary-mode object, which costs ~4 µs a run to build and serialize (10% of a 500-run search).
  toRecord: (row) =>
    Object.assign(runFields(row), {
      mlflowId: row.mlflow_id,
      mlflowTags: JSON.parse(row.mlflow_tags) as [string, string][],
      mlflowUserId: row.mlflow_user_id,
      mlflowInputs: fromJsonText<Json>(row.mlflow_inputs),
      inDefaultExperiment: row.project_mlflow_default === 1,
    }),
};

/** A run as RunStore reads it: no MLflow column (and so none of the up to 2 MB of MLflow's JSON a run may hold). */
export const RUN_READ: RecordRead<RunRow, Run> = { select: `SELECT ${RUN_COLUMNS} ${RUNS_WITH_PROJECT}`, toRecord: runFields };

/** What MLflow's run search reads of every run of a project, as an array row. */
export const MLFLOW_CANDIDATE_COLUMNS =
  "r.id, r.mlflow_id, r.name, r.status, r.tags, r.mlflow_tags, r.mlflow_user_id, r.created_at, r.status_updated, r.config, r.deleted_at";
export type MlflowCandidateRow = [
  number,
  string,
  string,
  RunStatus,
  string,
  string,
  string,
  number,
  number | null,
  string | null,
  number | null,
];

export const toMlflowCandidate = ([
  id,
  mlflowId,
  name,
  status,
  tags,
  mlflowTags,
  mlflowUserId,
  createdAt,
  statusUpdated,
  config,
  deletedAt,
]: MlflowCandidateRow): MlflowCandidate => ({
  id,
  mlflowId,
  name,
  status,
  tags: JSON.parse(tags) as string[],
  mlflowTags: JSON.parse(mlflowTags) as [string, string][],
  mlflowUserId,
  createdAt,
  statusUpdated,
  config: fromJsonText<Json>(config),
  deletedAt,
});

/** The column each sortable run field orders by. */
export const RUN_ORDER_COLUMNS: Record<ColumnSort, string> = {
  createdAt: "r.created_at",
  updatedAt: "r.updated_at",
  name: "r.name",
  status: "r.status",
};

/** What filters and sorts read of a run, as an array row (thousands of runs: building row objects would cost more than the query). */
export const CANDIDATE_COLUMNS =
  "r.id, r.name, r.status, r.tags, r.created_at, r.updated_at, r.status_updated, r.heartbeat_at, r.config, r.system_metadata";
export type CandidateRow = [number, string, RunStatus, string, number, number, number | null, number, string | null, string | null];

export const toCandidate = ([
  id,
  name,
  status,
  tags,
  createdAt,
  updatedAt,
  statusUpdated,
  heartbeatAt,
  config,
  systemMetadata,
]: CandidateRow): RunCandidate => ({
  id,
  name,
  status,
  tags: JSON.parse(tags) as string[],
  createdAt,
  updatedAt,
  statusUpdated,
  heartbeatAt,
  config: fromJsonText<Json>(config),
  systemMetadata: fromJsonText<Json>(systemMetadata),
});

export interface StatusEventRow {
  id: number;
  run_id: number;
  from_status: RunStatus | null;
  to_status: RunStatus;
  source: StatusSource;
  metadata: string | null;
  actor_id: string | null;
  api_key_id: string | null;
  created_at: number;
}

export const toStatusEvent = (row: StatusEventRow): StatusEvent => ({
  id: row.id,
  runId: row.run_id,
  fromStatus: row.from_status,
  toStatus: row.to_status,
  source: row.source,
  metadata: fromJsonText<Json>(row.metadata),
  actorId: row.actor_id,
  apiKeyId: row.api_key_id,
  createdAt: row.created_at,
});

export interface MetricRow {
  id: number;
  run_id: number;
  log_name: string;
  log_group: string;
  count: number;
  non_finite_count: number;
  min: number | null;
  max: number | null;
  mean: number;
  stddev: number;
  first_step: number | null;
  last_step: number | null;
  last_value: number | null;
  last_value_step: number | null;
  last_time: number | null;
}

export const METRIC_COLUMNS =
  "id, run_id, log_name, log_group, count, non_finite_count, min, max, mean, stddev, first_step, last_step, last_value, last_value_step, last_time";

/**
 * The metric row held in `row` from index `at` on, where METRIC_COLUMNS were selected as an array.
 * For reads of many runs' metrics (a leaderboard reads 2,000): better-sqlite3 builds row objects
 * at about twice the cost of an array and this literal (2,000 rows: 8.6–14 ms against 4.3–5.2 ms).
 */
export function metricRowAt(row: readonly unknown[], at: number): MetricRow {
  return {
    id: row[at] as number,
    run_id: row[at + 1] as number,
    log_name: row[at + 2] as string,
    log_group: row[at + 3] as string,
    count: row[at + 4] as number,
    non_finite_count: row[at + 5] as number,
    min: row[at + 6] as number | null,
    max: row[at + 7] as number | null,
    mean: row[at + 8] as number,
    stddev: row[at + 9] as number,
    first_step: row[at + 10] as number | null,
    last_step: row[at + 11] as number | null,
    last_value: row[at + 12] as number | null,
    last_value_step: row[at + 13] as number | null,
    last_time: row[at + 14] as number | null,
  };
}

/** METRIC_COLUMNS qualified with the alias `m`, for joins. */
export const METRIC_COLUMNS_OF_M = METRIC_COLUMNS.split(", ")
  .map((column) => `m.${column}`)
  .join(", ");

/** A metric's summary with its names; the last point's time comes only from the run's own metric row (MetricSummary.lastTime). */
export function namedSummary(
  logName: string,
  summary: MetricSummaryState,
  logGroup: string,
  lastTime: number | null = null,
): MetricSummary {
  return { logName, logGroup, ...summary, lastTime };
}

export const toSummaryState = (row: MetricRow): MetricSummaryState => ({
  count: row.count,
  nonFiniteCount: row.non_finite_count,
  min: row.min,
  max: row.max,
  mean: row.mean,
  stddev: row.stddev,
  firstStep: row.first_step,
  lastStep: row.last_step,
  lastValue: row.last_value,
  lastValueStep: row.last_value_step,
});

export interface FileRow {
  id: number;
  run_id: number;
  log_name: string;
  file_name: string;
  file_type: string;
  file_size: number;
  time: number;
  step: number;
  sample_index: number | null;
  caption: string | null;
  annotations: string | null;
  uploaded_at: number | null;
  org_id: string;
  project_id: number;
}

/** Selected from `files f JOIN runs r`: a file's organization and project come from its run. */
export const FILE_COLUMNS =
  "f.id, f.run_id, f.log_name, f.file_name, f.file_type, f.file_size, f.time, f.step, f.sample_index, f.caption, f.annotations, f.uploaded_at, r.org_id, r.project_id";

export function toFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    runId: row.run_id,
    orgId: row.org_id,
    projectId: row.project_id,
    logName: row.log_name,
    logGroup: logGroupOf(row.log_name),
    fileName: row.file_name,
    fileType: row.file_type,
    fileSize: row.file_size,
    time: row.time,
    step: row.step,
    sampleIndex: row.sample_index,
    caption: row.caption,
    annotations: row.annotations,
    uploadedAt: row.uploaded_at,
  };
}

export interface ConsoleLineRow {
  time: number;
  message: string;
  line_number: number;
  log_type: ConsoleLine["logType"];
  step: number | null;
}

/** Where a page of console lines starts: a line's key in the read order of domain/console-logs.ts. */
export type ConsoleLineKey = Pick<ConsoleLineRow, "time" | "line_number" | "log_type">;

export const toConsoleLine = (row: ConsoleLineRow): ConsoleLine => ({
  time: row.time,
  message: row.message,
  lineNumber: row.line_number,
  logType: row.log_type,
  step: row.step,
});

export interface DataRowRow {
  log_name: string;
  step: number;
  data_type: string;
  time: number;
  data: string;
}

export const toStoredDataRow = (row: DataRowRow): StoredDataRow => ({
  logName: row.log_name,
  logGroup: logGroupOf(row.log_name),
  step: row.step,
  dataType: row.data_type,
  time: row.time,
  data: row.data,
});

export interface AlertRow {
  id: number;
  title: string;
  body: string;
  level: string;
  timestamp: number | null;
  created_at: number;
}

export const ALERT_COLUMNS = "id, title, body, level, timestamp, created_at";

export const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  title: row.title,
  body: row.body,
  level: row.level,
  timestamp: row.timestamp,
  createdAt: row.created_at,
});

export interface LogNameRow {
  log_name: string;
  log_type: LogType;
  log_group: string | null;
}

export const toLogName = (row: LogNameRow): LogName => ({ logName: row.log_name, logType: row.log_type, logGroup: row.log_group });

/** Store.getRuns (and getMlflowRuns): the runs in the order asked, an ID asked twice twice, IDs not found left out. */
export function runsInOrder<T extends { id: number }>(runIds: number[], runs: T[]): T[] {
  const byId = new Map(runs.map((run) => [run.id, run]));
  return runIds.flatMap((id) => byId.get(id) ?? []);
}

/** What creating a run reads of its project (workflows/run-lifecycle.ts). */
export interface ProjectForRuns {
  id: number;
  name: string;
  runPrefix: string;
  deletedAt: number | null;
}

export interface ProjectRow {
  id: number;
  name: string;
  run_prefix: string;
  deleted_at: number | null;
}

export const toProjectForRuns = (row: ProjectRow): ProjectForRuns => ({
  id: row.id,
  name: row.name,
  runPrefix: row.run_prefix,
  deletedAt: row.deleted_at,
});

export interface LoggedModelRow {
  id: string;
  project_id: number;
  project_mlflow_default: number;
  name: string;
  model_type: string | null;
  source_run_id: number | null;
  source_mlflow_id: string | null;
  status: LoggedModelStatus;
  params: string;
  tags: string;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** A logged model with its experiment's default mark and its source run's MLflow ID (LoggedModelStore); both backends' SQL. */
export const LOGGED_MODEL_READ: RecordRead<LoggedModelRow, LoggedModel> = {
  select: `SELECT m.id, m.project_id, p.mlflow_default AS project_mlflow_default, m.name, m.model_type, m.source_run_id,
                  r.mlflow_id AS source_mlflow_id, m.status, m.params, m.tags, m.created_at, m.updated_at, m.deleted_at
           FROM mlflow_logged_models m JOIN projects p ON p.id = m.project_id LEFT JOIN runs r ON r.id = m.source_run_id`,
  toRecord: (row) => ({
    id: row.id,
    projectId: row.project_id,
    inDefaultExperiment: row.project_mlflow_default === 1,
    name: row.name,
    modelType: row.model_type,
    sourceRunId: row.source_run_id,
    sourceMlflowRunId: row.source_mlflow_id,
    status: row.status,
    params: JSON.parse(row.params) as [string, string][],
    tags: JSON.parse(row.tags) as [string, string][],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  }),
};

export interface SavedViewRow {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  state: string;
  created_at: number;
  updated_at: number;
}

const SAVED_VIEW_COLUMNS = "v.id, v.project_id, p.name AS project_name, v.name, v.created_at, v.updated_at";
const savedViewSummary = (row: Omit<SavedViewRow, "state">): SavedViewSummary => ({
  id: row.id,
  projectId: row.project_id,
  projectName: row.project_name,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A saved view with its state (getSavedView) and without (listSavedViews: a list never carries the states). */
export const SAVED_VIEW_READ: RecordRead<SavedViewRow, SavedView> = {
  select: `SELECT ${SAVED_VIEW_COLUMNS}, v.state FROM saved_views v JOIN projects p ON p.id = v.project_id`,
  toRecord: (row) => ({ ...savedViewSummary(row), stateText: row.state }),
};
export const SAVED_VIEW_SUMMARY_READ: RecordRead<Omit<SavedViewRow, "state">, SavedViewSummary> = {
  select: `SELECT ${SAVED_VIEW_COLUMNS} FROM saved_views v JOIN projects p ON p.id = v.project_id`,
  toRecord: savedViewSummary,
};
