import type { FastifyBaseLogger } from "fastify";
import {
  ANY_METRIC,
  alertLevel,
  clientAlertFires,
  type ConditionState,
  describeFiring,
  type Evaluation,
  evaluateMetricValues,
  evaluateStalled,
  evaluateStatus,
  INITIAL_STATE,
  type MetricCondition,
  stateChanged,
  summarizeValues,
  type ValueSummary,
  watchedMetric,
} from "../domain/alerts/conditions.js";
import type { RunStatus } from "../domain/status.js";
import type { Clock } from "../domain/time.js";
import type { AlertRule, AlertRunContext, AlertTransition, StalledCandidate } from "../store/alert-store.js";
import type { MetricSeries, NewAlert, Store } from "../store/store.js";

/**
 * Evaluates a project's alert rules where writes happen, after they committed (docs/semantics.md,
 * "Alerts"): metric points from both protocols' ingest, status changes (the API, MLflow's run
 * update, the stale sweep), client alerts, and the periodic stalled check. The hot path is a map
 * look-up: each project's enabled rules are cached, indexed by metric name, as are each run's
 * project and states; the store is written only when a state changes, by a compare-and-set, so two
 * processes never fire the same change twice.
 */

/** Rules changed by another process are seen within this long; states they changed likewise. */
export const ALERT_CACHE_TTL_MS = 5000;
const MAX_CACHED_RUNS = 10_000;

interface ProjectRules {
  loadedAt: number;
  rules: AlertRule[];
  byMetric: Map<string, AlertRule[]>;
  anyMetric: AlertRule[];
}

interface RunStates {
  loadedAt: number;
  states: Map<number, ConditionState>;
}

