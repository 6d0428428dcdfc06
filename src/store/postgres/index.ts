import type pg from "pg";
import type { Json } from "../../domain/merge.js";
import type { Page } from "../../domain/paging.js";
import type { Point, SampledPoint } from "../../domain/sampling.js";
import type { RunStatus } from "../../domain/status.js";
import type {
  Actor,
  Alert,
  ApiKeyRecord,
  ConsoleLine,
  ConsoleLineQuery,
  CreateRunInput,
  DataRow,
  DataRowQuery,
  FileQuery,
  LogName,
  LogType,
  MlflowCandidate,
  MlflowRunRef,
  MetricNameQuery,
  MetricSeries,
  MetricSummary,
  NewAlert,
  NewApiKey,
  NewFile,
  Organization,
  Project,
  ProjectMlflowState,
  Run,
  RunCandidate,
  RunListQuery,
  RunMlflowState,
  RunMetricSummary,
  RunNarrowing,
  StatusEvent,
  StatusUpdate,
  Store,
  StoredDataRow,
  StoredFile,
  User,
} from "../store.js";
import { openPool, type PoolOptions, preparedTexts, row, transaction } from "./db.js";
import type { CopyRow, CopyValue } from "../copy-tables.js";
import * as consoleLogs from "./console-logs.js";
import * as copy from "./copy.js";
import * as mlflow from "./mlflow.js";
import * as dataRows from "./data-rows.js";
import * as files from "./files.js";
import * as keys from "./keys.js";
import * as metricReads from "./metric-reads.js";
import * as metrics from "./metrics.js";
import * as organizations from "./organizations.js";
import * as projects from "./projects.js";
import * as attributes from "./run-attributes.js";
import * as runList from "./run-list.js";
import * as runs from "./runs.js";
import * as sharedState from "./shared-state.js";
import * as status from "./status.js";

/**
 * The PostgreSQL store: a pool of connections to one database, which several Stepwise processes
 * may share. Each write method is one READ COMMITTED transaction whose read-then-write steps are
 * guarded by constraints, upserts and row locks (docs/architecture.md, "PostgreSQL: many writers").
 */
export class PostgresStore implements Store {
  private constructor(private readonly pool: pg.Pool) {}

  /**
   * Connects, applies pending migrations under an advisory lock, and refuses a newer schema.
   * `lockTimeoutMs` and `statementTimeoutMs` bound every statement of the pool's connections (the
   * server's request paths; see openPool); left out, statements wait as long as they need (the CLI).
   */
  static async open(url: string, options: PoolOptions = {}): Promise<PostgresStore> {
    return new PostgresStore(await openPool(url, options));
  }

  private write<T>(work: (sql: pg.PoolClient) => Promise<T>): Promise<T> {
    return transaction(this.pool, work);
  }

  async ping(): Promise<void> {
    await row(this.pool, "SELECT 1 FROM schema_migrations LIMIT 1");
  }

  /** The SQL texts prepared by name (tests check that request data never shapes SQL). */
  preparedStatements(): string[] {
    return preparedTexts();
  }

