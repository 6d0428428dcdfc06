import type { AlertStore } from "./alert-store.js";
import type { PeopleStore } from "./people-store.js";
import type { AuditAction, AuditEntry, NewAuditEntry } from "../domain/audit.js";
import type { Role } from "../domain/roles.js";
import type { Json } from "../domain/merge.js";
import type { ConsoleLogType } from "../domain/console-logs.js";
import type { Page, PageRequest } from "../domain/paging.js";
import type { StatusRequest } from "../domain/runs.js";
import type { RunStatus, StatusSource } from "../domain/status.js";
import type { ColumnSort } from "../domain/run-list.js";
import type { MetricSummaryState } from "../domain/summaries.js";
import type { PointRule } from "../domain/metric-points.js";
import type { Point, SampledPoint } from "../domain/sampling.js";
import type { CopyRow, CopyValue } from "./copy-tables.js";
import type { LoggedModelStatus } from "../domain/mlflow/logged-model-status.js";
import type { RetentionPolicy } from "../domain/deletion.js";

/**
 * The storage contract, one interface per aggregate (docs/architecture.md, "Storage"). Both backends
 * (SQLite, PostgreSQL) implement every one and pass test/store/contract.test.ts unchanged; a backend
 * for one aggregate alone (say metric points in a columnar database) implements that interface and
 * passes its suite. Conventions:
 * - The organization ID is the first argument of every tenant method and the first predicate
 *   of every query: a run of another organization reads exactly like a run that does not exist.
 * - Absent is `undefined`, never an exception. Rule violations throw DomainError.
 * - Each method is one transaction: it is applied whole or not at all.
 * - Timestamps are epoch milliseconds.
 */
export interface Store
  extends StoreConnection,
    AccountStore,
    PeopleStore,
    ProjectStore,
    RunStore,
    MetricStore,
    LogStore,
    FileStore,
    MlflowStore,
    ModelRegistryStore,
    LoggedModelStore,
    SharedStateStore,
    OidcLoginStore,
    SavedViewStore,
    AlertStore,
    DeletionStore,
    AuditStore,
    CopyStore {}

/** Connections and waiting requests of a database pool (PostgreSQL's), read when GET /metrics is scraped. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

export interface StoreConnection {
  /** Cheap query that proves the store answers; throws when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** A store on a pool of database connections (PostgreSQL) says how it is used, for GET /metrics. */
  poolUse?(): PoolUse;
  /**
   * Gives the space of deleted rows back to the file system where the engine can do so without
   * rewriting the database (SQLite in auto_vacuum=INCREMENTAL mode: incremental_vacuum in short
   * steps, for at most `budgetMs`), or, with `rewrite`, at once by rewriting it (SQLite's VACUUM, which
   * also switches an older database to incremental mode). PostgreSQL reuses the space of deleted rows
   * itself (autovacuum) and is left as it is. Returns the database's size in bytes before and after,
   * and the bytes still free inside it (reused by later writes).
   */
  reclaimSpace(options: {
    rewrite: boolean;
    budgetMs: number;
  }): Promise<{ bytesBefore: number; bytesAfter: number; freeBytesLeft: number }>;
}

/** Organizations, users, memberships, API keys and sessions (docs/semantics.md, "People, roles and sign-in"). */
export interface AccountStore {
  createOrganization(slug: string, now: number): Promise<Organization>;
  listOrganizations(): Promise<Organization[]>;
  getOrganizationBySlug(slug: string): Promise<Organization | undefined>;
  /** Throws CONFLICT when a person of that email exists. The user is nobody's member yet (setMembership). */
  createUser(user: NewUser, now: number): Promise<User>;
  getUser(userId: string): Promise<User | undefined>;
  /** The person of that email (lowercased by the caller, domain/people.ts). */
  getUserByEmail(email: string): Promise<User | undefined>;
  /** The user's password hash (domain/passwords.ts), or undefined when none is set. */
  getPasswordHash(userId: string): Promise<string | undefined>;
  setPasswordHash(userId: string, hash: string | null): Promise<void>;
  /** Users who are members of the organization, oldest first (legacy: the users created in it). */
  listUsers(orgId: string): Promise<User[]>;
  /**
   * Makes the user a member with that role, or changes its role. Throws CONFLICT when that would
   * leave the organization without an owner (domain/roles.ts assertOwnerRemains).
   */
  setMembership(orgId: string, userId: string, role: Role, now: number): Promise<Membership>;
  getMembership(orgId: string, userId: string): Promise<Membership | undefined>;
  /**
   * Ends a membership, revoking the user's keys in the organization and ending its sessions there,
   * in one transaction: a removed user's keys stop working at once. False when it was no member;
   * CONFLICT when it is the last owner.
   */
  removeMembership(orgId: string, userId: string, now: number): Promise<boolean>;
  /** The organization's members with their users, oldest membership first. */
  listMembers(orgId: string): Promise<Member[]>;
  /** The organizations the user belongs to, by slug. */
  listMemberships(userId: string): Promise<(Membership & { orgSlug: string })[]>;
  /** Throws CONFLICT when the key hash already exists (practically impossible with 128 random bits). */
  createApiKey(input: NewApiKey): Promise<ApiKeyRecord>;
  /**
   * The key with its organization and its owner's role there now (null once the owner is no longer
   * a member), whatever its expiry or revocation (the caller tells those apart). One query: every
   * authenticated request makes it.
   */
  getApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { orgSlug: string; memberRole: Role | null }) | undefined>;
  /** A key by its ID, revoked or not (signed file URLs name the key that minted them). */
  getApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(orgId: string): Promise<ApiKeyRecord[]>;
  /** Soft delete. Returns the key as revoked, or undefined when no such key exists. Revoking twice keeps the first time. */
  revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined>;
  createSession(session: NewSession): Promise<void>;
  /**
   * The session of that token hash with its organization and the user's role there now (null once
   * no longer a member), ended or expired too (domain/sessions.ts tells those apart). One query.
   */
  getSessionByHash(tokenHash: string): Promise<(SessionRecord & { orgSlug: string; memberRole: Role | null }) | undefined>;
  /** A session by its ID, live or not (signed file URLs name the session that minted them). */
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Records activity (the idle expiry counts from it). */
  touchSession(sessionId: string, now: number): Promise<void>;
  /** Moves the session to another organization (the caller checked the membership). */
  setSessionOrganization(sessionId: string, orgId: string): Promise<void>;
  /** Ends the session for good; ending twice keeps the first time. */
  endSession(sessionId: string, now: number): Promise<void>;
}

