import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { AllowList } from "../domain/alerts/address-policy.js";
import {
  DEFAULT_RETRY_POLICY,
  nextAttempt,
  type RetryPolicy,
  signWebhook,
  slackBody,
  truncateError,
  webhookBody,
} from "../domain/alerts/delivery.js";
import type { Clock } from "../domain/time.js";
import type { ClaimedDelivery, DeliveryOutcome } from "../store/alert-store.js";
import type { Store } from "../store/store.js";
import { runUrl } from "../domain/web-urls.js";
import { postJson } from "./alert-http.js";

export type DeliveryOutcomeKind = "delivered" | "retry" | "failed";

export interface DeliveryWorkerOptions {
  allow: AllowList;
  /** Base of the run links in deliveries (--public-url); empty gives paths. */
  publicUrl: string;
  /** Requests in flight at most (a quarter of them per destination): a slow receiver holds its share, never the others or ingest. */
  concurrency?: number;
  /** One request, connection to answer, at most this long. */
  timeoutMs?: number;
  /** How often the outbox is read when nothing woke the worker. */
  pollMs?: number;
  retry?: RetryPolicy;
  /** Each attempt's outcome (the server's metrics count them). */
  onOutcome?: (outcome: DeliveryOutcomeKind) => void;
}

export interface DeliveryWorker {
  /** Reads the outbox now (an event was just queued). */
  wake(): void;
  /** Stops claiming and waits for the requests in flight (each bounded by the timeout). */
  stop(): Promise<void>;
}

/**
 * The delivery worker each process runs (docs/decisions.md, "Alert delivery"): it claims due
 * deliveries from the outbox in the store (so they survive restarts, and several processes never
 * take the same one), posts each with bounded concurrency and a timeout, and records the outcome:
 * delivered, a retry after exponential backoff with full jitter, or failed after the last attempt.
 * A claim lasts well past the timeout, so a delivery is taken again only when its process died
 * mid-attempt (at least once).
 */
export function startDeliveryWorker(
  deps: { store: Store; clock: Clock },
  log: FastifyBaseLogger,
  options: DeliveryWorkerOptions,
): DeliveryWorker {
  const { store, clock } = deps;
  const concurrency = options.concurrency ?? 8;
  if (concurrency === 0) return { wake: () => {}, stop: async () => {} };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 1000;
  const retry = options.retry ?? DEFAULT_RETRY_POLICY;
  const claimMs = timeoutMs * 6;
  const inFlight = new Set<Promise<void>>();
  // A quarter of the slots at most per destination, so one dead receiver never holds them all.
  const perDestinationLimit = Math.max(1, Math.floor(concurrency / 4));
  const perDestination = new Map<number, number>();
  // Stopping cuts the requests in flight: each is recorded as an attempt due again at once.
  const stopping = new AbortController();
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const attempt = async (delivery: ClaimedDelivery, claimToken: string) => {
    const result = await send(delivery, options.publicUrl, { allow: options.allow, timeoutMs, signal: stopping.signal }, clock);
    const now = clock.now();
    let outcome: DeliveryOutcome;
    if (result.ok) outcome = { status: "delivered" };
    else {
      const next = stopping.signal.aborted ? { retryAt: now } : nextAttempt(delivery.attempts + 1, retry, Math.random(), now);
      const error = truncateError(result.error);
      outcome = next === "failed" ? { status: "failed", error } : { status: "pending", retryAt: next.retryAt, error };
    }
    const recorded = await store.finishAlertDelivery(delivery.id, claimToken, outcome, now);
    if (!recorded) log.warn({ deliveryId: delivery.id }, "an alert delivery's claim expired before its outcome was recorded");
    options.onOutcome?.(outcome.status === "pending" ? "retry" : outcome.status);
  };

  const round = async () => {
    const free = concurrency - inFlight.size;
    if (free <= 0) return;
    if (!(await store.hasDueAlertDeliveries(clock.now()))) return;
    const claimToken = randomUUID();
    const claimed = await store.claimAlertDeliveries(clock.now(), free, claimMs, claimToken);
    for (const delivery of claimed) {
      const destinationId = delivery.destination.id;
      const busy = perDestination.get(destinationId) ?? 0;
      if (busy >= perDestinationLimit) {
        // Its destination has its share in flight (a slow receiver): the slot goes to other destinations.
        await store.finishAlertDelivery(delivery.id, claimToken, { status: "deferred", retryAt: clock.now() + pollMs }, clock.now());
        continue;
      }
      perDestination.set(destinationId, busy + 1);
      const task = attempt(delivery, claimToken)
        .finally(() => {
          const left = (perDestination.get(destinationId) ?? 1) - 1;
          if (left === 0) perDestination.delete(destinationId);
          else perDestination.set(destinationId, left);
        })
        .catch((error: unknown) => log.error({ err: error, deliveryId: delivery.id }, "alert delivery failed"))
        .finally(() => {
          inFlight.delete(task);
          wakeUp?.();
        });
      inFlight.add(task);
    }
  };

  const loop = async () => {
    while (!stopped) {
      await round().catch((error: unknown) => log.error({ err: error }, "reading the alert outbox failed"));
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        timer = setTimeout(resolve, pollMs);
        timer.unref();
      });
      clearTimeout(timer);
      wakeUp = undefined;
    }
  };
  const running = loop();

  return {
    wake: () => wakeUp?.(),
    async stop() {
      stopped = true;
      wakeUp?.();
      stopping.abort();
      await running;
      await Promise.all(inFlight);
    },
  };
}

/** The delivery's request: a signed webhook, or a Slack body. */
function send(
  delivery: ClaimedDelivery,
  publicUrl: string,
  request: { allow: AllowList; timeoutMs: number; signal: AbortSignal },
  clock: Clock,
) {
  const { destination, event } = delivery;
  const run = delivery.run && { ...delivery.run, url: runUrl(publicUrl, delivery.run.projectName, delivery.run.id) };
  if (destination.kind === "slack") return postJson(destination.url, slackBody(event, run), {}, request);
  const body = webhookBody(delivery.id, event, run);
  const timestamp = Math.floor(clock.now() / 1000);
  const headers = {
    "x-stepwise-delivery": delivery.id,
    "x-stepwise-timestamp": String(timestamp),
    "x-stepwise-signature": signWebhook(destination.secret ?? "", timestamp, body),
  };
  return postJson(destination.url, body, headers, request);
}
