import { RUN_STATUSES, type RunStatus } from "../status.js";

/**
 * Alert rule conditions and how they are evaluated (docs/semantics.md, "Alerts"): pure decisions
 * over the previous state of a (rule, run) and what was just written; the store only records them.
 */

export const ALERT_LEVELS = ["INFO", "WARN", "ERROR"] as const;
export type AlertLevel = (typeof ALERT_LEVELS)[number];

export const ENDED_STATUSES = RUN_STATUSES.filter((status) => status !== "RUNNING") as Exclude<RunStatus, "RUNNING">[];
export type EndedStatus = Exclude<RunStatus, "RUNNING">;

export const CONDITION_TYPES = ["non_finite", "threshold", "stalled", "status", "client_alert"] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** `metric` is an exact metric name, or "*" for every metric of the run. */
export const ANY_METRIC = "*";
export const MIN_STALLED_SECONDS = 10;
export const MAX_CONSECUTIVE = 10_000;

export type Condition =
  | { type: "non_finite"; metric: string }
  | { type: "threshold"; metric: string; op: "above" | "below"; value: number; consecutive: number }
  | { type: "stalled"; afterSeconds: number }
  | { type: "status"; statuses: EndedStatus[] }
  | { type: "client_alert"; minLevel: AlertLevel };

export type MetricCondition = Extract<Condition, { type: "non_finite" | "threshold" }>;

/**
 * The state of a rule for one run. `active`: the condition holds and its event was recorded, so it
 * does not fire again until it stops holding (re-armed). `streak`: consecutive points on the
 * threshold's side so far, at most `consecutive` (so it stops changing once the rule is active).
 */
export interface ConditionState {
  active: boolean;
  streak: number;
}

export const INITIAL_STATE: ConditionState = Object.freeze({ active: false, streak: 0 });

export interface Evaluation {
  state: ConditionState;
  /** The condition started holding in this batch: one event. */
  fired: boolean;
  /** The value that made it fire (the first point that did). */
  value?: number;
}

/** Whether one value meets a metric condition. NaN is never above or below anything. */
function meets(condition: MetricCondition, value: number): boolean {
  if (condition.type === "non_finite") return !Number.isFinite(value);
  return condition.op === "above" ? value > condition.value : value < condition.value;
}

/** What every rule on a series asks of its values, computed once per series whatever the number of rules. */
export interface ValueSummary {
  /** The largest and smallest value other than NaN (±Inf included); -Inf / +Inf when every value is NaN. */
  max: number;
  min: number;
  allFinite: boolean;
}

export function summarizeValues(values: readonly number[]): ValueSummary {
  let max = -Infinity;
  let min = Infinity;
  let allFinite = true;
  for (const value of values) {
    if (Number.isNaN(value)) {
      allFinite = false;
      continue;
    }
    if (value > max) max = value;
    if (value < min) min = value;
    if (value === Infinity || value === -Infinity) allFinite = false;
  }
  return { max, min, allFinite };
}

/** Whether no value of the series meets the condition: then each value resets it, and the batch ends in INITIAL_STATE. */
function noneMeets(condition: MetricCondition, summary: ValueSummary): boolean {
  if (condition.type === "non_finite") return summary.allFinite;
  return condition.op === "above" ? !(summary.max > condition.value) : !(summary.min < condition.value);
}

/**
 * A batch of one metric's values, in the order they were written, against the previous state.
 * With the series' summary, a batch none of whose values meets the condition (the steady state of
 * nearly every rule) is decided without reading the values again.
 * The batch fires at most once (the first time the condition starts holding in it); the state
 * after it is the state after its last value.
 */
