import { formatDisplayId } from "../../domain/ids.js";
import type { Json } from "../../domain/merge.js";
import { newMlflowRunId } from "../../domain/mlflow/ids.js";
import { checkExternalIdLive } from "../../domain/deletion.js";
import { checkProjectTakesRuns, decideStatusWrite, forkedAttributes, type StatusWrite } from "../../domain/runs.js";
import { STALE_STATUS_METADATA, type RunStatus, type StatusSource } from "../../domain/status.js";
import { type ProjectForRuns, toJsonText } from "../rows.js";
import type { Actor, CreateRunInput, Run, StatusUpdate } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** A run row as created: every column a backend inserts. */
export interface NewRunRow {
  orgId: string;
  projectId: number;
  name: string;
  number: number;
  displayId: string;
  externalId: string | null;
  tagsText: string;
  configText: string | null;
  systemMetadataText: string | null;
  loggerSettingsText: string | null;
  createdAt: number;
  updatedAt: number;
  heartbeatAt: number;
  forkedFromRunId: number | null;
  forkStep: number | null;
  mlflowId: string;
  mlflowTagsText: string;
  mlflowUserId: string;
}

export interface NewStatusEvent {
  runId: number;
  fromStatus: RunStatus | null;
  toStatus: RunStatus;
  source: StatusSource;
  metadata: Json | null;
  actor: Actor;
  createdAt: number;
}

/**
 * What the run lifecycle asks of a backend, each inside the workflow's transaction. "Locked" reads
 * hold the row until the transaction ends where the engine has row locks (PostgreSQL's FOR UPDATE;
 * SQLite's write transaction already holds the whole database).
 */
export interface RunLifecycleOperations {
  /** The project of that name, created empty when new. */
  projectForRuns(orgId: string, name: string, now: number): ProjectForRuns;
  runIdByExternalId(projectId: number, externalId: string): number | undefined;
  getRun(orgId: string, runId: number): Run | undefined;
  /** The run's own last logged step over all its metrics; null when it has no points. */
  ownLastStep(runId: number): number | null;
  /**
   * Takes the project's next run number, touching its updatedAt, and returns it with the project's
   * deletedAt as it is once locked (a delete committed while this create waited is seen then).
   */
  takeRunNumber(projectId: number, now: number): { number: number; deletedAt: number | null };
  /** The new run's ID; undefined when another create with the same externalId committed first. */
  insertRun(row: NewRunRow): number | undefined;
  lockRunStatus(orgId: string, runId: number): { status: RunStatus; loggerSettingsText: string | null } | undefined;
  setHeartbeat(runId: number, now: number): void;
  writeStatus(runId: number, write: StatusWrite): void;
  /** Back to RUNNING (a resume): status, statusUpdated and updatedAt become `now`. */
  writeRunning(runId: number, now: number): void;
  /**
   * Marks every RUNNING run whose heartbeat is older than `cutoff` FAILED with `metadata`, re-checking
   * both on each row it writes, and returns their IDs in ascending order.
   */
  failRunsStaleSince(cutoff: number, now: number, metadata: Json): number[];
  insertStatusEvent(event: NewStatusEvent): void;
}

const perform = performer<RunLifecycleOperations>();
type RunWorkflow<T> = Workflow<T, RunLifecycleOperations>;

const NO_ACTOR: Actor = { userId: null, apiKeyId: null };

