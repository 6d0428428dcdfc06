import type { FastifyBaseLogger } from "fastify";
import type { ServiceDeps } from "./deps.js";
import { startLeasedJob } from "./leased-job.js";

export interface StaleRunMonitor {
  /**
   * One round now: takes or renews the sweeper lease and, holding it, sweeps. Returns how many runs
   * were marked FAILED, or null when another process holds the lease (and sweeps instead).
   */
  sweep(): Promise<number | null>;
  /** Stops the timer and gives the lease up, so another process takes over at its next round. */
  stop(): Promise<void>;
}

/** The lease that makes one process at a time the sweeper of a store. */
export const SWEEPER_LEASE = "stale-run-sweeper";

/**
 * How often a monitor runs a round: every quarter of the threshold, at most once a minute (so a
 * run is failed at most ~25% late), at least once a second. The lease lasts three rounds: a
 * holder that misses one round (a long pause) keeps it; one that crashed is replaced after at
 * most three rounds, plus one round of the taker's.
 */
export function sweepSchedule(staleAfterMs: number): { intervalMs: number; leaseTtlMs: number } {
  const intervalMs = Math.min(Math.max(staleAfterMs / 4, 1000), 60_000);
  return { intervalMs, leaseTtlMs: 3 * intervalMs };
}

/**
 * Marks RUNNING runs without a heartbeat for `config.staleAfterMs` as FAILED (docs/semantics.md, Runs: heartbeats).
 * Every process runs a monitor; the lease in the store lets exactly one of them sweep at a time
 * (docs/architecture.md, "Several processes on one store"). Heartbeats live in the store, so the
 * sweeper sees those every process received.
 */
export function startStaleRunMonitor(
  deps: Pick<ServiceDeps, "config" | "store" | "clock">,
  log: FastifyBaseLogger,
  /** Called with the runs each round failed, after it committed (alert rules on their status). */
  onFailed: (runIds: number[]) => void = () => {},
): StaleRunMonitor {
  const { store, clock } = deps;
  const { staleAfterMs } = deps.config;
  if (staleAfterMs === 0) return { sweep: async () => 0, stop: async () => {} };
  const { intervalMs, leaseTtlMs } = sweepSchedule(staleAfterMs);
  const job = startLeasedJob(
    deps,
    {
      lease: SWEEPER_LEASE,
      ttlMs: leaseTtlMs,
      intervalMs,
      name: "stale run sweep",
      round: async (take) => {
        const now = clock.now();
        if (!(await take())) return null;
        const failed = await store.failStaleRuns(now - staleAfterMs, now);
        if (failed.length > 0) {
          log.info({ marked: failed.length }, "marked stale runs as FAILED");
          onFailed(failed);
        }
        return failed.length;
      },
    },
    log,
  );
  return { sweep: job.runOnce, stop: job.stop };
}