export function evaluateMetricValues(
  condition: MetricCondition,
  values: readonly number[],
  previous: ConditionState,
  summary?: ValueSummary,
): Evaluation {
  if (values.length > 0 && summary && noneMeets(condition, summary)) return { state: INITIAL_STATE, fired: false };
  const needed = condition.type === "threshold" ? condition.consecutive : 1;
  let { active, streak } = previous;
  let fired = false;
  let firedValue: number | undefined;
  for (const value of values) {
    if (meets(condition, value)) {
      streak = Math.min(streak + 1, needed);
      if (!active && streak >= needed) {
        active = true;
        if (!fired) firedValue = value;
        fired = true;
      }
    } else {
      streak = 0;
      active = false;
    }
  }
  return fired ? { state: { active, streak }, fired, value: firedValue } : { state: { active, streak }, fired };
}

/** Whether a rule's state changed (so the store must record it). */
export function stateChanged(a: ConditionState, b: ConditionState): boolean {
  return a.active !== b.active || a.streak !== b.streak;
}

/** A status condition against the run's new status: holds while the run is in one of the statuses; RUNNING re-arms. */
export function evaluateStatus(condition: Extract<Condition, { type: "status" }>, status: RunStatus, previous: ConditionState): Evaluation {
  const holds = (condition.statuses as RunStatus[]).includes(status);
  return { state: { active: holds, streak: 0 }, fired: holds && !previous.active };
}

/** A stalled condition: a RUNNING run whose last data (metrics, logs, heartbeat) is at least `afterSeconds` old. */
export function evaluateStalled(
  condition: Extract<Condition, { type: "stalled" }>,
  run: { status: RunStatus; lastActivityAt: number },
  now: number,
  previous: ConditionState,
): Evaluation {
  const holds = run.status === "RUNNING" && now - run.lastActivityAt >= condition.afterSeconds * 1000;
  return { state: { active: holds, streak: 0 }, fired: holds && !previous.active };
}

const LEVEL_RANK: Record<AlertLevel, number> = { INFO: 0, WARN: 1, ERROR: 2 };

/** A client's alert level as one of the three (anything else counts as INFO). */
export function alertLevel(level: string): AlertLevel {
  const upper = level.toUpperCase();
  return upper === "WARN" || upper === "WARNING" ? "WARN" : upper === "ERROR" ? "ERROR" : "INFO";
}

/** A client alert fires every rule whose minimum level it reaches (each alert is an event of its own). */
export function clientAlertFires(condition: Extract<Condition, { type: "client_alert" }>, level: AlertLevel): boolean {
  return LEVEL_RANK[level] >= LEVEL_RANK[condition.minLevel];
}

/** The metric names a rule watches: the index key of the rule cache ("*" for every metric). */
export function watchedMetric(condition: Condition): string | undefined {
  return condition.type === "non_finite" || condition.type === "threshold" ? condition.metric : undefined;
}

function describeValue(value: number | undefined): string {
  if (value === undefined) return "";
  return Number.isNaN(value) ? "NaN" : value === Infinity ? "+Inf" : value === -Infinity ? "-Inf" : String(value);
}

/** The title and body of a fired rule's event: what held, on which run. */
export function describeFiring(
  ruleName: string,
  condition: Condition,
  detail: { runName: string; metric?: string; value?: number; status?: RunStatus },
): { title: string; body: string; level: AlertLevel } {
  const title = `${ruleName}: ${detail.runName}`;
  switch (condition.type) {
    case "non_finite":
      return { title, body: `${detail.metric} became ${describeValue(detail.value)}`, level: "ERROR" };
    case "threshold": {
      const points = condition.consecutive === 1 ? "" : ` for ${condition.consecutive} consecutive points`;
      return {
        title,
        body: `${detail.metric} is ${condition.op} ${condition.value}${points} (${describeValue(detail.value)})`,
        level: "WARN",
      };
    }
    case "stalled":
      return { title, body: `no data for ${condition.afterSeconds} s while RUNNING`, level: "WARN" };
    case "status":
      return { title, body: `the run ended ${detail.status}`, level: detail.status === "COMPLETED" ? "INFO" : "ERROR" };
    case "client_alert":
      return { title, body: "", level: "INFO" };
  }
}
