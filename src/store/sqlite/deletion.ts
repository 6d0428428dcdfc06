import type { RetentionPolicy } from "../../domain/deletion.js";
import {
  DELETED_PROJECT_SELECT,
  DELETED_RUN_SELECT,
  type DeletedProjectRow,
  type DeletedRunRow,
  type LiveForkRow,
  type PurgeTargetRow,
  type RetentionCandidateRow,
  type RetentionPolicyRow,
  projectRowDeletes,
  RUN_FOR_CHANGE_SELECT,
  runRowDeletes,
  type RunForChangeRow,
  toDeletedProject,
  toDeletedRun,
  toLiveFork,
  toPurgeTarget,
  toRetentionCandidate,
  toRetentionPolicy,
  toRunForChange,
} from "../deletion-rows.js";
import type { DeletedProject, DeletedRun, PurgeTarget, StoredRetentionPolicy } from "../store.js";
import type { DeletionOperations } from "../workflows/deletion.js";
import type { Statements } from "./statements.js";

/** Deletion, the trash, the purge and retention (DeletionStore) in SQLite's SQL. */

export function listDeletedRuns(
  s: Statements,
  orgId: string,
  projectId: number | undefined,
  page: { limit: number; offset: number },
): { runs: DeletedRun[]; total: number } {
  const where = "WHERE r.org_id = ? AND r.deleted_at IS NOT NULL AND (? IS NULL OR r.project_id = ?)";
  const params = [orgId, projectId ?? null, projectId ?? null];
  const rows = s
    .get(`${DELETED_RUN_SELECT} ${where} ORDER BY r.deleted_at DESC, r.id DESC LIMIT ? OFFSET ?`)
    .all(...params, page.limit, page.offset);
  const total = (s.get(`SELECT count(*) AS n FROM runs r ${where}`).get(...params) as { n: number }).n;
  return { runs: (rows as DeletedRunRow[]).map(toDeletedRun), total };
}

export function listDeletedProjects(s: Statements, orgId: string): DeletedProject[] {
  const rows = s
    .get(`${DELETED_PROJECT_SELECT} WHERE p.org_id = ? AND p.deleted_at IS NOT NULL ORDER BY p.deleted_at DESC, p.id DESC`)
    .all(orgId);
  return (rows as DeletedProjectRow[]).map(toDeletedProject);
}

export function listPurgeableRuns(s: Statements, cutoff: number, limit: number): PurgeTarget[] {
  const rows = s
    .get(
      `SELECT r.id AS run_id, r.org_id, r.project_id FROM runs r
       WHERE r.deleted_at IS NOT NULL AND r.deleted_at <= ? AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.forked_from_run_id = r.id)
       ORDER BY r.id DESC LIMIT ?`,
    )
    .all(cutoff, limit);
  return (rows as PurgeTargetRow[]).map(toPurgeTarget);
}

export function listBlobPurges(s: Statements, limit: number): PurgeTarget[] {
  return (
    s.get("SELECT run_id, org_id, project_id FROM blob_purges ORDER BY queued_at, run_id LIMIT ?").all(limit) as PurgeTargetRow[]
  ).map(toPurgeTarget);
}

export function deleteBlobPurge(s: Statements, runId: number): void {
  s.get("DELETE FROM blob_purges WHERE run_id = ?").run(runId);
}

export function listPurgeableProjects(s: Statements, cutoff: number, limit: number): { projectId: number; orgId: string }[] {
  const rows = s
    .get(
      `SELECT p.id, p.org_id FROM projects p
       WHERE p.deleted_at IS NOT NULL AND p.deleted_at <= ? AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.project_id = p.id)
       ORDER BY p.id LIMIT ?`,
    )
    .all(cutoff, limit) as { id: number; org_id: string }[];
  return rows.map((row) => ({ projectId: row.id, orgId: row.org_id }));
}

export function getRetentionPolicy(s: Statements, orgId: string, projectId: number): StoredRetentionPolicy | undefined {
  const row = s
    .get(
      `SELECT rp.max_age_days, rp.exclude_tag, rp.updated_at FROM retention_policies rp JOIN projects p ON p.id = rp.project_id
       WHERE rp.org_id = ? AND rp.project_id = ? AND p.deleted_at IS NULL`,
    )
    .get(orgId, projectId) as RetentionPolicyRow | undefined;
  return row && toRetentionPolicy(row);
}