export interface ProjectStore {
  listProjects(orgId: string): Promise<Project[]>;
  getProjectByName(orgId: string, name: string): Promise<Project | undefined>;
  /** Creates an empty project; throws CONFLICT when the organization has one of that name. */
  createProject(orgId: string, name: string, now: number): Promise<Project>;
  getProject(orgId: string, projectId: number): Promise<Project | undefined>;
}

/**
 * MLflow's protocol (docs/api.md, "MLflow's REST API"): experiments are projects, runs are runs. The
 * MLflow layer (src/services/mlflow*.ts, src/http/routes/mlflow/) reads its runs and experiments here,
 * never through RunStore's or ProjectStore's reads: only these return MLflow's fields (MlflowRun,
 * MlflowProject).
 */
export interface MlflowStore {
  /** An experiment: the project with MLflow's fields, or undefined when it does not exist in the organization. */
  getMlflowProject(orgId: string, projectId: number): Promise<MlflowProject | undefined>;
  getMlflowProjectByName(orgId: string, name: string): Promise<MlflowProject | undefined>;
  /** Every experiment of the organization (deleted ones too), by name. */
  listMlflowProjects(orgId: string): Promise<MlflowProject[]>;
  /** The organization's default experiment (MLflow's experiment "0"), or undefined while it has none. */
  getMlflowDefaultProject(orgId: string): Promise<MlflowProject | undefined>;
  /**
   * The organization's default experiment, made if it has none yet: its project named "Default" is
   * adopted as it is, or, when there is none, that project is created empty, dated from the
   * organization's creation (MLflow's server makes its default before any other experiment).
   * Concurrent calls return one project: an organization never has two defaults, and the default,
   * once marked, stays (renamed or deleted, it is still experiment "0").
   */
  createMlflowDefaultProject(orgId: string): Promise<MlflowProject>;
  /**
   * Reads the project's MLflow state under a lock, applies `change` (a pure rule, which may throw a
   * DomainError: then nothing is written) and stores the result. A name taken by another project
   * throws CONFLICT. When the project goes from active to deleted or back, every one of its runs
   * takes the same deletedAt in the same transaction (MLflow's experiment delete and restore carry
   * the experiment's runs). Returns the updated project, or undefined when it does not exist in the organization.
   */
  updateProjectMlflow(
    orgId: string,
    projectId: number,
    change: (state: ProjectMlflowState) => ProjectMlflowState,
    now: number,
  ): Promise<MlflowProject | undefined>;
  /** A run by its MLflow run ID (32 lowercase hex digits, stable, given to every run at creation). */
  getRunByMlflowId(orgId: string, mlflowId: string): Promise<MlflowRun | undefined>;
  /** A run by its Stepwise ID, with MLflow's fields (a run MLflow's client just created or updated). */
  getMlflowRun(orgId: string, runId: number): Promise<MlflowRun | undefined>;
  /** RunStore.getRuns with MLflow's fields: in the order asked, IDs unknown in the organization left out. */
  getMlflowRuns(orgId: string, runIds: number[]): Promise<MlflowRun[]>;
  /**
   * What MLflow's metric and write routes need to find a run: its ID and lifecycle, read without
   * its JSON fields (params, tags and inputs may hold up to 1 MB each, which every log-metric re-read).
   */
  getMlflowRunRef(orgId: string, mlflowId: string): Promise<MlflowRunRef | undefined>;
  /** As updateProjectMlflow, for a run's name, config (MLflow's params), MLflow tags, inputs and lifecycle. */
  updateRunMlflow(
    orgId: string,
    runId: number,
    change: (state: RunMlflowState) => RunMlflowState,
    now: number,
  ): Promise<MlflowRun | undefined>;
  /** Every run of the project with what MLflow's run search filters and sorts on, newest first. */
  listMlflowCandidates(orgId: string, projectId: number): Promise<MlflowCandidate[]>;
  /**
   * The dataset inputs (RunMlflowFields.mlflowInputs) of each run of the project that has any, by run
   * ID: what a search's `datasets.` clauses read, only when it has one.
   */
  listMlflowInputs(orgId: string, projectId: number): Promise<Map<number, Json>>;
}

/**
 * MLflow's model registry (docs/api.md, "MLflow's REST API: the model registry"): registered models of
 * an organization, unique by name, and their numbered versions. The rules (names, stages, aliases,
 * search) are src/domain/mlflow/registry.ts; the store keeps the rows and numbers versions.
 */
export interface ModelRegistryStore {
  /** Throws CONFLICT when the organization has a model of that name. */
  createRegisteredModel(orgId: string, model: RegisteredModelState, now: number): Promise<RegisteredModel>;
  getRegisteredModel(orgId: string, name: string): Promise<RegisteredModel | undefined>;
  /** Every registered model of the organization, by name. */
  listRegisteredModels(orgId: string): Promise<RegisteredModel[]>;
  /**
   * A new version of the model, numbered one past the highest number it ever had (a deleted
   * version's number is not given again); the model's updatedAt becomes `now`. Concurrent calls
   * (several processes on one PostgreSQL) take distinct numbers. Undefined when the model does not exist.
   */
  createModelVersion(orgId: string, name: string, input: NewModelVersion, now: number): Promise<ModelVersion | undefined>;
  getModelVersion(orgId: string, name: string, version: number): Promise<ModelVersion | undefined>;
  /** The versions of the model of that name, or of every model of the organization when `name` is undefined; by model ID, then version. */
  listModelVersions(orgId: string, name?: string): Promise<ModelVersion[]>;
  /**
   * Reads the model and its versions under a lock, applies `change` (a pure rule, which may throw:
   * then nothing is written) and stores the result: the model's new state (renamed: CONFLICT when the
   * name is taken; its versions follow), or, when `change` answers `model: null`, deletes the model
   * with its versions; versions `change` leaves out are deleted, the others written when they changed.
   * Returns the model and versions as stored, or undefined when the model does not exist.
   */
  updateRegisteredModel(
    orgId: string,
    name: string,
    change: (model: RegisteredModel, versions: ModelVersion[]) => RegistryChange,
    now: number,
  ): Promise<RegistryEntry | undefined>;
}