  /** Closing twice is harmless, as with the SQLite store (shutdown and tests may both close). */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  async createOrganization(slug: string, now: number): Promise<Organization> {
    return organizations.createOrganization(this.pool, slug, now);
  }
  async listOrganizations(): Promise<Organization[]> {
    return organizations.listOrganizations(this.pool);
  }
  async getOrganizationBySlug(slug: string): Promise<Organization | undefined> {
    return organizations.getOrganizationBySlug(this.pool, slug);
  }
  async createUser(orgId: string, name: string, now: number): Promise<User> {
    return organizations.createUser(this.pool, orgId, name, now);
  }
  async listUsers(orgId: string): Promise<User[]> {
    return organizations.listUsers(this.pool, orgId);
  }
  async createApiKey(input: NewApiKey): Promise<ApiKeyRecord> {
    return keys.createApiKey(this.pool, input);
  }
  async getApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { orgSlug: string }) | undefined> {
    return keys.getApiKeyByHash(this.pool, keyHash);
  }
  async getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    return keys.getApiKey(this.pool, keyId);
  }
  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return keys.listApiKeys(this.pool, orgId);
  }
  async revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
    return this.write((sql) => keys.revokeApiKey(sql, keyId, now));
  }

  async listProjects(orgId: string): Promise<Project[]> {
    return projects.listProjects(this.pool, orgId);
  }
  async getProjectByName(orgId: string, name: string): Promise<Project | undefined> {
    return projects.getProjectByName(this.pool, orgId, name);
  }

  async createProject(orgId: string, name: string, now: number): Promise<Project> {
    return this.write((sql) => mlflow.createProject(sql, orgId, name, now));
  }
  async getProject(orgId: string, projectId: number): Promise<Project | undefined> {
    return mlflow.getProject(this.pool, orgId, projectId);
  }
  async updateProjectMlflow(
    orgId: string,
    projectId: number,
    change: (state: ProjectMlflowState) => ProjectMlflowState,
    now: number,
  ): Promise<Project | undefined> {
    return this.write((sql) => mlflow.updateProjectMlflow(sql, orgId, projectId, change, now));
  }
  async getRunByMlflowId(orgId: string, mlflowId: string): Promise<Run | undefined> {
    return mlflow.getRunByMlflowId(this.pool, orgId, mlflowId);
  }
  async getMlflowRunRef(orgId: string, mlflowId: string): Promise<MlflowRunRef | undefined> {
    return mlflow.getMlflowRunRef(this.pool, orgId, mlflowId);
  }
  async updateRunMlflow(
    orgId: string,
    runId: number,
    change: (state: RunMlflowState) => RunMlflowState,
    now: number,
  ): Promise<Run | undefined> {
    return this.write((sql) => mlflow.updateRunMlflow(sql, orgId, runId, change, now));
  }
  async listMlflowCandidates(orgId: string, projectId: number): Promise<MlflowCandidate[]> {
    return mlflow.listMlflowCandidates(this.pool, orgId, projectId);
  }
  async deleteFile(orgId: string, fileId: number): Promise<boolean> {
    return mlflow.deleteFile(this.pool, orgId, fileId);
  }

  async createRun(orgId: string, input: CreateRunInput, actor: Actor): Promise<{ run: Run; resumed: boolean }> {
    return this.write((sql) => runs.createRun(sql, orgId, input, actor));
  }
  async resumeRun(orgId: string, runId: number, now: number, actor: Actor): Promise<Run | undefined> {
    return this.write((sql) => runs.resumeRun(sql, orgId, runId, now, actor));
  }
  async getRun(orgId: string, runId: number): Promise<Run | undefined> {
    return runs.getRun(this.pool, orgId, runId);
  }
  async getRunProjectName(orgId: string, runId: number): Promise<string | undefined> {
    return runs.getRunProjectName(this.pool, orgId, runId);
  }
  async listRuns(orgId: string, projectId: number, query: RunListQuery): Promise<{ runs: Run[]; total: number }> {
    return runList.listRuns(this.pool, orgId, projectId, query);
  }
  async listRunCandidates(orgId: string, projectId: number, narrowing: RunNarrowing): Promise<RunCandidate[]> {
    return runList.listRunCandidates(this.pool, orgId, projectId, narrowing);
  }
  async listForks(orgId: string, runId: number): Promise<Run[]> {
    return runs.listForks(this.pool, orgId, runId);
  }
  async getRuns(orgId: string, runIds: number[]): Promise<Run[]> {
    return runList.getRuns(this.pool, orgId, runIds);
  }
  async getRunByExternalId(orgId: string, projectName: string, externalId: string): Promise<Run | undefined> {
    return runs.getRunByExternalId(this.pool, orgId, projectName, externalId);
  }
  async listRunsByDisplayId(orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]> {
    return runs.listRunsByDisplayId(this.pool, orgId, prefix, number, projectName);
  }
  async updateRunStatus(orgId: string, runId: number, update: StatusUpdate, actor: Actor): Promise<{ applied: boolean } | undefined> {
    return this.write((sql) => status.updateRunStatus(sql, orgId, runId, update, actor));
  }
  async listStatusEvents(orgId: string, runId: number): Promise<StatusEvent[] | undefined> {
    return status.listStatusEvents(this.pool, orgId, runId);
  }
  async updateRunTags(orgId: string, runId: number, tags: string[], now: number): Promise<boolean> {
    return attributes.updateRunTags(this.pool, orgId, runId, tags, now);
  }
  async updateRunNotes(orgId: string, runId: number, notes: string | null, now: number): Promise<boolean> {
    return attributes.updateRunNotes(this.pool, orgId, runId, notes, now);
  }
  async mergeRunConfig(orgId: string, runId: number, patch: Json, now: number): Promise<boolean> {
    return this.write((sql) => attributes.mergeRunConfig(sql, orgId, runId, patch, now));
  }
  async addLogNames(orgId: string, runId: number, logNames: string[], logType: LogType, now: number): Promise<boolean> {
    return this.write((sql) => attributes.addLogNames(sql, orgId, runId, logNames, logType, now));
  }
  async listLogNames(orgId: string, runId: number): Promise<LogName[]> {
    return attributes.listLogNames(this.pool, orgId, runId);
  }
  async setModelGraph(orgId: string, runId: number, graph: Json, now: number): Promise<boolean> {
    return attributes.setModelGraph(this.pool, orgId, runId, graph, now);
  }
  async getModelGraph(orgId: string, runId: number): Promise<Json | null | undefined> {
    return attributes.getModelGraph(this.pool, orgId, runId);
  }
  async recordHeartbeat(orgId: string, runId: number, now: number): Promise<RunStatus | undefined> {
    return attributes.recordHeartbeat(this.pool, orgId, runId, now);
  }
  async createAlert(orgId: string, runId: number, alert: NewAlert, now: number): Promise<boolean> {
    return attributes.createAlert(this.pool, orgId, runId, alert, now);
  }
  async listAlerts(orgId: string, runId: number): Promise<Alert[] | undefined> {
    return attributes.listAlerts(this.pool, orgId, runId);
  }
  async failStaleRuns(cutoff: number, now: number): Promise<number> {
    return this.write((sql) => status.failStaleRuns(sql, cutoff, now));
  }

  async appendMetricPoints(orgId: string, runId: number, series: MetricSeries[], now: number): Promise<number | undefined> {
    return this.write((sql) => metrics.appendMetricPoints(sql, orgId, runId, series, now));
  }
  async appendConsoleLines(orgId: string, runId: number, lines: ConsoleLine[], now: number): Promise<number | undefined> {
    return this.write((sql) => consoleLogs.appendConsoleLines(sql, orgId, runId, lines, now));
  }
  async appendDataRows(orgId: string, runId: number, rows: DataRow[], now: number): Promise<number | undefined> {
    return this.write((sql) => dataRows.appendDataRows(sql, orgId, runId, rows, now));
  }
  async listMetricSummaries(orgId: string, runId: number, filter: { logName?: string; logGroup?: string } = {}): Promise<MetricSummary[]> {
    return metricReads.listMetricSummaries(this.pool, orgId, runId, filter);
  }
  async listMetricSummariesOfRuns(orgId: string, runIds: number[]): Promise<Map<number, MetricSummary[]>> {
    return metricReads.listMetricSummariesOfRuns(this.pool, orgId, runIds);
  }
  async countMetricsOfRuns(orgId: string, runIds: number[]): Promise<Map<number, number>> {
    return metricReads.countMetricsOfRuns(this.pool, orgId, runIds);
  }
  async readMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit?: number,
  ): Promise<Point[]> {
    return metricReads.readMetricPoints(this.pool, orgId, runId, logName, stepMin, stepMax, limit);
  }
  async sampleMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit: number,
  ): Promise<SampledPoint[]> {
    return metricReads.sampleMetricPoints(this.pool, orgId, runId, logName, stepMin, stepMax, limit);
  }
  async listRunMetricSummaries(orgId: string, projectId: number, logName: string, runIds?: number[]): Promise<RunMetricSummary[]> {
    return metricReads.listRunMetricSummaries(this.pool, orgId, projectId, logName, runIds);
  }
  async listRunLastValues(orgId: string, projectId: number, logName: string): Promise<Map<number, number>> {
    return metricReads.listRunLastValues(this.pool, orgId, projectId, logName);
  }
  async listMetricNames(orgId: string, projectId: number, query: MetricNameQuery): Promise<string[]> {
    return metricReads.listMetricNames(this.pool, orgId, projectId, query);
  }
  async listConsoleLines(orgId: string, runId: number, query: ConsoleLineQuery): Promise<Page<ConsoleLine> & { total: number }> {
    return consoleLogs.listConsoleLines(this.pool, orgId, runId, query);
  }
  async listDataRows(orgId: string, runId: number, query: DataRowQuery): Promise<Page<StoredDataRow>> {
    return dataRows.listDataRows(this.pool, orgId, runId, query);
  }

  async registerFiles(orgId: string, runId: number, newFiles: NewFile[], now: number): Promise<StoredFile[] | undefined> {
    return this.write((sql) => files.registerFiles(sql, orgId, runId, newFiles, now));
  }
  async getFile(fileId: number): Promise<StoredFile | undefined> {
    return files.getFile(this.pool, fileId);
  }
  async markFileUploaded(fileId: number, size: number, now: number): Promise<void> {
    await files.markFileUploaded(this.pool, fileId, size, now);
  }
  async listFiles(orgId: string, runId: number, query: FileQuery): Promise<StoredFile[]> {
    return files.listFiles(this.pool, orgId, runId, query);
  }

  async getOrCreateSigningSecret(candidate: Uint8Array, now: number): Promise<Uint8Array> {
    return sharedState.getOrCreateSigningSecret(this.pool, candidate, now);
  }
  async tryAcquireLease(name: string, holderId: string, now: number, ttlMs: number): Promise<boolean> {
    return sharedState.tryAcquireLease(this.pool, name, holderId, now, ttlMs);
  }
  async releaseLease(name: string, holderId: string): Promise<void> {
    await sharedState.releaseLease(this.pool, name, holderId);
  }

  async exportRows(table: string, after: CopyValue[] | null, limit: number): Promise<CopyRow[]> {
    // One statement per batch: a copy's batches together are not one snapshot (docs/decisions.md, "Several processes and copying a store").
    return copy.exportRows(this.pool, table, after, limit);
  }
  async importRows(table: string, rows: CopyRow[]): Promise<number> {
    return this.write((sql) => copy.importRows(sql, table, rows));
  }
  async countRows(table: string): Promise<number> {
    return copy.countRows(this.pool, table);
  }
}
