// Alert rules as the settings page shows and edits them (docs/api.md, "Alerts"): a rule's condition
// in words, the form's draft and its validation into the body the server takes, and a delivery's
// state in words. Pure, so unit tests cover it (alerts.test.ts).

import {
  type AlertLevel,
  alertName,
  ANY_METRIC,
  type Condition,
  type ConditionInput,
  type ConditionType,
  ENDED_STATUSES,
  type EndedStatus,
  normalizeCondition,
} from "../../../src/domain/shared-with-ui.ts";
import type { AlertRule } from "../types.ts";
import { formatDuration, formatNumber } from "./format.ts";

export type { Condition, ConditionType };
/** The condition types in the order the form offers them (the most used first). */
export const CONDITION_CHOICES: readonly ConditionType[] = ["threshold", "non_finite", "stalled", "status", "client_alert"];
export const THRESHOLD_OPS = ["above", "below"] as const;
export type ThresholdOp = (typeof THRESHOLD_OPS)[number];
export const DESTINATION_KINDS = ["webhook", "slack"] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];
export type DeliveryStatus = "pending" | "delivered" | "failed";
/** The outbox's filter, failed first: what an operator looks for. */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["failed", "pending", "delivered"];

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
      const level = condition.minLevel;
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
  statuses: readonly EndedStatus[];
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
export function draftOf(rule: Pick<AlertRule, "name" | "condition" | "destinationIds">): RuleDraft {
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
      return { ...draft, minLevel: condition.minLevel };
  }
}

export type RuleField = "name" | "metric" | "value" | "consecutive" | "afterSeconds" | "statuses" | "condition";
const FIELDS: readonly RuleField[] = ["name", "metric", "value", "consecutive", "afterSeconds", "statuses"];
export interface RuleProblem {
  field: RuleField;
  message: string;
}
export type RuleBody = { name: string; condition: Condition; destinationIds: number[] };

/** A number from what was typed: NaN when it is none ("" included, which Number reads as 0). */
const numberOf = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));

/** The condition the form's fields describe, unchecked. */
function conditionInput(draft: RuleDraft): ConditionInput {
  const metric = draft.metric.trim();
  switch (draft.type) {
    case "non_finite":
      return { type: "non_finite", metric };
    case "threshold":
      return { type: "threshold", metric, op: draft.op, value: numberOf(draft.value), consecutive: numberOf(draft.consecutive) };
    case "stalled":
      return { type: "stalled", afterSeconds: numberOf(draft.afterSeconds) };
    case "status":
      return { type: "status", statuses: ENDED_STATUSES.filter((status) => draft.statuses.includes(status)) };
    case "client_alert":
      return { type: "client_alert", minLevel: draft.minLevel };
  }
}

/** The server's refusal ("condition.value: must be a finite number") as the problem of the field it names. */
function problemOf(failure: unknown): RuleProblem {
  const message = failure instanceof Error ? failure.message : String(failure);
  const named = /^(?:condition\.)?(\w+): (.*)$/s.exec(message);
  const field = FIELDS.find((candidate) => candidate === named?.[1]);
  return field && named ? { field, message: named[2]! } : { field: "condition", message };
}

/**
 * The body of a rule's create or change from the form, or the problems that keep it from being
 * sent. The checks are the server's own (alertName and normalizeCondition of src/domain/alerts),
 * run here so the form says what is wrong before a round trip; the server applies them again with
 * its schema's bounds, and its refusal is shown as it says it.
 */
export function ruleFromDraft(draft: RuleDraft): { body: RuleBody } | { problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const checked = <T>(check: () => T): T | undefined => {
    try {
      return check();
    } catch (failure) {
      problems.push(problemOf(failure));
      return undefined;
    }
  };
  const name = checked(() => alertName(draft.name));
  const condition = checked(() => normalizeCondition(conditionInput(draft)));
  if (name === undefined || condition === undefined) return { problems };
  return { body: { name, condition, destinationIds: [...new Set(draft.destinationIds)] } };
}

/** What keeps a destination from being sent (the server checks again, and the addresses it refuses). */
export function destinationProblem(name: string, url: string): string | undefined {
  try {
    alertName(name); // the server's check of a rule's or destination's name
  } catch (failure) {
    return failure instanceof Error ? failure.message : String(failure);
  }
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
