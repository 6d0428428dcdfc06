import { invalidInput, runNotFound } from "../domain/errors.js";
import type { Json } from "../domain/merge.js";
import type { RunStatus } from "../domain/status.js";
import type { Clock } from "../domain/time.js";
import type { Actor, CreateRunInput, LogType, NewAlert, Run, StatusUpdate, Store } from "../store/store.js";
import type { AlertEvaluator } from "./alert-evaluator.js";
import { type RunReference, resolveRunReference } from "./run-lookup.js";

/** A write that finds no run in the organization is a 404 naming the run. */
function found<T>(result: T | undefined | false, runId: number): T {
  if (result === undefined || result === false) throw runNotFound(runId);
  return result;
}

/**
 * The run lifecycle of both protocols' routes (docs/semantics.md, Runs): create, resume, status,
 * tags, notes, config, log names, model graph, heartbeat, alerts. Each is one store transaction;
 * a run that is not in the organization is RUN_NOT_FOUND.
 */
export class RunLifecycle {
  constructor(
    private readonly deps: { store: Store; clock: Clock },
    /** Status and client-alert rules are evaluated after the write committed. */
    private readonly alerts: AlertEvaluator,
  ) {}

  /** Creates a run (or resumes the one its external ID names: `resumed`). */
  async create(orgId: string, input: Omit<CreateRunInput, "now">, actor: Actor, now = this.deps.clock.now()) {
    const created = await this.deps.store.createRun(orgId, { ...input, now }, actor);
    // A resumed run runs again: its status rules re-arm.
    if (created.resumed) await this.alerts.afterStatus(created.run.id, created.run.status);
    return created;
  }

  /** Sets the run a reference names back to RUNNING. */
  async resume(orgId: string, ref: RunReference, actor: Actor): Promise<Run> {
    const run = await resolveRunReference(this.deps.store, orgId, ref);
    const resumed = found(await this.deps.store.resumeRun(orgId, run.id, this.deps.clock.now(), actor), run.id);
    await this.alerts.afterStatus(run.id, resumed.status);
    return resumed;
  }

  /** Records a status change (status precedence decides whether it `applied`). */
  async updateStatus(orgId: string, runId: number, update: Omit<StatusUpdate, "now">, actor: Actor, now = this.deps.clock.now()) {
    const result = found(await this.deps.store.updateRunStatus(orgId, runId, { ...update, now }, actor), runId);
    if (result.applied) await this.alerts.afterStatus(runId, update.status);
    return result;
  }

  async setTags(orgId: string, runId: number, tags: string[]): Promise<void> {
    found(await this.deps.store.updateRunTags(orgId, runId, tags, this.deps.clock.now()), runId);
  }

  async setNotes(orgId: string, runId: number, notes: string | null): Promise<void> {
    found(await this.deps.store.updateRunNotes(orgId, runId, notes, this.deps.clock.now()), runId);
  }

  /** Deep-merges a patch into the config; a patch must be a value (JSON text of null or nothing is refused). */
  async mergeConfig(orgId: string, runId: number, patch: Json | undefined): Promise<void> {
    if (patch === undefined) throw invalidInput("config: must be JSON text of a value, not empty or null");
    found(await this.deps.store.mergeRunConfig(orgId, runId, patch, this.deps.clock.now()), runId);
  }

  async addLogNames(orgId: string, runId: number, logNames: string[], logType: LogType): Promise<void> {
    found(await this.deps.store.addLogNames(orgId, runId, logNames, logType, this.deps.clock.now()), runId);
  }

  async setModelGraph(orgId: string, runId: number, graph: Json): Promise<void> {
    found(await this.deps.store.setModelGraph(orgId, runId, graph, this.deps.clock.now()), runId);
  }

  /** Records a heartbeat; answers the run's status. */
  async heartbeat(orgId: string, runId: number): Promise<RunStatus> {
    return found(await this.deps.store.recordHeartbeat(orgId, runId, this.deps.clock.now()), runId);
  }

  async alert(orgId: string, runId: number, alert: NewAlert): Promise<void> {
    found(await this.deps.store.createAlert(orgId, runId, alert, this.deps.clock.now()), runId);
    await this.alerts.afterClientAlert(runId, alert);
  }
}
