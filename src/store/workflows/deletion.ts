import {
  type LiveFork,
  planRunDeletion,
  planRunRestore,
  type RetentionCandidate,
  runsToRetire,
  type RunForChange,
} from "../../domain/deletion.js";
import type { RetentionPolicy } from "../../domain/deletion.js";
import type { PurgedRun, PurgeTarget } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** What deletion, restore, the purge and retention ask of a backend, each inside the workflow's transaction. */
export interface DeletionOperations {
  /** The organization's runs of these IDs with what a delete or restore decides on, read locked (PostgreSQL's FOR UPDATE). */
  runsForChange(orgId: string, runIds: number[]): RunForChange[];
  /** The live forks of these runs (children whose deleted_at is null). */
  liveForksOf(orgId: string, runIds: number[]): LiveFork[];
  /** Sets deleted_at (null: restores) and updated_at of these runs. */
  setRunsDeletedAt(runIds: number[], deletedAt: number | null, now: number): void;
  /** The run, locked, when it is deleted at or before `cutoff` and no run forks it; undefined otherwise. */
  lockPurgeableRun(runId: number, cutoff: number): PurgeTarget | undefined;
  /** How many points (its own metrics' counts) and file records the run has. */
  countRunContents(runId: number): { points: number; files: number };
  /** Deletes every row that names the run, then the run (the backend lists its tables). */
  deleteRunRows(runId: number): void;
  queueBlobPurge(target: PurgeTarget, now: number): void;
  /** Whether the project, locked, is deleted at or before `cutoff` and holds no run. */
  lockPurgeableProject(projectId: number, cutoff: number): boolean;
  /** Deletes every row that names the project, then the project. */
  deleteProjectRows(projectId: number): void;
  /** The live project's policy. */
  retentionPolicyOf(orgId: string, projectId: number): RetentionPolicy | undefined;
  /** The project's live runs with what a retention policy reads, and the live forks among them. */
  retentionCandidates(orgId: string, projectId: number): { candidates: RetentionCandidate[]; liveForks: LiveFork[] };
}

const perform = performer<DeletionOperations>();
type DeletionWorkflow<T> = Workflow<T, DeletionOperations>;

/** Store.deleteRuns: the runs are read locked, so a fork created meanwhile is seen or waits. */
export function* deleteRuns(orgId: string, runIds: number[], now: number): DeletionWorkflow<number[]> {
  const ids = [...new Set(runIds)];
  const found = yield* perform("runsForChange", orgId, ids);
  const forks = yield* perform("liveForksOf", orgId, ids);
  const deleting = planRunDeletion(runIds, found, forks);
  if (deleting.length > 0) yield* perform("setRunsDeletedAt", deleting, now, now);
  return ids;
}

/** Store.restoreRuns. */
export function* restoreRuns(orgId: string, runIds: number[], now: number): DeletionWorkflow<number[]> {
  const ids = [...new Set(runIds)];
  const found = yield* perform("runsForChange", orgId, ids);
  const restoring = planRunRestore(runIds, found);
  if (restoring.length > 0) yield* perform("setRunsDeletedAt", restoring, null, now);
  return ids;
}

/**
 * Store.purgeRun: rows first, file bytes after (services/purge.ts), through the queue written here in
 * the same transaction: a crash after the commit leaves a queued run whose bytes the next purge
 * removes; a crash before it leaves the run whole, still in the trash.
 */
export function* purgeRun(runId: number, cutoff: number, now: number): DeletionWorkflow<PurgedRun | undefined> {
  const target = yield* perform("lockPurgeableRun", runId, cutoff);
  if (!target) return undefined;
  const contents = yield* perform("countRunContents", runId);
  yield* perform("queueBlobPurge", target, now);
  yield* perform("deleteRunRows", runId);
  return { ...target, ...contents };
}

/** Store.purgeProject. */
export function* purgeProject(projectId: number, cutoff: number): DeletionWorkflow<boolean> {
  if (!(yield* perform("lockPurgeableProject", projectId, cutoff))) return false;
  yield* perform("deleteProjectRows", projectId);
  return true;
}

/** Store.retireRuns. */
export function* retireRuns(orgId: string, projectId: number, now: number, apply: boolean): DeletionWorkflow<number[]> {
  const policy = yield* perform("retentionPolicyOf", orgId, projectId);
  if (!policy) return [];
  const { candidates, liveForks } = yield* perform("retentionCandidates", orgId, projectId);
  const retiring = runsToRetire(policy, candidates, liveForks, now);
  if (apply && retiring.length > 0) yield* perform("setRunsDeletedAt", retiring, now, now);
  return retiring;
}