/** What a registry write may change of a registered model. */
export interface RegisteredModelState {
  name: string;
  description: string;
  /** Key-value tags, in the order first set. */
  tags: [string, string][];
  /** Aliases and the version each names, in the order first set. */
  aliases: [string, number][];
}

export interface RegisteredModel extends RegisteredModelState {
  id: number;
  /** The highest version number the model ever gave. */
  lastVersion: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * MLflow 3's logged models (docs/api.md, "MLflow's REST API: logged models"): a model of an
 * experiment (a project), optionally made by a run, whose files are files of that run.
 */
export interface LoggedModelStore {
  /** Stores a new model (its ID given by the caller, "m-<32 hex>"). Undefined when the project or the source run is not in the organization. */
  createLoggedModel(orgId: string, input: NewLoggedModel): Promise<LoggedModel | undefined>;
  /** A model by its ID, deleted or not; undefined when it is not in the organization. */
  getLoggedModel(orgId: string, modelId: string): Promise<LoggedModel | undefined>;
  /** The models of these projects that are not deleted, newest first. */
  listLoggedModels(orgId: string, projectIds: number[]): Promise<LoggedModel[]>;
  /**
   * Reads the model under a lock, applies `change` (a pure rule, which may throw a DomainError or an
   * MlflowError: then nothing is written) and stores the result, updating its time. Undefined when
   * the model is not in the organization.
   */
  updateLoggedModel(
    orgId: string,
    modelId: string,
    change: (state: LoggedModelState) => LoggedModelState,
    now: number,
  ): Promise<LoggedModel | undefined>;
}

/** What a logged model's changes (finalize, params, tags, delete) may change. */
export interface LoggedModelState {
  status: LoggedModelStatus;
  params: [string, string][];
  tags: [string, string][];
  deletedAt: number | null;
}

export interface NewLoggedModel {
  id: string;
  projectId: number;
  name: string;
  modelType: string | null;
  /** The Stepwise ID of the run that logs the model. */
  sourceRunId: number | null;
  params: [string, string][];
  tags: [string, string][];
  now: number;
}

export interface LoggedModel extends LoggedModelState {
  id: string;
  projectId: number;
  /** Whether the project is the organization's default experiment ("0"). */
  inDefaultExperiment: boolean;
  name: string;
  modelType: string | null;
  sourceRunId: number | null;
  /** The source run's MLflow run ID. */
  sourceMlflowRunId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What a registry write may change of a model version. */
export interface ModelVersionState {
  version: number;
  description: string;
  /** MLflow's stage: None, Staging, Production or Archived. */
  stage: string;
  tags: [string, string][];
}

export interface NewModelVersion {
  description: string;
  userId: string;
  stage: string;
  /** The source the client named (`mlflow-artifacts:/…`, `models:/…`, a URI). */
  source: string;
  /** Where its files are read from (the source, or the resolved location of a `models:/` source). */
  storageLocation: string;
  runId: string;
  runLink: string;
  status: string;
  tags: [string, string][];
}

export interface ModelVersion extends ModelVersionState, Omit<NewModelVersion, keyof ModelVersionState> {
  modelId: number;
  modelName: string;
  statusMessage: string;
  createdAt: number;
  updatedAt: number;
}

/** What a change of updateRegisteredModel answers: the model's new state (null: delete it) and the versions it keeps. */
export interface RegistryChange {
  model: RegisteredModelState | null;
  versions: ModelVersionState[];
}

/** A registered model and its versions as stored after a change (model null: deleted). */
export interface RegistryEntry {
  model: RegisteredModel | null;
  versions: ModelVersion[];
}

/** What MLflow's protocol keeps of a run beside Stepwise's fields (docs/api.md, "MLflow's REST API"). */
export interface RunMlflowFields {
  /** The run's MLflow run ID: 32 lowercase hex digits, given at creation, never changed. */
  mlflowId: string;
  /** MLflow's key-value run tags, in the order first set. */
  mlflowTags: [string, string][];
  /** The `user_id` MLflow's client created the run with ("" when none, and for runs made by Stepwise's own routes). */
  mlflowUserId: string;
  /** The dataset inputs MLflow's client logged (log-inputs), one per dataset name and digest; null when none. */
  mlflowInputs: Json | null;
  /** Whether the run's project is its organization's default experiment (MLflow's experiment "0", ProjectMlflowFields). */
  inDefaultExperiment: boolean;
}

/** A run as MLflow's protocol reads it (MlflowStore). */
export type MlflowRun = Run & RunMlflowFields;

/** What MLflow's protocol keeps of a project (an experiment) beside Stepwise's fields. */
export interface ProjectMlflowFields {
  /** MLflow's experiment tags, in the order first set. */
  mlflowTags: [string, string][];
  /**
   * Whether the project is its organization's default experiment, MLflow's experiment "0"
   * (domain/mlflow/ids.ts maps experiment IDs). An organization has one at most.
   */
  defaultExperiment: boolean;
}

/** A project as MLflow's protocol reads it: an experiment (MlflowStore). */
export type MlflowProject = Project & ProjectMlflowFields;

/** Runs: their lifecycle, attributes, history and alerts. */
export interface RunStore {
  /**
   * Creates a run, creating its project on first use. With an externalId that already names a
   * run of the project, that run is resumed instead (RUNNING again if it had finished, with a
   * `resume` history event) and returned with `resumed: true`; concurrent creates with one
   * externalId therefore yield exactly one run. Throws RUN_NOT_FOUND for an unknown fork parent
   * and INVALID_INPUT for a fork step past the parent's last step. Nothing is written on error.
   */
  createRun(orgId: string, input: CreateRunInput, actor: Actor): Promise<{ run: Run; resumed: boolean }>;
  /** Sets a finished run back to RUNNING (history source `resume`); a RUNNING run is unchanged. */
  resumeRun(orgId: string, runId: number, now: number, actor: Actor): Promise<Run | undefined>;
  getRun(orgId: string, runId: number): Promise<Run | undefined>;
  /**
   * The project name of a run, or undefined when the organization has no such run: all that ingest
   * and file registration need to check `X-Project-Name`, read without the run's JSON fields
   * (config and MLflow's tags may each hold up to 1 MB, which every ingest request re-read).
   */
  getRunProjectName(orgId: string, runId: number): Promise<string | undefined>;
  /** One page of a project's runs by name search, tags and statuses, in column order; `total` counts every match. */
  listRuns(orgId: string, projectId: number, query: RunListQuery): Promise<{ runs: Run[]; total: number }>;
  /** Every run of the project that the narrowing matches, newest first, with what filters and sorts read. */
  listRunCandidates(orgId: string, projectId: number, narrowing: RunNarrowing): Promise<RunCandidate[]>;
  /** The runs forked from a run (its children in the fork lineage), oldest first. */
  listForks(orgId: string, runId: number): Promise<Run[]>;
  /**
   * Runs by ID in one call, however many (routes answering many runs use this, never a getRun per
   * run). In the order asked; an ID asked twice comes twice; IDs unknown in the organization are
   * left out, so the result may be shorter than the list. An empty list gives an empty result.
   */
  getRuns(orgId: string, runIds: number[]): Promise<Run[]>;
  getRunByExternalId(orgId: string, projectName: string, externalId: string): Promise<Run | undefined>;
  /** Runs whose display ID is `<prefix>-<number>`, in every project of the organization or in one. */
  listRunsByDisplayId(orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]>;
  /**
   * Applies a status write under the precedence rules of domain/status.ts. An ignored write
   * stores nothing (no metadata, settings or event) and returns `applied: false`.
   * Returns undefined when the run does not exist in the organization.
   */
  updateRunStatus(orgId: string, runId: number, update: StatusUpdate, actor: Actor): Promise<{ applied: boolean } | undefined>;
  /** The timeline in the order it happened, or undefined for an unknown run. */
  listStatusEvents(orgId: string, runId: number): Promise<StatusEvent[] | undefined>;
  /** Each returns false when the run does not exist in the organization. */
  updateRunTags(orgId: string, runId: number, tags: string[], now: number): Promise<boolean>;
  updateRunNotes(orgId: string, runId: number, notes: string | null, now: number): Promise<boolean>;
  /** Deep-merges the patch into the run's config (domain/merge.ts). */
  mergeRunConfig(orgId: string, runId: number, patch: Json, now: number): Promise<boolean>;
  /** Adds names not yet known; a known name keeps its first type. */
  addLogNames(orgId: string, runId: number, logNames: string[], logType: LogType, now: number): Promise<boolean>;
  listLogNames(orgId: string, runId: number): Promise<LogName[]>;
  setModelGraph(orgId: string, runId: number, graph: Json, now: number): Promise<boolean>;
  /** undefined for an unknown run; null when the run has no graph. */
  getModelGraph(orgId: string, runId: number): Promise<Json | null | undefined>;
  /** Records a heartbeat and returns the run's status, or undefined for an unknown run. */
  recordHeartbeat(orgId: string, runId: number, now: number): Promise<RunStatus | undefined>;
  createAlert(orgId: string, runId: number, alert: NewAlert, now: number): Promise<boolean>;
  listAlerts(orgId: string, runId: number): Promise<Alert[] | undefined>;
  /**
   * Marks every RUNNING run whose last heartbeat is older than `cutoff` as FAILED with status
   * metadata `{reason: "stale"}` and a history event of source `stale`, across organizations.
   * Returns the IDs of the runs marked (alert rules on their status are evaluated from them).
   */
  failStaleRuns(cutoff: number, now: number): Promise<number[]>;
}

/**
 * Metric points and their summaries. Ingest (docs/semantics.md, Ingest wire format): each append is one
 * transaction, a batch stored whole or not at all, and counts as a heartbeat of the run and as activity:
 * the run's updatedAt becomes `now`, and its project's too when older than PROJECT_ACTIVITY_RESOLUTION_MS
 * (src/domain/time.ts). Appends return undefined for an unknown run.
 */
export interface MetricStore {
  /**
   * Stores metric points, a point being (run, logName, step): a step sent again replaces its
   * value (last write wins). Updates the per-metric summaries in the same transaction and adds
   * new metric names to the run's log names (type METRIC). Returns the number of points stored.
   */
  appendMetricPoints(orgId: string, runId: number, series: MetricSeries[], now: number): Promise<number | undefined>;
  // Metric reads (docs/semantics.md, Metrics). A forked run's series include its lineage's points up to the
  // fork step (and below the run's own first point of that metric), without copies.
  /** Live summaries of every metric of the run, inherited points included, by name. */
  listMetricSummaries(orgId: string, runId: number, filter?: { logName?: string; logGroup?: string }): Promise<MetricSummary[]>;
  /**
   * listMetricSummaries for many runs at once (a run list page): one query for runs without a
   * lineage, the lineage path for forked ones. Every run of `runIds` in this organization is a key
   * (with [] when it has no metrics); unknown and other organizations' runs are left out.
   */
  listMetricSummariesOfRuns(orgId: string, runIds: number[]): Promise<Map<number, MetricSummary[]>>;
  /**
   * How many metrics of their own each run has (a fork's inherited ones not counted), in one read:
   * what a caller needs to bound a response before reading the summaries. Runs without metrics,
   * and IDs unknown in the organization, are absent.
   */
  countMetricsOfRuns(orgId: string, runIds: number[]): Promise<Map<number, number>>;
  /** The points of one metric with stepMin ≤ step ≤ stepMax, in the point order (domain/metric-points.ts), after the first `skip`; at most `limit` when given. */
  readMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit?: number,
    skip?: number,
  ): Promise<Point[]>;
  /** At most `limit` points of one metric in the window, chosen by domain/sampling.ts. */
  sampleMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit: number,
  ): Promise<SampledPoint[]>;
  /** One metric's summary for each run of the project that has it (or of the given runs). */
  listRunMetricSummaries(orgId: string, projectId: number, logName: string, runIds?: number[]): Promise<RunMetricSummary[]>;
  /** The LAST finite value of one metric per run of the project (inherited points included), for runs that have one. */
  listRunLastValues(orgId: string, projectId: number, logName: string): Promise<Map<number, number>>;
  /** Distinct metric names of a project (or of some of its runs), ascending, at most `limit`. */
  listMetricNames(orgId: string, projectId: number, query: MetricNameQuery): Promise<string[]>;
}

