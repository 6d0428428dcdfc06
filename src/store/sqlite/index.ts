import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
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
import { openDatabase, Statements, type Db } from "./db.js";
import { GroupCommit, type Outcome } from "../group-commit.js";
import type { CopyRow, CopyValue } from "../copy-tables.js";
import * as consoleLogs from "./console-logs.js";
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
import * as status from "./status.js";
import * as copy from "./copy.js";
import * as mlflow from "./mlflow.js";
import * as sharedState from "./shared-state.js";

export const DATABASE_FILE = "stepwise.db";

interface MetricWrite {
  orgId: string;
  runId: number;
  series: MetricSeries[];
  now: number;
}

/**
 * The embedded store: one SQLite database in the data directory. better-sqlite3 is synchronous,
 * so each method runs to completion before another request's code runs; write methods still
 * use IMMEDIATE transactions because the CLI may write to the same file from another process.
 */
export class SqliteStore implements Store {
  private readonly s: Statements;
  /** Metric writes of requests that arrive together share one transaction and one durable commit (GroupCommit). */
  private readonly metricWrites: GroupCommit<MetricWrite, number | undefined>;

  private constructor(private readonly db: Db) {
    this.s = new Statements(db);
    // Called inside the group's transaction, a transaction function runs as a savepoint (better-sqlite3).
    const inSavepoint = db.transaction((w: MetricWrite) => metrics.appendMetricPoints(this.s, w.orgId, w.runId, w.series, w.now));
    this.metricWrites = new GroupCommit((items) =>
      this.write(() =>
        items.map((item): Outcome<number | undefined> => {
          try {
            return { ok: true, value: inSavepoint(item) };
          } catch (error) {
            // Disk full, I/O errors and the like end the whole transaction in SQLite, not just the
            // savepoint: then the group fails as one (nothing of it is stored), never committing
            // the items after it outside any transaction.
            if (!db.inTransaction) throw error;
            return { ok: false, error };
          }
        }),
      ),
    );
  }

  /** `busyTimeoutMs`: how long a statement waits for another process's lock (see openDatabase). */
  static open(dataDir: string, options: { busyTimeoutMs?: number } = {}): SqliteStore {
    // Owner-only, like signing.key: the database holds key hashes and every organization's data.
    // SQLite gives its -wal and -shm files the database file's permissions.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DATABASE_FILE);
    closeSync(openSync(file, "a", 0o600));
    return new SqliteStore(openDatabase(file, options.busyTimeoutMs));
  }

  private write<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  /** Reads, then takes and releases the write lock: a lock held by another process fails readiness. */
  async ping(): Promise<void> {
    this.s.get("SELECT 1 FROM schema_migrations LIMIT 1").get();
    this.write(() => undefined);
  }

  /** The SQL texts prepared on this connection (tests check that request data never shapes SQL). */
  preparedStatements(): string[] {
    return this.s.cachedTexts();
  }

  async close(): Promise<void> {
    await this.metricWrites.idle();
    if (this.db.open) {
      this.db.pragma("wal_checkpoint(TRUNCATE)");
      this.db.close();
    }
  }

