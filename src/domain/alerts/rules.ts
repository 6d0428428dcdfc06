import { invalidInput } from "../errors.js";
import { type AlertLevel, type Condition, MAX_CONSECUTIVE, MIN_STALLED_SECONDS, type EndedStatus } from "./conditions.js";

/** What a rule or destination may be (docs/api.md, "Alerts"); the HTTP schemas check shapes, these the rest. */

export const MAX_ALERT_NAME_LENGTH = 200;
export const MAX_RULE_DESTINATIONS = 20;
export const MAX_DESTINATION_URL_LENGTH = 2048;
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;

/** A rule's or destination's name as stored: trimmed, not empty. */
export function alertName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw invalidInput("name: must not be empty");
  if (trimmed.length > MAX_ALERT_NAME_LENGTH) throw invalidInput(`name: longer than ${MAX_ALERT_NAME_LENGTH} characters`);
  return trimmed;
}

export type ConditionInput =
  | { type: "non_finite"; metric: string }
  | { type: "threshold"; metric: string; op: "above" | "below"; value: number; consecutive?: number }
  | { type: "stalled"; afterSeconds: number }
  | { type: "status"; statuses: EndedStatus[] }
  | { type: "client_alert"; minLevel?: AlertLevel };

/** A condition as stored: defaults filled in, each field checked, no field of another type kept. */
export function normalizeCondition(input: ConditionInput): Condition {
  switch (input.type) {
    case "non_finite":
      return { type: input.type, metric: metricName(input.metric) };
    case "threshold": {
      const consecutive = input.consecutive ?? 1;
      if (!Number.isInteger(consecutive) || consecutive < 1 || consecutive > MAX_CONSECUTIVE) {
        throw invalidInput(`condition.consecutive: must be an integer from 1 to ${MAX_CONSECUTIVE}`);
      }
      if (!Number.isFinite(input.value)) throw invalidInput("condition.value: must be a finite number");
      return { type: input.type, metric: metricName(input.metric), op: input.op, value: input.value, consecutive };
    }
    case "stalled":
      if (!(input.afterSeconds >= MIN_STALLED_SECONDS))
        throw invalidInput(`condition.afterSeconds: must be at least ${MIN_STALLED_SECONDS}`);
      return { type: input.type, afterSeconds: input.afterSeconds };
    case "status": {
      const statuses = [...new Set(input.statuses)];
      if (statuses.length === 0) throw invalidInput("condition.statuses: must name at least one status");
      return { type: input.type, statuses };
    }
    case "client_alert":
      return { type: input.type, minLevel: input.minLevel ?? "INFO" };
  }
}

function metricName(metric: string): string {
  if (metric.trim() === "") throw invalidInput("condition.metric: must not be empty");
  return metric;
}

/**
 * A destination's URL as lists show it. A Slack incoming-webhook URL is its own credential (its last
 * path segment is the token), so after creation it is shown without it, like a webhook's secret.
 */
export function displayedUrl(kind: "webhook" | "slack", url: string): string {
  if (kind !== "slack") return url;
  const cut = url.lastIndexOf("/");
  return cut > url.indexOf("//") + 1 ? `${url.slice(0, cut + 1)}…` : url;
}