/** Console lines and data rows; appends are ingest as MetricStore's are. */
export interface LogStore {
  /**
   * Console lines, one per (run, logType, lineNumber, time) (src/domain/console-logs.ts): a re-sent
   * line replaces the stored one, never duplicates it; another process's line with the same number is kept.
   */
  appendConsoleLines(orgId: string, runId: number, lines: ConsoleLine[], now: number): Promise<number | undefined>;
  /** Data rows, one per (run, logName, step); names are added to the run's log names by data type. */
  appendDataRows(orgId: string, runId: number, rows: DataRow[], now: number): Promise<number | undefined>;

  /**
   * One page (src/domain/paging.ts) of console lines by time, then lineNumber, then logType, measured
   * by their messages; `total` counts every match regardless of paging.
   */
  listConsoleLines(orgId: string, runId: number, query: ConsoleLineQuery): Promise<Page<ConsoleLine> & { total: number }>;
  /** One page (src/domain/paging.ts) of the run's data rows, optionally of one name, by name then step, measured by their data. */
  listDataRows(orgId: string, runId: number, query: DataRowQuery): Promise<Page<StoredDataRow>>;
}

/** Files (docs/semantics.md, Ingest wire format: files). Records live here; their bytes in a BlobStore (src/blobs). */
export interface FileStore {
  /**
   * Registers files of a run, idempotent on (run, logName, fileName): a name registered again
   * keeps its ID and takes the new metadata. Adds the log names by file type. One transaction;
   * undefined for an unknown run.
   */
  registerFiles(orgId: string, runId: number, files: NewFile[], now: number): Promise<StoredFile[] | undefined>;
  /** A file by ID in any organization: for signed URLs only, whose signature is their authority. */
  getFile(fileId: number): Promise<StoredFile | undefined>;
  /** Records that the file's bytes are stored, with their real size. */
  markFileUploaded(fileId: number, size: number, now: number): Promise<void>;
  /**
   * Uploaded files of the run, by step, then sample index, then name; with `pending`, instead the
   * registered files whose bytes have not been recorded yet (a bucket's direct uploads are confirmed from these).
   */
  listFiles(orgId: string, runId: number, query: FileQuery): Promise<StoredFile[]>;
  /** Removes a file's record (its bytes are the caller's to remove); false when no such file is in the organization. */
  deleteFile(orgId: string, fileId: number): Promise<boolean>;
}

