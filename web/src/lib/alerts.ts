// Alert rules as the settings page shows and edits them (docs/api.md, "Alerts"): a rule's condition
// in words, the form's draft and its validation into the body the server takes, and a delivery's
// state in words. Pure, so unit tests cover it (alerts.test.ts).

import { RUN_STATUSES, type RunStatus } from "../../../src/domain/shared-with-ui.ts";
import { formatDuration, formatNumber } from "./format.ts";

export const CONDITION_TYPES = ["threshold", "non_finite", "stalled", "status", "client_alert"] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const ALERT_LEVELS = ["INFO", "WARN", "ERROR"] as const;
export type AlertLevel = (typeof ALERT_LEVELS)[number];
export const THRESHOLD_OPS = ["above", "below"] as const;
export type ThresholdOp = (typeof THRESHOLD_OPS)[number];
/** The statuses a run can end in (a status rule names some of them). */
export const END_STATUSES = RUN_STATUSES.filter((status) => status !== "RUNNING");
/** The metric name that stands for every metric of the run. */
export const ANY_METRIC = "*";

export const RULE_NAME_MAX = 200;
export const CONSECUTIVE_MAX = 10_000;
export const STALLED_MIN_SECONDS = 10;

export type Condition =
  | { type: "non_finite"; metric: string }
  | { type: "threshold"; metric: string; op: ThresholdOp; value: number; consecutive: number }
  | { type: "stalled"; afterSeconds: number }
  | { type: "status"; statuses: Exclude<RunStatus, "RUNNING">[] }
  | { type: "client_alert"; minLevel?: AlertLevel };

export interface Destination {
  id: number;
  name: string;
  kind: "webhook" | "slack";
  url: string;
  createdAt: number;
}
export type DestinationKind = Destination["kind"];
export const DESTINATION_KINDS: readonly DestinationKind[] = ["webhook", "slack"];

