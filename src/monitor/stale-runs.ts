import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../domain/time.js";
import type { Store } from "../store/store.js";

export interface StaleRunMonitor {
  /** One sweep now; returns how many runs were marked FAILED. */
  sweep(): Promise<number>;
  stop(): void;
}

/**
 * Marks RUNNING runs without a heartbeat for `staleAfterMs` as FAILED (decisions §6). Sweeps
 * every quarter of the threshold, at most once a minute, so a run is failed at most ~25% late.
 */
export function startStaleRunMonitor(store: Store, clock: Clock, staleAfterMs: number, log: FastifyBaseLogger): StaleRunMonitor {
  const sweep = async () => {
    const now = clock.now();
    const marked = await store.failStaleRuns(now - staleAfterMs, now);
    if (marked > 0) log.info({ marked }, "marked stale runs as FAILED");
    return marked;
  };
  if (staleAfterMs === 0) return { sweep: async () => 0, stop: () => {} };
  const timer = setInterval(() => {
    sweep().catch((error: unknown) => log.error({ err: error }, "stale run sweep failed"));
  }, Math.min(Math.max(staleAfterMs / 4, 1000), 60_000));
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