/** The name of the URL-signing secret's row in the shared `secrets` table. */
export const SIGNING_SECRET_NAME = "url-signing";

/** State shared by every process serving this store (docs/architecture.md, "Several processes on one store"). */
export interface SharedStateStore {
  /**
   * The URL-signing secret of every process on this store. Stores `candidate` when the store has
   * none yet and returns the stored one: processes starting together all get the first one stored.
   */
  getOrCreateSigningSecret(candidate: Uint8Array, now: number): Promise<Uint8Array>;
  /**
   * Takes lease `name` for `holderId` until `now + ttlMs` when it is free, expired (its expiry ≤ now)
   * or already held by `holderId` (a renewal). Atomic: of processes asking at once, one gets it.
   * Returns whether `holderId` holds the lease now.
   */
  tryAcquireLease(name: string, holderId: string, now: number, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holderId` holds it, so another process takes over without waiting for the expiry. */
  releaseLease(name: string, holderId: string): Promise<void>;
}

/** A sign-in started at the OpenID Connect provider, waiting for its callback (docs/api.md, "Single sign-on"). */
export interface PendingOidcLogin {
  /** SHA-256 (hex) of the `state` sent to the provider: the key the callback presents. */
  stateHash: string;
  nonce: string;
  /** PKCE's code verifier, whose S256 challenge went to the provider. */
  codeVerifier: string;
  /** The redirect URI sent to the provider, sent again with the code. */
  redirectUri: string;
  /** The same-origin path the browser returns to once signed in. */
  returnTo: string;
  createdAt: number;
  expiresAt: number;
}

/** Pending single sign-ins, shared by every process on the store so the callback may reach any of them. */
export interface OidcLoginStore {
  /** Stores a pending sign-in, and deletes those expired by `login.createdAt` (nobody can finish them). */
  createOidcLogin(login: PendingOidcLogin): Promise<void>;
  /**
   * Takes the pending sign-in of this state: deletes it and returns it, in one statement, so of
   * callbacks presenting one state at once (on any process) exactly one gets it. Undefined when
   * there is none, or it expired by `now` (deleted all the same).
   */
  takeOidcLogin(stateHash: string, now: number): Promise<PendingOidcLogin | undefined>;
}

/**
 * Saved views of a project's page (docs/api.md, "Saved views"): a name, unique in its project, and
 * the UI's state as JSON text the store keeps as given. A view of another organization reads, updates
 * and deletes exactly like one that does not exist.
 */
export interface SavedViewStore {
  /**
   * A view of the project. Undefined when the project is not the organization's (nothing is stored);
   * throws CONFLICT when the project has a view of that name.
   */
  createSavedView(orgId: string, projectId: number, input: NewSavedView, now: number): Promise<SavedView | undefined>;
  /** The view with its state, or undefined when the organization has no view of that ID. */
  getSavedView(orgId: string, viewId: number): Promise<SavedView | undefined>;
  /** A page of the project's views without their state, newest first (created, then ID). */
  listSavedViews(orgId: string, projectId: number, page: { limit: number; offset: number }): Promise<SavedViewSummary[]>;
  /**
   * Renames the view and/or replaces its state (a field left undefined keeps its value); updatedAt
   * becomes `now`. Undefined when the organization has no view of that ID; throws CONFLICT when
   * another view of the project has the new name.
   */
  updateSavedView(orgId: string, viewId: number, change: Partial<NewSavedView>, now: number): Promise<SavedView | undefined>;
  /** Whether a view of the organization was deleted. */
  deleteSavedView(orgId: string, viewId: number): Promise<boolean>;
}

export interface NewSavedView {
  name: string;
  /** JSON text of an object (domain/saved-views.ts checks it). */
  stateText: string;
}

export interface SavedViewSummary {
  id: number;
  projectId: number;
  projectName: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export interface SavedView extends SavedViewSummary {
  stateText: string;
}

/**
 * Deletion, the trash, the purge and retention (docs/semantics.md, "Deletion"). A deleted run or
 * project has its `deleted_at` set (the column MLflow's deletes set too) and leaves every read of
 * RunStore, ProjectStore, MetricStore's project reads and FileStore.getFile at once; the purge
 * removes its rows (across organizations: it is the operator's, never a request's) once
 * `deleted_at` is at or before a cutoff.
 */
export interface DeletionStore {
  /**
   * Soft-deletes the runs (domain/deletion.ts planRunDeletion: each of the organization, else
   * RUN_NOT_FOUND; one in the trash already keeps its time; a run with a live fork outside the list,
   * CONFLICT). Returns the named IDs, each once. All or nothing.
   */
  deleteRuns(orgId: string, runIds: number[], now: number): Promise<number[]>;
  /** Brings runs back from the trash (domain/deletion.ts planRunRestore; a live one stays as it is). Returns the named IDs, each once. All or nothing. */
  restoreRuns(orgId: string, runIds: number[], now: number): Promise<number[]>;
  /** A page of the organization's deleted runs (of one project when given), most recently deleted first; `total` counts them all. */
  listDeletedRuns(
    orgId: string,
    projectId: number | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ runs: DeletedRun[]; total: number }>;
  /** The organization's deleted projects, most recently deleted first. */
  listDeletedProjects(orgId: string): Promise<DeletedProject[]>;
  /**
   * Up to `limit` deleted runs of any organization whose deleted_at is at or before `cutoff` and that
   * no run forks (a fork is purged first; a live fork keeps its parent), highest ID first.
   */
  listPurgeableRuns(cutoff: number, limit: number): Promise<PurgeTarget[]>;
  /**
   * Removes every row of the run (points, summaries, chunks, console lines, data rows, files' records,
   * history, alerts, log names; MLflow's logged models keep their record without it) and the run,
   * and queues its file bytes (listBlobPurges) in the same transaction. Checks again, under the lock,
   * that it is still deleted at or before `cutoff` and unforked; undefined (nothing done) when not.
   */
  purgeRun(runId: number, cutoff: number, now: number): Promise<PurgedRun | undefined>;
  /** Runs whose rows are purged and whose file bytes are still to remove, oldest first. */
  listBlobPurges(limit: number): Promise<PurgeTarget[]>;
  /** The run's bytes are gone: forget it. */
  deleteBlobPurge(runId: number): Promise<void>;
  /** Up to `limit` projects deleted at or before `cutoff` that have no run left, of any organization. */
  listPurgeableProjects(cutoff: number, limit: number): Promise<{ projectId: number; orgId: string }[]>;
  /** Removes the project's rows (metric names, saved views, logged models, retention policy) and the project; false when it no longer qualifies. */
  purgeProject(projectId: number, cutoff: number): Promise<boolean>;
  /** The live project's retention policy, or undefined when it has none (or is not the organization's). */
  getRetentionPolicy(orgId: string, projectId: number): Promise<StoredRetentionPolicy | undefined>;
  /** Sets (or, with null, removes) the live project's policy; false when the organization has no such live project. */
  setRetentionPolicy(orgId: string, projectId: number, policy: RetentionPolicy | null, now: number): Promise<boolean>;
  /** Every policy of every live project: what the periodic purge applies. */
  listRetentionPolicies(): Promise<(StoredRetentionPolicy & { orgId: string; projectId: number })[]>;
  /**
   * The runs the project's policy deletes at `now` (domain/deletion.ts runsToRetire), ascending; with
   * `apply`, soft-deletes them in the same transaction. [] when the project has no policy.
   */
  retireRuns(orgId: string, projectId: number, now: number, apply: boolean): Promise<number[]>;
}

export interface StoredRetentionPolicy extends RetentionPolicy {
  updatedAt: number;
}

/** A run in the trash. */
export interface DeletedRun {
  id: number;
  projectId: number;
  projectName: string;
  name: string;
  displayId: string;
  status: RunStatus;
  deletedAt: number;
  /** Whether it was deleted with its project (restore the project to restore it). */
  projectDeleted: boolean;
}

/** A project in the trash, with every run it holds. */
export interface DeletedProject {
  id: number;
  name: string;
  deletedAt: number;
  runCount: number;
}

/** What the purge names of a run: enough to find its file bytes (src/blobs) once its rows are gone. */
export interface PurgeTarget {
  runId: number;
  orgId: string;
  projectId: number;
}

/** What purging a run removed. */
export interface PurgedRun extends PurgeTarget {
  points: number;
  files: number;
}

/** Bulk copy between stores (`stepwise copy`): rows of the tables in src/store/copy-tables.ts, by table name. */
export interface CopyStore {
  /** Up to `limit` rows of the table in key order, starting after the row whose key values are `after` (null: from the first). */
  exportRows(table: string, after: CopyValue[] | null, limit: number): Promise<CopyRow[]>;
  /**
   * Inserts the rows as they are (IDs, numbers and counters included) in one transaction; a row whose
   * key or unique values a stored row has already is skipped. Afterwards, IDs the store generates
   * continue past every imported ID. Returns how many rows were inserted.
   */
  importRows(table: string, rows: CopyRow[]): Promise<number>;
  countRows(table: string): Promise<number>;
}

export interface NewFile {
  logName: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  /** Client time, epoch ms. */
  time: number;
  step: number;
  sampleIndex?: number | null;
  caption?: string | null;
  annotations?: string | null;
}

export interface StoredFile extends Required<NewFile> {
  id: number;
  runId: number;
  /** The run's organization and project: with the IDs above they name the file's blob (src/blobs). */
  orgId: string;
  projectId: number;
  logGroup: string;
  /** When the bytes were stored; null until the upload arrives. */
  uploadedAt: number | null;
}

export interface FileQuery {
  logName?: string;
  logGroup?: string;
  /** List the files still waiting for their bytes instead of the uploaded ones. */
  pending?: boolean;
}

/** Points of one metric in ascending step order, one per step (the last one sent for a step wins). */
/**
 * A series as the metric write path reads it: MetricSeries, or its points as float64 columns (the
 * SQLite store hands its writer thread those, moved without a copy: metric-writer-thread.ts).
 */
export interface SeriesColumns {
  logName: string;
  steps: ArrayLike<number>;
  values: ArrayLike<number>;
  times: ArrayLike<number>;
  rule?: PointRule;
}

export interface MetricSeries {
  logName: string;
  steps: number[];
  values: number[];
  /** Client time of each point, epoch ms. */
  times: number[];
  /**
   * How the points meet those stored at their steps (domain/metric-points.ts); "replace-step" when
   * absent, with one point per step, ascending. With "keep-every-point" the points are in the point order, distinct.
   */
  rule?: PointRule;
}

export interface MetricSummary extends MetricSummaryState {
  logName: string;
  /** The part of logName before its last `/`; "" when there is none. */
  logGroup: string;
  /**
   * Client time of the point at lastStep, when the store keeps it: null for a metric not written
   * since that time was kept (migration 0011) and for a summary over
   * a fork's inherited points. Null means "read the point", never "no time".
   */
  lastTime: number | null;
}

export interface ConsoleLine {
  time: number;
  message: string;
  lineNumber: number;
  logType: ConsoleLogType;
  step: number | null;
}

export interface DataRow {
  time: number;
  step: number;
  logName: string;
  dataType: string;
  data: string;
}

export interface RunMetricSummary {
  runId: number;
  summary: MetricSummaryState;
}

export interface MetricNameQuery {
  search?: string;
  runIds?: number[];
  limit: number;
}

export interface ConsoleLineQuery extends PageRequest {
  logType?: ConsoleLogType;
}

export interface DataRowQuery extends PageRequest {
  logName?: string;
}

export interface StoredDataRow extends DataRow {
  logGroup: string;
}

export interface Organization {
  id: string;
  slug: string;
  createdAt: number;
}

export type UserKind = "person" | "service";

export interface NewUser {
  /** The organization the user is created in (a service account's only one). */
  orgId: string;
  /** A person's email, lowercased; null for a service account. */
  email: string | null;
  /** A person's display name, or a service account's name. */
  name: string;
  kind: UserKind;
}

export interface User extends NewUser {
  id: string;
  createdAt: number;
}

export interface Membership {
  orgId: string;
  userId: string;
  role: Role;
  createdAt: number;
}

export interface Member extends Membership {
  user: User;
}

export interface NewSession {
  id: string;
  /** SHA-256 of the cookie's token; the token itself is never stored. */
  tokenHash: string;
  userId: string;
  orgId: string;
  csrfToken: string;
  createdAt: number;
  /** The absolute expiry (the idle one counts from lastSeenAt). */
  expiresAt: number;
  sourceIp: string | null;
  userAgent: string | null;
}

export interface SessionRecord extends Omit<NewSession, "tokenHash"> {
  lastSeenAt: number;
  endedAt: number | null;
}

export interface NewApiKey {
  orgId: string;
  userId: string;
  name: string;
  keyHash: string;
  /** The first characters of the key, shown in listings so a person can tell keys apart. */
  displayPrefix: string;
  createdAt: number;
  expiresAt: number | null;
  /** At most the owner's role; null: the owner's role, whatever it becomes. */
  role: Role | null;
}

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  userId: string;
  name: string;
  displayPrefix: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  role: Role | null;
}

/** Who made a write, recorded on status history events. */
export interface Actor {
  userId: string | null;
  apiKeyId: string | null;
}

/** A project as RunStore and ProjectStore read it; MLflow's fields are MlflowStore's (MlflowProject). */
export interface Project {
  id: number;
  name: string;
  runPrefix: string;
  createdAt: number;
  updatedAt: number;
  runCount: number;
  /**
   * When MLflow's client deleted the experiment (lifecycle stage `deleted`); null when active. A core
   * field, not MLflow's alone: a deleted project takes no new run from either protocol
   * (workflows/run-lifecycle.ts, checkProjectTakesRuns).
   */
  deletedAt: number | null;
}

export interface ProjectMlflowState {
  name: string;
  mlflowTags: [string, string][];
  deletedAt: number | null;
}

export interface MlflowRunRef {
  id: number;
  mlflowId: string;
  deletedAt: number | null;
}

export interface RunMlflowState {
  name: string;
  config: Json | null;
  mlflowTags: [string, string][];
  mlflowInputs: Json | null;
  deletedAt: number | null;
}

export interface MlflowCandidate {
  id: number;
  mlflowId: string;
  name: string;
  status: RunStatus;
  tags: string[];
  mlflowTags: [string, string][];
  mlflowUserId: string;
  createdAt: number;
  statusUpdated: number | null;
  config: Json | null;
  deletedAt: number | null;
}

export const LOG_TYPES = ["METRIC", "IMAGE", "VIDEO", "AUDIO", "FILE", "TEXT", "ARTIFACT", "HISTOGRAM", "TABLE", "DATA"] as const;
export type LogType = (typeof LOG_TYPES)[number];

export interface LogName {
  logName: string;
  logType: LogType;
  /** The part of logName before its last `/`; null when there is none. */
  logGroup: string | null;
}

/** A run as RunStore reads it; MLflow's fields are MlflowStore's (MlflowRun). */
export interface Run {
  id: number;
  projectId: number;
  projectName: string;
  name: string;
  number: number;
  displayId: string;
  externalId: string | null;
  status: RunStatus;
  tags: string[];
  notes: string | null;
  config: Json | null;
  systemMetadata: Json | null;
  loggerSettings: Json | null;
  statusMetadata: Json | null;
  createdAt: number;
  updatedAt: number;
  statusUpdated: number | null;
  heartbeatAt: number;
  forkedFromRunId: number | null;
  forkStep: number | null;
  /**
   * When MLflow's client deleted the run (lifecycle stage `deleted`); null when active. A core
   * field: the lifecycle a project's delete and restore carry to its runs (MlflowStore.updateProjectMlflow).
   */
  deletedAt: number | null;
}

export interface CreateRunInput {
  projectName: string;
  name: string;
  externalId?: string;
  tags: string[];
  config?: Json;
  systemMetadata?: Json;
  loggerSettings?: Json;
  /** Backfilled creation time; defaults to `now`. */
  createdAt?: number;
  updatedAt?: number;
  fork?: { runId: number; step: number; inheritConfig: boolean; inheritTags: boolean };
  /**
   * MLflow's key-value tags of a run created through MLflow's protocol: a protocol extension of the
   * create, so that the tags MLflow's client creates a run with (those it sent, and mlflow.runName)
   * are written by the create's insert, in its transaction, never by a second write the run could be
   * read without. The created run comes back as the core record; MLflow's create reads it again
   * through MlflowStore.getMlflowRun (services/mlflow-runs.ts).
   */
  mlflowTags?: [string, string][];
  /** The `user_id` of MLflow's create, likewise written by the insert ("" when absent). */
  mlflowUserId?: string;
  /**
   * The run's MLflow run ID when it has one already (`stepwise import mlflow` keeps the source's, so a
   * second import finds the run); a new one is made when absent. 32 lowercase hex digits.
   */
  mlflowId?: string;
  now: number;
}

/** What the store narrows run lists by, before any filter grammar runs. */
export interface RunNarrowing {
  /** Case-insensitive substring of the run name. */
  search?: string;
  /** Runs with any of these tags. */
  tags?: string[];
  statuses?: RunStatus[];
}

export interface RunListQuery extends RunNarrowing {
  order: { field: ColumnSort; descending: boolean };
  page: { limit: number; offset: number };
}

export type RunCandidate = Pick<
  Run,
  "id" | "name" | "status" | "tags" | "createdAt" | "updatedAt" | "statusUpdated" | "heartbeatAt" | "config" | "systemMetadata"
>;

export interface StatusUpdate extends StatusRequest {
  source: StatusSource;
}

export interface StatusEvent {
  id: number;
  runId: number;
  fromStatus: RunStatus | null;
  toStatus: RunStatus;
  source: StatusSource;
  metadata: Json | null;
  actorId: string | null;
  apiKeyId: string | null;
  createdAt: number;
}

export interface NewAlert {
  title: string;
  body: string;
  level: string;
  /** Client time of the alert, epoch ms. */
  timestamp: number | null;
}

export interface Alert extends NewAlert {
  id: number;
  createdAt: number;
}

/** The store cannot be opened (database unreachable, schema newer than this binary): a one-line message, no stack trace. */
export class StoreOpenError extends Error {}

export type { AuditEntry, NewAuditEntry };

/** Every Store method but the connection's and the audit log's own: what `audited` can run. */
export type AuditedMethod = Exclude<keyof Store, keyof StoreConnection | keyof AuditStore>;

/**
 * The audit log of each organization (docs/semantics.md, "Audit log"). Append-only: no method updates
 * or deletes an entry (the purge of runs and projects leaves them), so an entry, once committed, reads
 * the same for as long as the store holds its organization.
 */
export interface AuditStore {
  /** Appends the entries in one transaction, in order: each gets an ID above every entry before it. */
  appendAuditEntries(entries: NewAuditEntry[]): Promise<void>;
  /**
   * A page of the organization's entries that match every filter given, newest (highest ID) first:
   * at most `limit`, all below `beforeId` when given. Another organization's entries never match.
   */
  listAuditEntries(orgId: string, query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Runs the Store method `method` with `args` and appends the entries `entries` makes of its result
   * in the same transaction: a write and its audit entries commit together or not at all (a write
   * that throws records nothing). `entries` may return [] (a write that found nothing to change).
   */
  audited<K extends AuditedMethod>(
    method: K,
    args: Parameters<Store[K]>,
    entries: (result: Awaited<ReturnType<Store[K]>>) => NewAuditEntry[],
  ): ReturnType<Store[K]>;
}

/** Filters of listAuditEntries; null: not filtered. */
export interface AuditQuery {
  /** Any of these actions (domain/audit.ts actionsMatching turns a prefix into its actions). */
  actions: AuditAction[] | null;
  /** The actor's user ID, or its label (an email, 'cli', 'system'). */
  actor: string | null;
  targetType: string | null;
  targetId: string | null;
  /** Entries at or after this time (epoch ms). */
  since: number | null;
  /** Entries before this time (epoch ms). */
  until: number | null;
  /** Entries below this ID: where the previous page ended. */
  beforeId: number | null;
  limit: number;
}