/** Store.createRun. */
export function* createRun(orgId: string, input: CreateRunInput, actor: Actor): RunWorkflow<{ run: Run; resumed: boolean }> {
  const project = yield* perform("projectForRuns", orgId, input.projectName, input.now);
  checkProjectTakesRuns({ name: project.name, deleted_at: project.deletedAt });
  if (input.externalId !== undefined) {
    const existing = yield* perform("runIdByExternalId", project.id, input.externalId);
    if (existing !== undefined)
      return { run: resumedByExternalId(yield* resumeRun(orgId, existing, input.now, actor), input.externalId), resumed: true };
  }

  let config = input.config ?? null;
  let tags = input.tags;
  if (input.fork) {
    const parent = yield* perform("getRun", orgId, input.fork.runId);
    const parentOwnLastStep = parent ? yield* perform("ownLastStep", parent.id) : null;
    const child = { projectId: project.id, projectName: input.projectName, config, tags };
    ({ config, tags } = forkedAttributes(input.fork, parent, parentOwnLastStep, child));
  }

  const taken = yield* perform("takeRunNumber", project.id, input.now);
  checkProjectTakesRuns({ name: project.name, deleted_at: taken.deletedAt });
  const createdAt = input.createdAt ?? input.now;
  const runId = yield* perform("insertRun", {
    orgId,
    projectId: project.id,
    name: input.name,
    number: taken.number,
    displayId: formatDisplayId(project.runPrefix, taken.number),
    externalId: input.externalId ?? null,
    tagsText: JSON.stringify(tags),
    configText: toJsonText(config),
    systemMetadataText: toJsonText(input.systemMetadata),
    loggerSettingsText: toJsonText(input.loggerSettings),
    createdAt,
    updatedAt: input.updatedAt ?? createdAt,
    heartbeatAt: input.now,
    forkedFromRunId: input.fork?.runId ?? null,
    forkStep: input.fork?.step ?? null,
    mlflowId: input.mlflowId ?? newMlflowRunId(),
    mlflowTagsText: JSON.stringify(input.mlflowTags ?? []),
    mlflowUserId: input.mlflowUserId ?? "",
  });
  if (runId === undefined) {
    // Another create with this externalId committed first: resume its run (the number stays a gap).
    const existing = (yield* perform("runIdByExternalId", project.id, input.externalId!))!;
    return { run: resumedByExternalId(yield* resumeRun(orgId, existing, input.now, actor), input.externalId!), resumed: true };
  }
  yield* perform("insertStatusEvent", { runId, fromStatus: null, toStatus: "RUNNING", source: "api", metadata: null, actor, createdAt });
  return { run: (yield* perform("getRun", orgId, runId))!, resumed: false };
}

/** The run an external ID resumed; resumeRun finds no deleted run, so none means the run is in the trash. */
function resumedByExternalId(run: Run | undefined, externalId: string): Run {
  checkExternalIdLive(run, externalId);
  return run;
}

/** Store.resumeRun: the locked row orders concurrent resumes and status writes. */
export function* resumeRun(orgId: string, runId: number, now: number, actor: Actor): RunWorkflow<Run | undefined> {
  const current = yield* perform("lockRunStatus", orgId, runId);
  if (!current) return undefined;
  yield* perform("setHeartbeat", runId, now);
  if (current.status !== "RUNNING") {
    yield* perform("writeRunning", runId, now);
    yield* perform("insertStatusEvent", {
      runId,
      fromStatus: current.status,
      toStatus: "RUNNING",
      source: "resume",
      metadata: null,
      actor,
      createdAt: now,
    });
  }
  return yield* perform("getRun", orgId, runId);
}

/**
 * Store.updateRunStatus. The row is read locked, so concurrent terminal writes are decided one after
 * the other by domain/status.ts, each against the status the previous one left.
 */
export function* updateRunStatus(
  orgId: string,
  runId: number,
  update: StatusUpdate,
  actor: Actor,
): RunWorkflow<{ applied: boolean } | undefined> {
  const current = yield* perform("lockRunStatus", orgId, runId);
  if (!current) return undefined;
  const write = decideStatusWrite(current, update);
  if (!write) return { applied: false };
  yield* perform("writeStatus", runId, write);
  yield* perform("insertStatusEvent", {
    runId,
    fromStatus: current.status,
    toStatus: write.status,
    source: update.source,
    metadata: write.statusMetadata,
    actor,
    createdAt: write.statusUpdated,
  });
  return { applied: true };
}

/** Store.failStaleRuns: a run resumed or heard from meanwhile is left alone, and no run is failed twice. */
export function* failStaleRuns(cutoff: number, now: number): RunWorkflow<number[]> {
  const failed = yield* perform("failRunsStaleSince", cutoff, now, STALE_STATUS_METADATA);
  for (const runId of failed) {
    yield* perform("insertStatusEvent", {
      runId,
      fromStatus: "RUNNING",
      toStatus: "FAILED",
      source: "stale",
      metadata: STALE_STATUS_METADATA,
      actor: NO_ACTOR,
      createdAt: now,
    });
  }
  return failed;
}

/** A new run's values in the column order both backends insert them: org_id, project_id, name, … mlflow_user_id (status is RUNNING). */
export function newRunValues(row: NewRunRow): unknown[] {
  return [
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
    row.mlflowUserId,
  ];
}

/** A status event's values in the column order both backends insert them: run_id, from_status, … created_at. */
export function statusEventValues(event: NewStatusEvent): unknown[] {
  return [
    event.runId,
    event.fromStatus,
    event.toStatus,
    event.source,
    toJsonText(event.metadata),
    event.actor.userId,
    event.actor.apiKeyId,
    event.createdAt,
  ];
}
