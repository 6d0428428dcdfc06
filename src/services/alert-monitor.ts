import type { FastifyBaseLogger } from "fastify";
import { parseAllowList } from "../domain/alerts/address-policy.js";
import { DEFAULT_RETRY_POLICY } from "../domain/alerts/delivery.js";
import type { AlertEvaluator } from "./alert-evaluator.js";
import { type DeliveryOutcomeKind, type DeliveryWorker, startDeliveryWorker } from "./alert-delivery.js";
import type { ServiceDeps } from "./deps.js";
import { startLeasedJob } from "./leased-job.js";

/** The lease that makes one process at a time the checker of stalled runs. */
export const STALL_CHECKER_LEASE = "alert-stall-checker";
/** Stalled conditions are at least 10 s; checked every 5 s, a stall is seen at most 5 s late. */
export const STALL_CHECK_INTERVAL_MS = 5000;

export interface AlertBackground {
  worker: DeliveryWorker;
  /** One stalled check now: how many rules fired, or null when another process holds the lease. */
  checkStalled(): Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * What every process runs for alerts: its delivery worker, and the stalled check under a lease
 * (like the stale-run sweep, services/stale-runs.ts: one process at a time).
 */
export function startAlertBackground(
  deps: Pick<ServiceDeps, "config" | "store" | "clock">,
  evaluator: AlertEvaluator,
  log: FastifyBaseLogger,
  onOutcome?: (outcome: DeliveryOutcomeKind) => void,
): AlertBackground {
  const { config } = deps;
  const worker = startDeliveryWorker(deps, log, {
    allow: parseAllowList(config.alertsAllowHosts),
    publicUrl: config.publicUrl,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: config.alertsMaxAttempts },
    concurrency: config.alertsConcurrency,
    onOutcome,
  });
  evaluator.onQueued = () => worker.wake();
  const stallCheck = startLeasedJob(
    deps,
    {
      lease: STALL_CHECKER_LEASE,
      ttlMs: 3 * STALL_CHECK_INTERVAL_MS,
      intervalMs: STALL_CHECK_INTERVAL_MS,
      name: "stalled run check",
      round: async (take) => {
        // A read first: without a stalled rule (or a RUNNING run under one) the check writes nothing, not even its lease.
        const candidates = await evaluator.stalledCandidates();
        if (candidates.length === 0) return 0;
        if (!(await take())) return null;
        return evaluator.checkStalled(candidates);
      },
    },
    log,
  );
  return {
    worker,
    checkStalled: stallCheck.runOnce,
    async stop() {
      evaluator.onQueued = () => {};
      await stallCheck.stop();
      await worker.stop();
    },
  };
}
