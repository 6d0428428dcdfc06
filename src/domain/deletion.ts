import { DomainError, invalidInput } from "./errors.js";
import type { RunStatus } from "./status.js";

/**
 * Deletion and retention (docs/semantics.md, "Deletion"): a deleted run or project is in the trash
 * (its `deleted_at` set, the one column Stepwise's and MLflow's deletes share) until it is purged,
 * `--deleted-retention` after its deletion; then every row and every file byte goes.
 */

/** The most runs one delete or restore names: one transaction of bounded size. */
export const MAX_RUNS_PER_CHANGE = 1000;

/**
 * A create naming the external ID of a deleted run (in the trash) is refused rather than resuming
 * it or making a second run of that ID: restore it, or wait for its purge.
 */
export function checkExternalIdLive<T>(run: T | undefined, externalId: string): asserts run is T {
  if (run === undefined)
    throw new DomainError("CONFLICT", `externalId: the run '${externalId}' is deleted: restore it (POST /api/runs/restore) to resume it`);
}

/** When a run or project deleted at `deletedAt` is purged. */
export function purgeDueAt(deletedAt: number, retentionMs: number): number {
  return deletedAt + retentionMs;
}

/** What a delete or restore reads of each run it names, in the caller's transaction. */
export interface RunForChange {
  id: number;
  deletedAt: number | null;
  forkedFromRunId: number | null;
  /** The fork parent's deletedAt; null when it is live or the run is no fork. */
  parentDeletedAt: number | null;
  projectDeletedAt: number | null;
}

/** A live fork of a run: the child still reads the parent's points up to its fork step. */
export interface LiveFork {
  parentId: number;
  childId: number;
}

function checkCount(runIds: readonly number[]): void {
  if (runIds.length === 0) throw invalidInput("runIds: name at least one run");
  if (runIds.length > MAX_RUNS_PER_CHANGE) throw invalidInput(`runIds: at most ${MAX_RUNS_PER_CHANGE} runs per call`);
}

/**
 * The runs a delete soft-deletes: the named runs that are live (one already in the trash keeps its
 * deletion time, so its purge date does not move: deleting is idempotent). Every named run must be
 * the organization's (else RUN_NOT_FOUND). A fork reads its parent's points up to the fork step
 * without a copy, so a run whose live forks are not deleted in the same call is refused (CONFLICT):
 * its children would lose their inherited points at the purge. Nothing is written on error.
 */
export function planRunDeletion(runIds: readonly number[], found: readonly RunForChange[], liveForks: readonly LiveFork[]): number[] {
  checkCount(runIds);
  const byId = new Map(found.map((run) => [run.id, run]));
  const ids = [...new Set(runIds)];
  for (const id of ids) if (!byId.has(id)) throw new DomainError("RUN_NOT_FOUND", `run '${id}' not found`);
  const deleting = new Set(ids);
  for (const fork of liveForks) {
    if (deleting.has(fork.parentId) && !deleting.has(fork.childId))
      throw new DomainError(
        "CONFLICT",
        `run ${fork.parentId} has a live fork (run ${fork.childId}) that reads its points: delete the fork in the same call, or delete it first`,
      );
  }
  return ids.filter((id) => byId.get(id)!.deletedAt === null);
}

/**
 * The runs a restore brings back: the named runs in the trash (a live one is left as it is: restoring
 * is idempotent). Every named run must be the organization's (else RUN_NOT_FOUND); a restored run's
 * project must be live (restore the project: CONFLICT), and a fork's parent live or restored in the
 * same call (a live fork of a deleted parent is what deletion refuses to make: CONFLICT).
 */
export function planRunRestore(runIds: readonly number[], found: readonly RunForChange[]): number[] {
  checkCount(runIds);
  const byId = new Map(found.map((run) => [run.id, run]));
  const ids = [...new Set(runIds)];
  for (const id of ids) if (!byId.has(id)) throw new DomainError("RUN_NOT_FOUND", `run '${id}' not found`);
  const restoring = new Set(ids.filter((id) => byId.get(id)!.deletedAt !== null));
  for (const id of restoring) {
    const run = byId.get(id)!;
    if (run.projectDeletedAt !== null) throw new DomainError("CONFLICT", `run ${id}: its project is deleted; restore the project`);
    if (run.forkedFromRunId !== null && run.parentDeletedAt !== null && !restoring.has(run.forkedFromRunId))
      throw new DomainError("CONFLICT", `run ${id} is a fork of the deleted run ${run.forkedFromRunId}: restore both in one call`);
  }
  return [...restoring];
}

/**
 * A project's retention policy: its runs finished longer than `maxAgeDays` ago are deleted (then
 * purged after the grace period like any deleted run), except those tagged `excludeTag`.
 */
export interface RetentionPolicy {
  maxAgeDays: number;
  excludeTag: string | null;
}

export const MAX_RETENTION_DAYS = 36_500;

export function checkRetentionPolicy(policy: RetentionPolicy): RetentionPolicy {
  if (!Number.isInteger(policy.maxAgeDays) || policy.maxAgeDays < 1 || policy.maxAgeDays > MAX_RETENTION_DAYS)
    throw invalidInput(`maxAgeDays: a whole number of days from 1 to ${MAX_RETENTION_DAYS}`);
  return policy;
}

/** What a retention decision reads of a live run of the project. */
export interface RetentionCandidate {
  id: number;
  status: RunStatus;
  /** When it finished (its last status change); null while it never changed status. */
  statusUpdated: number | null;
  tags: string[];
}

const DAY_MS = 86_400_000;

/**
 * The runs a policy deletes now: finished (not RUNNING) before `now - maxAgeDays`, without the
 * excluded tag, and not the parent of a live fork the policy keeps (the fork rule of planRunDeletion):
 * such a parent waits until its forks go. IDs ascending.
 */
export function runsToRetire(
  policy: RetentionPolicy,
  candidates: readonly RetentionCandidate[],
  liveForks: readonly LiveFork[],
  now: number,
): number[] {
  const cutoff = now - policy.maxAgeDays * DAY_MS;
  const expired = new Set(
    candidates
      .filter((run) => run.status !== "RUNNING" && run.statusUpdated !== null && run.statusUpdated < cutoff)
      .filter((run) => policy.excludeTag === null || !run.tags.includes(policy.excludeTag))
      .map((run) => run.id),
  );
  // A kept fork keeps its parent, and that parent's parent: repeat until nothing changes.
  let changed = true;
  while (changed) {
    changed = false;
    for (const fork of liveForks) {
      if (expired.has(fork.parentId) && !expired.has(fork.childId)) {
        expired.delete(fork.parentId);
        changed = true;
      }
    }
  }
  return [...expired].sort((a, b) => a - b);
}
