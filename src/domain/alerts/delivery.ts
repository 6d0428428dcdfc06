import { createHmac } from "node:crypto";
import type { DeliveredEvent, DeliveredRun } from "./events.js";

/**
 * How a delivery goes out and when it is tried again (docs/decisions.md, "Alert delivery"): pure
 * rules the delivery worker applies.
 */

export interface RetryPolicy {
  /** The first retry waits up to this long (full jitter: a uniform time in [0, base]). */
  baseDelayMs: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
  /** After this many failed attempts the delivery is `failed`. */
  maxAttempts: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 2000, maxDelayMs: 3_600_000, maxAttempts: 10 };

/**
 * After the `attempts`-th failed attempt: when to try again (exponential backoff with full jitter,
 * `random` in [0, 1)), or "failed" when the attempts are used up.
 */
export function nextAttempt(attempts: number, policy: RetryPolicy, random: number, now: number): { retryAt: number } | "failed" {
  if (attempts >= policy.maxAttempts) return "failed";
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempts - 1, 40));
  return { retryAt: now + Math.floor(random * ceiling) };
}

/** `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`, the X-Stepwise-Signature header. */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`;
}

/** The JSON body of a generic webhook delivery (docs/api.md, "Alerts": wire format). */
export function webhookBody(deliveryId: string, event: DeliveredEvent, run: DeliveredRun | null): string {
  return JSON.stringify({ deliveryId, event, run });
}

/** A Slack incoming-webhook body: the text, and the same as one section block. */
export function slackBody(event: DeliveredEvent, run: DeliveredRun | null): string {
  const where = run ? ` (<${run.url}|${run.projectName}/${run.displayId}>)` : "";
  const text = `[${event.level}] ${event.title}${where}${event.body ? `\n${event.body}` : ""}`;
  return JSON.stringify({ text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] });
}

/** At most this much of a receiver's error is kept as a delivery's last error. */
export const MAX_ERROR_LENGTH = 500;

export function truncateError(message: string): string {
  return message.length <= MAX_ERROR_LENGTH ? message : `${message.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}
