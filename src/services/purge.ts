import type { FastifyBaseLogger } from "fastify";
import type { BlobStore } from "../blobs/blob-store.js";
import type { Clock } from "../domain/time.js";
import type { PurgeTarget, Store } from "../store/store.js";
import { SYSTEM_ACTOR } from "../domain/audit.js";
import { AuditLog, type AuditContext } from "./audit.js";
import { startLeasedJob } from "./leased-job.js";

/** What a purge removed. */
export interface PurgeReport {
  runs: number;
  projects: number;
  points: number;
  /** File records of the purged runs. */
  files: number;
  /** Blobs (objects in a bucket, files in the data directory) removed, and their bytes. */
  fileObjects: number;
  fileBytes: number;
  /** Runs a retention policy moved to the trash in this round. */
  retired: number;
}

export interface PurgeDeps {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
}

/** Runs read per listing: each run is then purged in a transaction of its own. */
const PURGE_PAGE = 100;

const emptyReport = (): PurgeReport => ({ runs: 0, projects: 0, points: 0, files: 0, fileObjects: 0, fileBytes: 0, retired: 0 });

/**
 * Purges what was deleted at or before `cutoff` (docs/semantics.md, "Deletion"): run by run, each
 * run's rows in one transaction (a run of 100,000 points holds the write lock for milliseconds, a
 * project of 1,000 runs never holds it whole), then its file bytes; then the emptied projects.
 * Rows go first, the bytes after, through the store's queue (DeletionStore.purgeRun): a failure
 * between the two leaves queued bytes that the next purge removes first, never a half-purged run
 * that a restore could bring back without its files. `onRun` is told after each run (progress).
 */
export async function purgeDeleted(deps: PurgeDeps, cutoff: number, onRun?: (report: PurgeReport) => void): Promise<PurgeReport> {
  const { store, blobs, clock } = deps;
  const audit = new AuditLog(deps);
  const report = emptyReport();
  const freeBlobs = async (target: PurgeTarget) => {
    const freed = await blobs.deleteRun(target);
    report.fileObjects += freed.objects;
    report.fileBytes += freed.bytes;
    await store.deleteBlobPurge(target.runId);
  };
  for (let queued = await store.listBlobPurges(PURGE_PAGE); queued.length > 0; queued = await store.listBlobPurges(PURGE_PAGE)) {
    for (const target of queued) await freeBlobs(target);
  }
  for (;;) {
    const page = await store.listPurgeableRuns(cutoff, PURGE_PAGE);
    let purged = 0;
    for (const { runId, orgId } of page) {
      // Recorded in the purge's transaction, as the server's own doing.
      const run = await audit.write(bySystem(orgId), "purgeRun", [runId, cutoff, clock.now()], (done) =>
        done
          ? [{ action: "runs.purge", target: { type: "run", id: String(runId) }, details: { points: done.points, files: done.files } }]
          : [],
      );
      if (!run) continue;
      purged += 1;
      report.runs += 1;
      report.points += run.points;
      report.files += run.files;
      await freeBlobs(run);
      onRun?.(report);
    }
    // A page whose runs were all restored or purged by another process meanwhile: nothing is left to list.
    if (purged === 0) break;
  }
  for (;;) {
    const projects = await store.listPurgeableProjects(cutoff, PURGE_PAGE);
    let purged = 0;
    for (const { projectId, orgId } of projects) {
      const name = (await store.listDeletedProjects(orgId)).find((project) => project.id === projectId)?.name ?? String(projectId);
      const done = await audit.write(bySystem(orgId), "purgeProject", [projectId, cutoff], (gone) =>
        gone ? [{ action: "project.purge", target: { type: "project", id: name } }] : [],
      );
      if (done) purged += 1;
    }
    report.projects += purged;
    if (purged === 0) break;
  }
  return report;
}

/** Applies every project's retention policy at `now`: the runs it names go to the trash (DeletionStore.retireRuns). Returns how many. */
export async function applyRetention(store: Store, clock: Clock, now: number): Promise<number> {
  const audit = new AuditLog({ store, clock });
  let retired = 0;
  for (const policy of await store.listRetentionPolicies()) {
    const ids = await audit.write(bySystem(policy.orgId), "retireRuns", [policy.orgId, policy.projectId, now, true], (runIds) =>
      runIds.map((id) => ({ action: "runs.delete", target: { type: "run", id: String(id) }, details: { reason: "retention" } })),
    );
    retired += ids.length;
  }
  return retired;
}

/** The purge and retention act as the server itself: the actor 'system', from no address. */
const bySystem = (orgId: string): AuditContext => ({ orgId, actor: SYSTEM_ACTOR, sourceIp: null });

/** One purge round as the server and `stepwise gc` run it: retention first, then the purge of what is due, then the space. */
export async function purgeRound(deps: PurgeDeps, retentionMs: number, onRun?: (report: PurgeReport) => void): Promise<PurgeReport> {
  const now = deps.clock.now();
  const retired = await applyRetention(deps.store, deps.clock, now);
  const report = await purgeDeleted(deps, now - retentionMs, onRun);
  return { ...report, retired };
}

export interface PurgeMonitor {
  /** One round now, under the lease; null when another process holds it. */
  purge(): Promise<PurgeReport | null>;
  stop(): Promise<void>;
}

/** The lease that makes one process at a time the purger of a store (as services/stale-runs.ts's sweeper). */
export const PURGER_LEASE = "deleted-purger";

/** A round an hour: deletion's grace period is counted in days. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** A round gives SQLite's freed pages back for at most this long; what is left is reused by writes, or given back next round. */
const RECLAIM_BUDGET_MS = 2000;
/** A round may take long (a project of many runs): the holder renews the lease after every run. */
const PURGE_LEASE_TTL_MS = 10 * 60 * 1000;

/**
 * Every process runs a monitor; the lease lets one of them purge at a time. A round applies the
 * retention policies, purges what was deleted `retentionMs` ago or earlier, and gives SQLite's freed
 * pages back (incremental vacuum, when the database is in that mode).
 */
export function startPurgeMonitor(deps: PurgeDeps & { retentionMs: number }, log: FastifyBaseLogger): PurgeMonitor {
  const { store } = deps;
  const job = startLeasedJob(
    deps,
    {
      lease: PURGER_LEASE,
      ttlMs: PURGE_LEASE_TTL_MS,
      intervalMs: PURGE_INTERVAL_MS,
      name: "purge of deleted runs",
      round: async (take) => {
        if (!(await take())) return null;
        const report = await purgeRound(deps, deps.retentionMs, () => {
          take().catch(() => undefined);
        });
        if (report.runs + report.projects > 0) await store.reclaimSpace({ rewrite: false, budgetMs: RECLAIM_BUDGET_MS });
        if (report.runs + report.projects + report.retired > 0) log.info({ ...report }, "purged deleted runs and projects");
        return report;
      },
    },
    log,
  );
  return { purge: job.runOnce, stop: job.stop };
}