  async createOrganization(slug: string, now: number): Promise<Organization> {
    return organizations.createOrganization(this.s, slug, now);
  }
  async listOrganizations(): Promise<Organization[]> {
    return organizations.listOrganizations(this.s);
  }
  async getOrganizationBySlug(slug: string): Promise<Organization | undefined> {
    return organizations.getOrganizationBySlug(this.s, slug);
  }
  async createUser(orgId: string, name: string, now: number): Promise<User> {
    return organizations.createUser(this.s, orgId, name, now);
  }
  async listUsers(orgId: string): Promise<User[]> {
    return organizations.listUsers(this.s, orgId);
  }
  async createApiKey(input: NewApiKey): Promise<ApiKeyRecord> {
    return keys.createApiKey(this.s, input);
  }
  async getApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { orgSlug: string }) | undefined> {
    return keys.getApiKeyByHash(this.s, keyHash);
  }
  async getApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    return keys.getApiKey(this.s, keyId);
  }
  async listApiKeys(orgId: string): Promise<ApiKeyRecord[]> {
    return keys.listApiKeys(this.s, orgId);
  }
  async revokeApiKey(keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
    return this.write(() => keys.revokeApiKey(this.s, keyId, now));
  }

  async listProjects(orgId: string): Promise<Project[]> {
    return projects.listProjects(this.s, orgId);
  }
  async getProjectByName(orgId: string, name: string): Promise<Project | undefined> {
    return projects.getProjectByName(this.s, orgId, name);
  }

  async createProject(orgId: string, name: string, now: number): Promise<Project> {
    return this.write(() => mlflow.createProject(this.s, orgId, name, now));
  }
  async getProject(orgId: string, projectId: number): Promise<Project | undefined> {
    return mlflow.getProject(this.s, orgId, projectId);
  }
  async updateProjectMlflow(
    orgId: string,
    projectId: number,
    change: (state: ProjectMlflowState) => ProjectMlflowState,
    now: number,
  ): Promise<Project | undefined> {
    return this.write(() => mlflow.updateProjectMlflow(this.s, orgId, projectId, change, now));
  }
  async getRunByMlflowId(orgId: string, mlflowId: string): Promise<Run | undefined> {
    return mlflow.getRunByMlflowId(this.s, orgId, mlflowId);
  }
  async getMlflowRunRef(orgId: string, mlflowId: string): Promise<MlflowRunRef | undefined> {
    return mlflow.getMlflowRunRef(this.s, orgId, mlflowId);
  }
  async updateRunMlflow(
    orgId: string,
    runId: number,
    change: (state: RunMlflowState) => RunMlflowState,
    now: number,
  ): Promise<Run | undefined> {
    return this.write(() => mlflow.updateRunMlflow(this.s, orgId, runId, change, now));
  }
  async listMlflowCandidates(orgId: string, projectId: number): Promise<MlflowCandidate[]> {
    return mlflow.listMlflowCandidates(this.s, orgId, projectId);
  }
  async deleteFile(orgId: string, fileId: number): Promise<boolean> {
    return mlflow.deleteFile(this.s, orgId, fileId);
  }

  async createRun(orgId: string, input: CreateRunInput, actor: Actor): Promise<{ run: Run; resumed: boolean }> {
    return this.write(() => runs.createRun(this.s, orgId, input, actor));
  }
  async resumeRun(orgId: string, runId: number, now: number, actor: Actor): Promise<Run | undefined> {
    return this.write(() => runs.resumeRun(this.s, orgId, runId, now, actor));
  }
  async getRun(orgId: string, runId: number): Promise<Run | undefined> {
    return runs.getRun(this.s, orgId, runId);
  }
  async getRunProjectName(orgId: string, runId: number): Promise<string | undefined> {
    return runs.getRunProjectName(this.s, orgId, runId);
  }
  async listRuns(orgId: string, projectId: number, query: RunListQuery): Promise<{ runs: Run[]; total: number }> {
    return runList.listRuns(this.s, orgId, projectId, query);
  }
  async listRunCandidates(orgId: string, projectId: number, narrowing: RunNarrowing): Promise<RunCandidate[]> {
    return runList.listRunCandidates(this.s, orgId, projectId, narrowing);
  }
  async listForks(orgId: string, runId: number): Promise<Run[]> {
    return runs.listForks(this.s, orgId, runId);
  }
  async getRuns(orgId: string, runIds: number[]): Promise<Run[]> {
    return runList.getRuns(this.s, orgId, runIds);
  }
  async getRunByExternalId(orgId: string, projectName: string, externalId: string): Promise<Run | undefined> {
    return runs.getRunByExternalId(this.s, orgId, projectName, externalId);
  }
  async listRunsByDisplayId(orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]> {
    return runs.listRunsByDisplayId(this.s, orgId, prefix, number, projectName);
  }
  async updateRunStatus(orgId: string, runId: number, update: StatusUpdate, actor: Actor): Promise<{ applied: boolean } | undefined> {
    return this.write(() => status.updateRunStatus(this.s, orgId, runId, update, actor));
  }
  async listStatusEvents(orgId: string, runId: number): Promise<StatusEvent[] | undefined> {
    return status.listStatusEvents(this.s, orgId, runId);
  }
  async updateRunTags(orgId: string, runId: number, tags: string[], now: number): Promise<boolean> {
    return attributes.updateRunTags(this.s, orgId, runId, tags, now);
  }
  async updateRunNotes(orgId: string, runId: number, notes: string | null, now: number): Promise<boolean> {
    return attributes.updateRunNotes(this.s, orgId, runId, notes, now);
  }
  async mergeRunConfig(orgId: string, runId: number, patch: Json, now: number): Promise<boolean> {
    return this.write(() => attributes.mergeRunConfig(this.s, orgId, runId, patch, now));
  }
  async addLogNames(orgId: string, runId: number, logNames: string[], logType: LogType, now: number): Promise<boolean> {
    return this.write(() => attributes.addLogNames(this.s, orgId, runId, logNames, logType, now));
  }
  async listLogNames(orgId: string, runId: number): Promise<LogName[]> {
    return attributes.listLogNames(this.s, orgId, runId);
  }
  async setModelGraph(orgId: string, runId: number, graph: Json, now: number): Promise<boolean> {
    return attributes.setModelGraph(this.s, orgId, runId, graph, now);
  }
  async getModelGraph(orgId: string, runId: number): Promise<Json | null | undefined> {
    return attributes.getModelGraph(this.s, orgId, runId);
  }
  async recordHeartbeat(orgId: string, runId: number, now: number): Promise<RunStatus | undefined> {
    return attributes.recordHeartbeat(this.s, orgId, runId, now);
  }
  async createAlert(orgId: string, runId: number, alert: NewAlert, now: number): Promise<boolean> {
    return attributes.createAlert(this.s, orgId, runId, alert, now);
  }
  async listAlerts(orgId: string, runId: number): Promise<Alert[] | undefined> {
    return attributes.listAlerts(this.s, orgId, runId);
  }
  async failStaleRuns(cutoff: number, now: number): Promise<number> {
    return this.write(() => status.failStaleRuns(this.s, cutoff, now));
  }

  async appendMetricPoints(orgId: string, runId: number, series: MetricSeries[], now: number): Promise<number | undefined> {
    return this.metricWrites.submit({ orgId, runId, series, now });
  }
  async appendConsoleLines(orgId: string, runId: number, lines: ConsoleLine[], now: number): Promise<number | undefined> {
    return this.write(() => consoleLogs.appendConsoleLines(this.s, orgId, runId, lines, now));
  }
  async appendDataRows(orgId: string, runId: number, rows: DataRow[], now: number): Promise<number | undefined> {
    return this.write(() => dataRows.appendDataRows(this.s, orgId, runId, rows, now));
  }
  async listMetricSummaries(orgId: string, runId: number, filter: { logName?: string; logGroup?: string } = {}): Promise<MetricSummary[]> {
    return metricReads.listMetricSummaries(this.s, orgId, runId, filter);
  }
  async listMetricSummariesOfRuns(orgId: string, runIds: number[]): Promise<Map<number, MetricSummary[]>> {
    return metricReads.listMetricSummariesOfRuns(this.s, orgId, runIds);
  }
  async countMetricsOfRuns(orgId: string, runIds: number[]): Promise<Map<number, number>> {
    return metricReads.countMetricsOfRuns(this.s, orgId, runIds);
  }
  async readMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit?: number,
  ): Promise<Point[]> {
    return metricReads.readMetricPoints(this.s, orgId, runId, logName, stepMin, stepMax, limit);
  }
  async sampleMetricPoints(
    orgId: string,
    runId: number,
    logName: string,
    stepMin: number,
    stepMax: number,
    limit: number,
  ): Promise<SampledPoint[]> {
    return metricReads.sampleMetricPoints(this.s, orgId, runId, logName, stepMin, stepMax, limit);
  }
  async listRunMetricSummaries(orgId: string, projectId: number, logName: string, runIds?: number[]): Promise<RunMetricSummary[]> {
    return metricReads.listRunMetricSummaries(this.s, orgId, projectId, logName, runIds);
  }
  async listRunLastValues(orgId: string, projectId: number, logName: string): Promise<Map<number, number>> {
    return metricReads.listRunLastValues(this.s, orgId, projectId, logName);
  }
  async listMetricNames(orgId: string, projectId: number, query: MetricNameQuery): Promise<string[]> {
    return metricReads.listMetricNames(this.s, orgId, projectId, query);
  }
  async listConsoleLines(orgId: string, runId: number, query: ConsoleLineQuery): Promise<Page<ConsoleLine> & { total: number }> {
    return consoleLogs.listConsoleLines(this.s, orgId, runId, query);
  }
  async listDataRows(orgId: string, runId: number, query: DataRowQuery): Promise<Page<StoredDataRow>> {
    return dataRows.listDataRows(this.s, orgId, runId, query);
  }

  async registerFiles(orgId: string, runId: number, newFiles: NewFile[], now: number): Promise<StoredFile[] | undefined> {
    return this.write(() => files.registerFiles(this.s, orgId, runId, newFiles, now));
  }
  async getFile(fileId: number): Promise<StoredFile | undefined> {
    return files.getFile(this.s, fileId);
  }
  async markFileUploaded(fileId: number, size: number, now: number): Promise<void> {
    files.markFileUploaded(this.s, fileId, size, now);
  }
  async listFiles(orgId: string, runId: number, query: FileQuery): Promise<StoredFile[]> {
    return files.listFiles(this.s, orgId, runId, query);
  }

  async getOrCreateSigningSecret(candidate: Uint8Array, now: number): Promise<Uint8Array> {
    return this.write(() => sharedState.getOrCreateSigningSecret(this.s, candidate, now));
  }
  async tryAcquireLease(name: string, holderId: string, now: number, ttlMs: number): Promise<boolean> {
    return sharedState.tryAcquireLease(this.s, name, holderId, now, ttlMs);
  }
  async releaseLease(name: string, holderId: string): Promise<void> {
    sharedState.releaseLease(this.s, name, holderId);
  }

  async exportRows(table: string, after: CopyValue[] | null, limit: number): Promise<CopyRow[]> {
    // One statement per batch: a copy's batches together are not one snapshot (docs/decisions.md, "Several processes and copying a store").
    return copy.exportRows(this.s, table, after, limit);
  }
  async importRows(table: string, rows: CopyRow[]): Promise<number> {
    return this.write(() => copy.importRows(this.s, table, rows));
  }
  async countRows(table: string): Promise<number> {
    return copy.countRows(this.s, table);
  }
}