export function setRetentionPolicy(s: Statements, orgId: string, projectId: number, policy: RetentionPolicy | null, now: number): boolean {
  if (!s.get("SELECT 1 FROM projects WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, projectId)) return false;
  if (policy === null) s.get("DELETE FROM retention_policies WHERE project_id = ?").run(projectId);
  else
    s.get(
      `INSERT INTO retention_policies (project_id, org_id, max_age_days, exclude_tag, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET max_age_days = excluded.max_age_days, exclude_tag = excluded.exclude_tag, updated_at = excluded.updated_at`,
    ).run(projectId, orgId, policy.maxAgeDays, policy.excludeTag, now);
  return true;
}

export function listRetentionPolicies(s: Statements): (StoredRetentionPolicy & { orgId: string; projectId: number })[] {
  const rows = s
    .get(
      `SELECT rp.project_id, rp.org_id, rp.max_age_days, rp.exclude_tag, rp.updated_at FROM retention_policies rp
       JOIN projects p ON p.id = rp.project_id WHERE p.deleted_at IS NULL ORDER BY rp.project_id`,
    )
    .all() as (RetentionPolicyRow & { project_id: number; org_id: string })[];
  return rows.map((row) => ({ ...toRetentionPolicy(row), orgId: row.org_id, projectId: row.project_id }));
}

/** A run's rows: its chunks' points (a table of SQLite's own), then what every backend holds (deletion-rows.ts). */
const RUN_ROW_DELETES = [
  "DELETE FROM metric_chunk_points WHERE chunk_id IN (SELECT c.id FROM metric_chunks c JOIN metrics m ON m.id = c.metric_id WHERE m.run_id = ?)",
  ...runRowDeletes("?"),
];
const PROJECT_ROW_DELETES = projectRowDeletes("?");

/** The operations of workflows/deletion.ts; SQLite's write transaction holds the whole database, so reads need no lock. */
export function sqliteDeletionOperations(s: Statements): DeletionOperations {
  return {
    runsForChange: (orgId, runIds) =>
      (
        s
          .get(`${RUN_FOR_CHANGE_SELECT} WHERE r.org_id = ? AND r.id IN (SELECT value FROM json_each(?))`)
          .all(orgId, JSON.stringify(runIds)) as RunForChangeRow[]
      ).map(toRunForChange),
    liveForksOf: (orgId, runIds) =>
      (
        s
          .get(
            `SELECT forked_from_run_id AS parent_id, id AS child_id FROM runs
             WHERE org_id = ? AND forked_from_run_id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL`,
          )
          .all(orgId, JSON.stringify(runIds)) as LiveForkRow[]
      ).map(toLiveFork),
    setRunsDeletedAt: (runIds, deletedAt, now) => {
      s.get("UPDATE runs SET deleted_at = ?, updated_at = ? WHERE id IN (SELECT value FROM json_each(?))").run(
        deletedAt,
        now,
        JSON.stringify(runIds),
      );
    },
    lockPurgeableRun: (runId, cutoff) => {
      const row = s
        .get(
          `SELECT r.id AS run_id, r.org_id, r.project_id FROM runs r
           WHERE r.id = ? AND r.deleted_at IS NOT NULL AND r.deleted_at <= ? AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.forked_from_run_id = r.id)`,
        )
        .get(runId, cutoff) as PurgeTargetRow | undefined;
      return row && toPurgeTarget(row);
    },
    countRunContents: (runId) => {
      const points = (
        s
          .get("SELECT coalesce(sum(c.point_count), 0) AS n FROM metric_chunks c JOIN metrics m ON m.id = c.metric_id WHERE m.run_id = ?")
          .get(runId) as {
          n: number;
        }
      ).n;
      const files = (s.get("SELECT count(*) AS n FROM files WHERE run_id = ?").get(runId) as { n: number }).n;
      return { points, files };
    },
    deleteRunRows: (runId) => {
      for (const statement of RUN_ROW_DELETES) s.get(statement).run(runId);
    },
    queueBlobPurge: (target, now) => {
      s.get("INSERT INTO blob_purges (run_id, org_id, project_id, queued_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
        target.runId,
        target.orgId,
        target.projectId,
        now,
      );
    },
    lockPurgeableProject: (projectId, cutoff) =>
      s
        .get(
          `SELECT 1 FROM projects p WHERE p.id = ? AND p.deleted_at IS NOT NULL AND p.deleted_at <= ?
           AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.project_id = p.id)`,
        )
        .get(projectId, cutoff) !== undefined,
    deleteProjectRows: (projectId) => {
      for (const statement of PROJECT_ROW_DELETES) s.get(statement).run(projectId);
    },
    retentionPolicyOf: (orgId, projectId) => getRetentionPolicy(s, orgId, projectId),
    retentionCandidates: (orgId, projectId) => {
      const candidates = (
        s
          .get("SELECT id, status, status_updated, tags FROM runs WHERE org_id = ? AND project_id = ? AND deleted_at IS NULL")
          .all(orgId, projectId) as RetentionCandidateRow[]
      ).map(toRetentionCandidate);
      const liveForks = (
        s
          .get(
            `SELECT forked_from_run_id AS parent_id, id AS child_id FROM runs
             WHERE org_id = ? AND project_id = ? AND forked_from_run_id IS NOT NULL AND deleted_at IS NULL`,
          )
          .all(orgId, projectId) as LiveForkRow[]
      ).map(toLiveFork);
      return { candidates, liveForks };
    },
  };
}
