import { DomainError } from "../domain/errors.js";
import { doesNotExist, invalidParameter } from "../domain/mlflow/errors.js";
import { type DatasetInput, withDatasetInputs } from "../domain/mlflow/datasets.js";
import { experimentIdOf } from "../domain/mlflow/ids.js";
import { applyParams, applyTags } from "../domain/mlflow/model.js";
import { checkTagWritable, nameFrom, renamedTags, withLoggedModel, withoutTag } from "../domain/mlflow/tags.js";
import { deletedAtAfter } from "../domain/mlflow/views.js";
import type { AuditContext, AuditLog } from "./audit.js";
import type { RunStatus } from "../domain/status.js";
import type { Clock } from "../domain/time.js";
import type { Actor, MetricSeries, MlflowProject, MlflowRun, MlflowRunRef, RunMlflowState, Store } from "../store/store.js";
import type { IngestService } from "./ingest.js";
import { checkActive, findRun, findRunRef, updateRunMlflow } from "./mlflow.js";
import type { RunLifecycle } from "./runs.js";

/** What log-batch (and log-metric, log-parameter, set-tag) writes to one run. */
export interface LogBatch {
  params: [string, string][];
  tags: [string, string][];
  metrics: MetricSeries[];
}

/**
 * MLflow's run writes (docs/api.md, "MLflow's REST API"): a run is a Stepwise run, its params its
 * config, its tags MLflow's tags beside Stepwise's (domain/mlflow/tags.ts); its metrics go through
 * the ingest service, as Stepwise's /ingest/metrics does. A deleted run is read-only.
 */
export class MlflowRuns {
  constructor(
    private readonly deps: { store: Store; clock: Clock },
    private readonly runs: RunLifecycle,
    private readonly ingest: IngestService,
    private readonly audit: AuditLog,
  ) {}

  /** The run a request names (RESOURCE_DOES_NOT_EXIST when there is none), with its JSON fields. */
  find(orgId: string, runId: unknown): Promise<MlflowRun> {
    return findRun(this.deps.store, orgId, runId);
  }

  /** The run a write names: its ID and lifecycle only. */
  findRef(orgId: string, runId: unknown): Promise<MlflowRunRef> {
    return findRunRef(this.deps.store, orgId, runId);
  }

  /** A deleted run is read-only: INVALID_PARAMETER_VALUE, as on MLflow's server. */
  checkActive(run: MlflowRunRef): void {
    checkActive(run);
  }

  /** find, for a write that must refuse a deleted run before it reads the rest of the request. */
  async findActive(orgId: string, runId: unknown): Promise<MlflowRunRef> {
    const run = await this.findRef(orgId, runId);
    checkActive(run);
    return run;
  }

  /**
   * Creates a run in the experiment, with its MLflow tags (domain/mlflow/tags.ts newRunTags) and user
   * ID. They go in the create itself (CreateRunInput.mlflowTags and mlflowUserId, a protocol extension
   * of the core create): they are the run's from its first committed moment. The create answers the
   * core record, so the run MLflow's client gets back is read again through MLflow's read, as `update`
   * reads it after a status write.
   */
  async create(
    orgId: string,
    project: MlflowProject,
    run: { name: string; mlflowTags: [string, string][]; userId: string; createdAt: number; mlflowId?: string },
    actor: Actor,
    now: number,
  ): Promise<MlflowRun> {
    let created: number;
    try {
      const input = {
        projectName: project.name,
        name: run.name,
        tags: [],
        mlflowTags: run.mlflowTags,
        mlflowUserId: run.userId,
        createdAt: run.createdAt,
        mlflowId: run.mlflowId,
      };
      created = (await this.runs.create(orgId, input, actor, now)).run.id;
    } catch (error) {
      // The store refuses a deleted project inside its transaction (checkProjectTakesRuns), in MLflow's words here.
      if (error instanceof DomainError && error.code === "CONFLICT")
        throw invalidParameter(
          `The experiment ${experimentIdOf(project.id, project.defaultExperiment)} must be in the 'active' state. Current state is deleted.`,
        );
      throw error;
    }
    return this.read(orgId, created);
  }

  /** A run this service just wrote, with MLflow's fields (runs are never removed, so it is there). */
  private async read(orgId: string, runId: number): Promise<MlflowRun> {
    return (await this.deps.store.getMlflowRun(orgId, runId))!;
  }

