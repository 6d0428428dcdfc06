import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { FastifyBaseLogger } from "fastify";
import type { ServiceDeps } from "./deps.js";

/** Taking (or renewing) the job's lease for this process: true when it holds it now. */
export type TakeLease = () => Promise<boolean>;

export interface LeasedJob<T> {
  /** One round now; null when another process holds the lease. */
  runOnce(): Promise<T | null>;
  /** Stops the timer and gives the lease up, so another process takes over at its next round. */
  stop(): Promise<void>;
}

/**
 * A job every process runs on a timer while one at a time does its work: the one holding the named
 * lease in the store (docs/architecture.md, "Several processes on one store"). A round calls
 * `take` before its writes (after any read that may show there is nothing to do) and may call it
 * again to renew the lease during a long round; without the lease it answers null.
 */
export function startLeasedJob<T>(
  deps: Pick<ServiceDeps, "store" | "clock">,
  job: { lease: string; ttlMs: number; intervalMs: number; name: string; round: (take: TakeLease) => Promise<T | null> },
  log: FastifyBaseLogger,
): LeasedJob<T> {
  const { store, clock } = deps;
  // Names the process, so an operator reading the leases table sees which one holds it; unique per job.
  const holderId = `${hostname()}/${process.pid}/${randomUUID()}`;
  const take: TakeLease = () => store.tryAcquireLease(job.lease, holderId, clock.now(), job.ttlMs);
  const runOnce = () => job.round(take);
  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => log.error({ err: error }, `${job.name} failed`));
  }, job.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      // A store that cannot answer now must not stop the shutdown: the lease then simply expires.
      await store
        .releaseLease(job.lease, holderId)
        .catch((error: unknown) => log.warn({ err: error }, `could not release the ${job.lease} lease`));
    },
  };
}