export interface AlertRule {
  id: number;
  projectName: string;
  name: string;
  condition: Condition;
  destinationIds: number[];
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["failed", "pending", "delivered"];
export interface Delivery {
  id: string;
  destinationId: number;
  destinationName: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}
export interface AlertEvent {
  id: number;
  ruleId: number | null;
  ruleName: string | null;
  runId: number;
  runName: string;
  projectName: string;
  kind: ConditionType | "test";
  title: string;
  body: string;
  level: AlertLevel;
  createdAt: number;
  deliveries: Delivery[];
}
/** A delivery of the organization's outbox, with its event's title. */
export type OutboxDelivery = Delivery & { eventId: number; title: string; createdAt: number };

export const CONDITION_LABELS: Record<ConditionType, string> = {
  threshold: "A metric crosses a threshold",
  non_finite: "A metric becomes NaN or ±Inf",
  stalled: "A running run stalls",
  status: "A run ends",
  client_alert: "The run's client sends an alert",
};

const metricText = (metric: string) => (metric === ANY_METRIC ? "any metric" : metric);

/** A duration without its zero parts ("10m", not "10m 0s"). */
const wholeDuration = (milliseconds: number) =>
  formatDuration(milliseconds)
    .split(" ")
    .filter((part) => !/^0[a-z]$/.test(part))
    .join(" ");

/** A condition as a sentence ("train/loss is above 5 for 3 consecutive points"). */
export function conditionInWords(condition: Condition): string {
  switch (condition.type) {
    case "non_finite":
      return `${metricText(condition.metric)} becomes NaN or ±Inf`;
    case "threshold": {
      const crossing = `${metricText(condition.metric)} is ${condition.op} ${formatNumber(condition.value)}`;
      return condition.consecutive > 1 ? `${crossing} for ${condition.consecutive} consecutive points` : crossing;
    }
    case "stalled":
      return `a running run receives no data for ${wholeDuration(condition.afterSeconds * 1000)}`;
    case "status":
      return `a run ends ${condition.statuses.join(" or ")}`;
    case "client_alert": {
      const level = condition.minLevel ?? "INFO";
      return level === "INFO" ? "the run's client sends any alert" : `the run's client sends an alert of level ${level} or above`;
    }
  }
}

/** The rule form's fields as typed (numbers as text, so a half-typed value is the user's until submitted). */
export interface RuleDraft {
  name: string;
  type: ConditionType;
  metric: string;
  op: ThresholdOp;
  value: string;
  consecutive: string;
  afterSeconds: string;
  statuses: readonly Exclude<RunStatus, "RUNNING">[];
  minLevel: AlertLevel;
  destinationIds: readonly number[];
}

export const EMPTY_DRAFT: RuleDraft = {
  name: "",
  type: "threshold",
  metric: "",
  op: "above",
  value: "",
  consecutive: "1",
  afterSeconds: "600",
  statuses: ["FAILED"],
  minLevel: "WARN",
  destinationIds: [],
};

/** A rule's draft for editing it. */
export function draftOf(rule: { name: string; condition: Condition; destinationIds: readonly number[] }): RuleDraft {
  const draft: RuleDraft = { ...EMPTY_DRAFT, name: rule.name, type: rule.condition.type, destinationIds: rule.destinationIds };
  const condition = rule.condition;
  switch (condition.type) {
    case "non_finite":
      return { ...draft, metric: condition.metric };
    case "threshold":
      return {
        ...draft,
        metric: condition.metric,
        op: condition.op,
        value: String(condition.value),
        consecutive: String(condition.consecutive),
      };
    case "stalled":
      return { ...draft, afterSeconds: String(condition.afterSeconds) };
    case "status":
      return { ...draft, statuses: condition.statuses };
    case "client_alert":
      return { ...draft, minLevel: condition.minLevel ?? "INFO" };
  }
}

export type RuleField = "name" | "metric" | "value" | "consecutive" | "afterSeconds" | "statuses";
export interface RuleProblem {
  field: RuleField;
  message: string;
}
export type RuleBody = { name: string; condition: Condition; destinationIds: number[] };

/** A whole number from what was typed, or undefined ("", "1.5", "1e3" and "12abc" are not). */
function wholeNumber(text: string): number | undefined {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
}

/** A finite number from what was typed ("" and "abc" are not; "1e-3" and "-2.5" are). */
function finiteNumber(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * The body of a rule's create or change from the form, or the problems that keep it from being
 * sent: the server's own checks, repeated so the form says what is wrong before a round trip
 * (the server still decides, and its refusal is shown as it says it).
 */
export function ruleFromDraft(draft: RuleDraft): { body: RuleBody } | { problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const name = draft.name.trim();
  if (name === "") problems.push({ field: "name", message: "Give the rule a name." });
  else if (name.length > RULE_NAME_MAX) problems.push({ field: "name", message: `A rule's name has at most ${RULE_NAME_MAX} characters.` });
  const metric = draft.metric.trim();
  let condition: Condition | undefined;
  switch (draft.type) {
    case "non_finite":
      if (metric === "") problems.push({ field: "metric", message: `Choose a metric, or ${ANY_METRIC} for any metric.` });
      else condition = { type: "non_finite", metric };
      break;
    case "threshold": {
      if (metric === "") problems.push({ field: "metric", message: `Choose a metric, or ${ANY_METRIC} for any metric.` });
      const value = finiteNumber(draft.value);
      if (value === undefined) problems.push({ field: "value", message: "The threshold is a finite number." });
      const consecutive = wholeNumber(draft.consecutive);
      if (consecutive === undefined || consecutive < 1 || consecutive > CONSECUTIVE_MAX)
        problems.push({ field: "consecutive", message: `Consecutive points is a whole number from 1 to ${CONSECUTIVE_MAX}.` });
      if (metric !== "" && value !== undefined && consecutive !== undefined)
        condition = { type: "threshold", metric, op: draft.op, value, consecutive };
      break;
    }
    case "stalled": {
      const afterSeconds = wholeNumber(draft.afterSeconds);
      if (afterSeconds === undefined || afterSeconds < STALLED_MIN_SECONDS)
        problems.push({ field: "afterSeconds", message: `A run stalls after ${STALLED_MIN_SECONDS} seconds or more (a whole number).` });
      else condition = { type: "stalled", afterSeconds };
      break;
    }
    case "status":
      if (draft.statuses.length === 0) problems.push({ field: "statuses", message: "Tick at least one status." });
      else condition = { type: "status", statuses: END_STATUSES.filter((status) => draft.statuses.includes(status)) };
      break;
    case "client_alert":
      condition = { type: "client_alert", minLevel: draft.minLevel };
      break;
  }
  if (problems.length > 0 || condition === undefined) return { problems };
  return { body: { name, condition, destinationIds: [...new Set(draft.destinationIds)] } };
}

/** What keeps a destination from being sent (the server checks again, and the addresses it refuses). */
export function destinationProblem(name: string, url: string): string | undefined {
  if (name.trim() === "") return "Give the destination a name.";
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return "The URL is a full http:// or https:// address.";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "The URL is a full http:// or https:// address.";
  return undefined;
}

/** A delivery's state in words: "delivered", "failed after 3 attempts", "pending, attempt 2 in 30s". */
export function deliveryInWords(delivery: { status: DeliveryStatus; attempts: number; nextAttemptAt: number | null }, now: number): string {
  const attempts = delivery.attempts === 1 ? "1 attempt" : `${delivery.attempts} attempts`;
  switch (delivery.status) {
    case "delivered":
      return delivery.attempts > 1 ? `delivered after ${attempts}` : "delivered";
    case "failed":
      return `failed after ${attempts}`;
    case "pending": {
      if (delivery.nextAttemptAt === null) return "pending";
      const wait = delivery.nextAttemptAt - now;
      const next = wait <= 0 ? "due now" : `next in ${formatDuration(wait)}`;
      return delivery.attempts === 0 ? `pending, ${next}` : `pending after ${attempts}, ${next}`;
    }
  }
}