  /** runs/update: renames the run (and its mlflow.runName), then records its status; a terminal status ends at `endTime`. */
  async update(
    orgId: string,
    run: MlflowRun,
    update: { name: string; status?: RunStatus; endTime?: number },
    actor: Actor,
    now = this.deps.clock.now(),
  ): Promise<MlflowRun> {
    const { store } = this.deps;
    let updated = run;
    if (update.name)
      updated = (await updateRunMlflow(
        store,
        orgId,
        run.id,
        (s) => ({ ...s, name: update.name, mlflowTags: renamedTags(s.mlflowTags, update.name) }),
        now,
      ))!;
    const status = update.status;
    if (status !== undefined) {
      const statusUpdated = status === "RUNNING" ? undefined : (update.endTime ?? now);
      await this.runs.updateStatus(orgId, updated.id, { status, statusUpdated, source: "api" }, actor, now);
      updated = await this.read(orgId, updated.id);
    }
    return updated;
  }

  /** Deletes (keeping an earlier deletion time) or restores the run. */
  async setDeleted(by: AuditContext, runId: unknown, deleted: boolean): Promise<void> {
    const run = await this.findRef(by.orgId, runId);
    const now = this.deps.clock.now();
    // Recorded in the audit log when it moves the run in or out of the trash (a second delete keeps the first).
    let moved = false;
    const change = (s: RunMlflowState) => {
      const deletedAt = deletedAtAfter(deleted, s.deletedAt, now);
      moved = (deletedAt === null) !== (s.deletedAt === null);
      return { ...s, deletedAt };
    };
    await this.audit.write(by, "updateRunMlflow", [by.orgId, run.id, change, now], (done) =>
      done && moved
        ? [{ action: deleted ? "runs.delete" : "runs.restore", target: { type: "run", id: String(done.id) }, details: { via: "mlflow" } }]
        : [],
    );
  }

  /**
   * Logs params, tags and metrics of one run: params and tags in one transaction (write-once
   * checked; mlflow.runName renames the run), then the metrics through the ingest service.
   */
  async logBatch(orgId: string, run: MlflowRunRef, items: LogBatch): Promise<void> {
    const { store, clock } = this.deps;
    const now = clock.now();
    checkActive(run);
    if (items.params.length > 0 || items.tags.length > 0) {
      for (const [key] of items.tags) checkTagWritable(key);
      await updateRunMlflow(
        store,
        orgId,
        run.id,
        (s) => ({
          ...s,
          name: nameFrom(items.tags, s.name),
          config: applyParams(s.config, items.params),
          mlflowTags: applyTags(s.mlflowTags, items.tags),
        }),
        now,
      );
    }
    if (items.metrics.length > 0) {
      const stored = await this.ingest.metrics(orgId, run.id, items.metrics, now);
      if (stored === undefined) throw doesNotExist(`Run with id=${run.mlflowId} not found`);
    }
  }

  /** Deletes a tag of an active run (stepwise.tags is read-only; a missing tag is RESOURCE_DOES_NOT_EXIST). */
  async deleteTag(orgId: string, run: MlflowRunRef, key: string): Promise<void> {
    checkTagWritable(key);
    const missing = () => doesNotExist(`No tag with name: ${key} in run with id ${run.mlflowId}`);
    await updateRunMlflow(
      this.deps.store,
      orgId,
      run.id,
      (s) => ({ ...s, mlflowTags: withoutTag(s.mlflowTags, key, missing) }),
      this.deps.clock.now(),
    );
  }

  /** Adds dataset inputs to an active run's: one per dataset name and digest, the first logged (domain/mlflow/datasets.ts). */
  async logInputs(orgId: string, run: MlflowRunRef, datasets: DatasetInput[]): Promise<void> {
    if (datasets.length === 0) return;
    await updateRunMlflow(
      this.deps.store,
      orgId,
      run.id,
      (s) => ({ ...s, mlflowInputs: withDatasetInputs(s.mlflowInputs, datasets) }),
      this.deps.clock.now(),
    );
  }

  /** As MLflow's server: the model's description is appended to the run's mlflow.log-model.history tag. */
  async logModel(orgId: string, run: MlflowRunRef, model: unknown): Promise<void> {
    await updateRunMlflow(
      this.deps.store,
      orgId,
      run.id,
      (s) => ({ ...s, mlflowTags: withLoggedModel(s.mlflowTags, model) }),
      this.deps.clock.now(),
    );
  }
}