/** Adds to a Map used as a bounded cache: the oldest entry goes once it is full. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  cache.delete(key);
  if (cache.size >= MAX_CACHED_RUNS) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
  return value;
}

export class AlertEvaluator {
  /** Where evaluation errors go (the application's logger once built); they never fail the write. */
  log: Pick<FastifyBaseLogger, "error"> = { error: (...args: unknown[]) => console.error(...args) };
  /** Called when an event was queued, so this process's delivery worker reads the outbox at once. */
  onQueued: () => void = () => {};
  private readonly projects = new Map<number, ProjectRules | Promise<ProjectRules>>();
  private readonly runs = new Map<number, AlertRunContext>();
  private readonly states = new Map<number, RunStates>();

  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** Forgets every project's rules (a destination was deleted: rules stop naming it). */
  invalidateAll(): void {
    this.projects.clear();
  }

  /** Forgets a project's rules (a rule of it changed in this process). */
  invalidateProject(projectId: number): void {
    this.projects.delete(projectId);
    this.states.clear();
  }

  /** After metric points of the run were written. */
  async afterMetrics(runId: number, series: readonly MetricSeries[]): Promise<void> {
    await this.guard(async () => {
      const run = await this.runContext(runId);
      if (!run) return;
      const rules = await this.rulesOf(run.orgId, run.projectId);
      if (rules.rules.length === 0) return;
      const work: { rule: AlertRule; series: MetricSeries }[] = [];
      for (const one of series) {
        for (const rule of rules.byMetric.get(one.logName) ?? []) work.push({ rule, series: one });
        for (const rule of rules.anyMetric) work.push({ rule, series: one });
      }
      if (work.length === 0) return;
      const states = await this.statesOf(runId, rules.rules);
      const summaries = new Map<MetricSeries, ValueSummary>();
      const transitions: AlertTransition[] = [];
      for (const { rule, series: one } of work) {
        const from = states.get(rule.id) ?? INITIAL_STATE;
        let summary = summaries.get(one);
        if (!summary) summaries.set(one, (summary = summarizeValues(one.values)));
        const evaluation = evaluateMetricValues(rule.condition as MetricCondition, one.values, from, summary);
        const metric = one.logName;
        // Re-armed and fired again in one batch ends where it began, and still is one event.
        if (evaluation.fired || stateChanged(from, evaluation.state)) {
          states.set(rule.id, evaluation.state);
          transitions.push(this.transition(rule, run, runId, from, evaluation, { metric, value: evaluation.value }));
        }
      }
      await this.record(runId, transitions);
    });
  }

  /** After a status change of the run was applied. */
  async afterStatus(runId: number, status: RunStatus): Promise<void> {
    await this.guard(async () => {
      const run = await this.runContext(runId);
      if (!run) return;
      const rules = (await this.rulesOf(run.orgId, run.projectId)).rules.filter((rule) => rule.condition.type === "status");
      if (rules.length === 0) return;
      const states = await this.statesOf(runId, rules, true);
      const transitions: AlertTransition[] = [];
      for (const rule of rules) {
        const from = states.get(rule.id) ?? INITIAL_STATE;
        const evaluation = evaluateStatus(rule.condition as Extract<AlertRule["condition"], { type: "status" }>, status, from);
        if (stateChanged(from, evaluation.state)) {
          states.set(rule.id, evaluation.state);
          transitions.push(this.transition(rule, run, runId, from, evaluation, { status }));
        }
      }
      await this.record(runId, transitions);
    });
  }

  /** After a client's alert was stored: each client_alert rule it reaches fires (every alert is an event of its own). */
  async afterClientAlert(runId: number, alert: NewAlert): Promise<void> {
    await this.guard(async () => {
      const run = await this.runContext(runId);
      if (!run) return;
      const level = alertLevel(alert.level);
      const rules = (await this.rulesOf(run.orgId, run.projectId)).rules.filter(
        (rule) => rule.condition.type === "client_alert" && clientAlertFires(rule.condition, level),
      );
      for (const rule of rules) {
        const event = {
          orgId: run.orgId,
          projectId: run.projectId,
          runId,
          ruleId: rule.id,
          ruleName: rule.name,
          kind: "client_alert" as const,
        };
        await this.deps.store.recordAlertEvent(
          { ...event, title: alert.title, body: alert.body, level },
          rule.destinationIds,
          this.deps.clock.now(),
        );
      }
      if (rules.length > 0) this.onQueued();
    });
  }

  /** The runs a stalled check looks at (none when no enabled stalled rule exists). */
  stalledCandidates() {
    return this.deps.store.listStalledCandidates();
  }

  /** One stalled check of every organization (run by one process at a time, alert-monitor.ts); how many rules fired. */
  async checkStalled(candidates?: StalledCandidate[]): Promise<number> {
    const now = this.deps.clock.now();
    const transitions: AlertTransition[] = [];
    for (const candidate of candidates ?? (await this.deps.store.listStalledCandidates())) {
      const { rule, runId, state } = candidate;
      const condition = rule.condition as Extract<AlertRule["condition"], { type: "stalled" }>;
      const evaluation = evaluateStalled(condition, { status: candidate.status, lastActivityAt: candidate.lastActivityAt }, now, state);
      if (!stateChanged(state, evaluation.state)) continue;
      const run = { orgId: rule.orgId, projectId: rule.projectId, name: candidate.runName, displayId: "" };
      transitions.push(this.transition(rule, run, runId, state, evaluation, {}));
    }
    if (transitions.length === 0) return 0;
    const applied = await this.deps.store.recordAlertTransitions(transitions, now);
    const fired = transitions.filter((transition, i) => applied[i] && transition.event).length;
    if (fired > 0) this.onQueued();
    return fired;
  }

  private transition(
    rule: AlertRule,
    run: AlertRunContext,
    runId: number,
    from: ConditionState,
    evaluation: Evaluation,
    detail: { metric?: string; value?: number; status?: RunStatus },
  ): AlertTransition {
    const transition: AlertTransition = { ruleId: rule.id, runId, from, to: evaluation.state };
    if (evaluation.fired) {
      const { title, body, level } = describeFiring(rule.name, rule.condition, { runName: run.name, ...detail });
      transition.event = {
        orgId: run.orgId,
        projectId: run.projectId,
        runId,
        ruleId: rule.id,
        ruleName: rule.name,
        kind: rule.condition.type,
        title,
        body,
        level,
      };
    }
    return transition;
  }

  /** Records the changes; one another process changed first is not applied, and the run's states are read again next time. */
  private async record(runId: number, transitions: AlertTransition[]): Promise<void> {
    if (transitions.length === 0) return;
    const applied = await this.deps.store.recordAlertTransitions(transitions, this.deps.clock.now());
    if (applied.includes(false)) this.states.delete(runId);
    if (transitions.some((transition, i) => applied[i] && transition.event)) this.onQueued();
  }

  private async guard(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.log.error({ err: error }, "alert rule evaluation failed");
    }
  }

  private async runContext(runId: number): Promise<AlertRunContext | undefined> {
    const cached = this.runs.get(runId);
    if (cached) return cached;
    const run = await this.deps.store.getAlertRunContext(runId);
    return run && remember(this.runs, runId, run);
  }

  private async rulesOf(orgId: string, projectId: number): Promise<ProjectRules> {
    const cached = this.projects.get(projectId);
    if (cached && (cached instanceof Promise || this.deps.clock.now() - cached.loadedAt < ALERT_CACHE_TTL_MS)) return cached;
    // One read per project however many writes wait for it.
    const loading = this.loadRules(orgId, projectId);
    remember(this.projects, projectId, loading);
    try {
      return remember(this.projects, projectId, await loading);
    } catch (error) {
      this.projects.delete(projectId);
      throw error;
    }
  }

  private async loadRules(orgId: string, projectId: number): Promise<ProjectRules> {
    const rules = await this.deps.store.listAlertRules(orgId, projectId, true);
    const byMetric = new Map<string, AlertRule[]>();
    const anyMetric: AlertRule[] = [];
    for (const rule of rules) {
      const metric = watchedMetric(rule.condition);
      if (metric === ANY_METRIC) anyMetric.push(rule);
      else if (metric !== undefined) byMetric.set(metric, [...(byMetric.get(metric) ?? []), rule]);
    }
    return { loadedAt: this.deps.clock.now(), rules, byMetric, anyMetric };
  }

  /** The run's states of these rules, read once and then kept (read again after the TTL, or `fresh`). */
  private async statesOf(runId: number, rules: AlertRule[], fresh = false): Promise<Map<number, ConditionState>> {
    const cached = this.states.get(runId);
    const now = this.deps.clock.now();
    if (!fresh && cached && now - cached.loadedAt < ALERT_CACHE_TTL_MS && rules.every((rule) => cached.states.has(rule.id))) {
      return cached.states;
    }
    const stored = await this.deps.store.getAlertStates(
      runId,
      rules.map((rule) => rule.id),
    );
    for (const rule of rules) if (!stored.has(rule.id)) stored.set(rule.id, INITIAL_STATE);
    return remember(this.states, runId, { loadedAt: now, states: stored }).states;
  }
}
