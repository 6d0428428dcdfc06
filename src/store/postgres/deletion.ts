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
import type { Async } from "../workflow.js";
import type { DeletionOperations } from "../workflows/deletion.js";
import { row, rows, run, type Sql } from "./db.js";

/** Deletion, the trash, the purge and retention (DeletionStore) in PostgreSQL's SQL. */

export async function listDeletedRuns(
  sql: Sql,
  orgId: string,
  projectId: number | undefined,
  page: { limit: number; offset: number },
): Promise<{ runs: DeletedRun[]; total: number }> {
  const where = "WHERE r.org_id = $1 AND r.deleted_at IS NOT NULL AND ($2::bigint IS NULL OR r.project_id = $2)";
  const params = [orgId, projectId ?? null];
  const found = await rows<DeletedRunRow>(sql, `${DELETED_RUN_SELECT} ${where} ORDER BY r.deleted_at DESC, r.id DESC LIMIT $3 OFFSET $4`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  const total = (await row<{ n: number }>(sql, `SELECT count(*) AS n FROM runs r ${where}`, params))!.n;
  return { runs: found.map(toDeletedRun), total };
}

export async function listDeletedProjects(sql: Sql, orgId: string): Promise<DeletedProject[]> {
  const found = await rows<DeletedProjectRow>(
    sql,
    `${DELETED_PROJECT_SELECT} WHERE p.org_id = $1 AND p.deleted_at IS NOT NULL ORDER BY p.deleted_at DESC, p.id DESC`,
    [orgId],
  );
  return found.map(toDeletedProject);
}

export async function listPurgeableRuns(sql: Sql, cutoff: number, limit: number): Promise<PurgeTarget[]> {
  const found = await rows<PurgeTargetRow>(
    sql,
    `SELECT r.id AS run_id, r.org_id, r.project_id FROM runs r
     WHERE r.deleted_at IS NOT NULL AND r.deleted_at <= $1 AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.forked_from_run_id = r.id)
     ORDER BY r.id DESC LIMIT $2`,
    [cutoff, limit],
  );
  return found.map(toPurgeTarget);
}

export async function listBlobPurges(sql: Sql, limit: number): Promise<PurgeTarget[]> {
  return (
    await rows<PurgeTargetRow>(sql, "SELECT run_id, org_id, project_id FROM blob_purges ORDER BY queued_at, run_id LIMIT $1", [limit])
  ).map(toPurgeTarget);
}

export async function deleteBlobPurge(sql: Sql, runId: number): Promise<void> {
  await run(sql, "DELETE FROM blob_purges WHERE run_id = $1", [runId]);
}

export async function listPurgeableProjects(sql: Sql, cutoff: number, limit: number): Promise<{ projectId: number; orgId: string }[]> {
  const found = await rows<{ id: number; org_id: string }>(
    sql,
    `SELECT p.id, p.org_id FROM projects p
     WHERE p.deleted_at IS NOT NULL AND p.deleted_at <= $1 AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.project_id = p.id)
     ORDER BY p.id LIMIT $2`,
    [cutoff, limit],
  );
  return found.map((project) => ({ projectId: project.id, orgId: project.org_id }));
}

export async function getRetentionPolicy(sql: Sql, orgId: string, projectId: number): Promise<StoredRetentionPolicy | undefined> {
  const found = await row<RetentionPolicyRow>(
    sql,
    `SELECT rp.max_age_days, rp.exclude_tag, rp.updated_at FROM retention_policies rp JOIN projects p ON p.id = rp.project_id
     WHERE rp.org_id = $1 AND rp.project_id = $2 AND p.deleted_at IS NULL`,
    [orgId, projectId],
  );
  return found && toRetentionPolicy(found);
}

export async function setRetentionPolicy(
  sql: Sql,
  orgId: string,
  projectId: number,
  policy: RetentionPolicy | null,
  now: number,
): Promise<boolean> {
  if (policy === null) {
    await run(
      sql,
      `DELETE FROM retention_policies rp USING projects p
       WHERE rp.project_id = $2 AND p.id = rp.project_id AND p.org_id = $1 AND p.deleted_at IS NULL`,
      [orgId, projectId],
    );
    return (
      (await row(sql, "SELECT 1 FROM projects WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL", [orgId, projectId])) !== undefined
    );
  }
  // Selected from the organization's live project: another organization's project inserts nothing.
  const written = await run(
    sql,
    `INSERT INTO retention_policies (project_id, org_id, max_age_days, exclude_tag, updated_at)
     SELECT p.id, p.org_id, $3, $4, $5 FROM projects p WHERE p.org_id = $1 AND p.id = $2 AND p.deleted_at IS NULL
     ON CONFLICT (project_id) DO UPDATE SET max_age_days = excluded.max_age_days, exclude_tag = excluded.exclude_tag, updated_at = excluded.updated_at`,
    [orgId, projectId, policy.maxAgeDays, policy.excludeTag, now],
  );
  return written === 1;
}

export async function listRetentionPolicies(sql: Sql): Promise<(StoredRetentionPolicy & { orgId: string; projectId: number })[]> {
  const found = await rows<RetentionPolicyRow & { project_id: number; org_id: string }>(
    sql,
    `SELECT rp.project_id, rp.org_id, rp.max_age_days, rp.exclude_tag, rp.updated_at FROM retention_policies rp
     JOIN projects p ON p.id = rp.project_id WHERE p.deleted_at IS NULL ORDER BY rp.project_id`,
  );
  return found.map((policy) => ({ ...toRetentionPolicy(policy), orgId: policy.org_id, projectId: policy.project_id }));
}

const RUN_ROW_DELETES = runRowDeletes("$1");
const PROJECT_ROW_DELETES = projectRowDeletes("$1");

/** The operations of workflows/deletion.ts; "locked" reads take the rows FOR UPDATE. */
export function postgresDeletionOperations(sql: Sql): Async<DeletionOperations> {
  return {
    runsForChange: async (orgId, runIds) =>
      (
        await rows<RunForChangeRow>(
          sql,
          `${RUN_FOR_CHANGE_SELECT} WHERE r.org_id = $1 AND r.id = ANY($2::bigint[]) ORDER BY r.id FOR UPDATE OF r`,
          [orgId, runIds],
        )
      ).map(toRunForChange),
    liveForksOf: async (orgId, runIds) =>
      (
        await rows<LiveForkRow>(
          sql,
          `SELECT forked_from_run_id AS parent_id, id AS child_id FROM runs
           WHERE org_id = $1 AND forked_from_run_id = ANY($2::bigint[]) AND deleted_at IS NULL`,
          [orgId, runIds],
        )
      ).map(toLiveFork),
    setRunsDeletedAt: async (runIds, deletedAt, now) => {
      await run(sql, "UPDATE runs SET deleted_at = $1, updated_at = $2 WHERE id = ANY($3::bigint[])", [deletedAt, now, runIds]);
    },
    lockPurgeableRun: async (runId, cutoff) => {
      const found = await row<PurgeTargetRow>(
        sql,
        `SELECT r.id AS run_id, r.org_id, r.project_id FROM runs r
         WHERE r.id = $1 AND r.deleted_at IS NOT NULL AND r.deleted_at <= $2 AND NOT EXISTS (SELECT 1 FROM runs c WHERE c.forked_from_run_id = r.id)
         FOR UPDATE OF r`,
        [runId, cutoff],
      );
      return found && toPurgeTarget(found);
    },
    countRunContents: async (runId) => {
      const points = (await row<{ n: number }>(
        sql,
        "SELECT coalesce(sum(c.point_count), 0) AS n FROM metric_chunks c JOIN metrics m ON m.id = c.metric_id WHERE m.run_id = $1",
        [runId],
      ))!.n;
      const files = (await row<{ n: number }>(sql, "SELECT count(*) AS n FROM files WHERE run_id = $1", [runId]))!.n;
      return { points, files };
    },
    deleteRunRows: async (runId) => {
      for (const statement of RUN_ROW_DELETES) await run(sql, statement, [runId]);
    },
    queueBlobPurge: async (target, now) => {
      await run(sql, "INSERT INTO blob_purges (run_id, org_id, project_id, queued_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
        target.runId,
        target.orgId,
        target.projectId,
        now,
      ]);
    },
    lockPurgeableProject: async (projectId, cutoff) =>
      (await row(
        sql,
        `SELECT 1 FROM projects p WHERE p.id = $1 AND p.deleted_at IS NOT NULL AND p.deleted_at <= $2
         AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.project_id = p.id) FOR UPDATE OF p`,
        [projectId, cutoff],
      )) !== undefined,
    deleteProjectRows: async (projectId) => {
      for (const statement of PROJECT_ROW_DELETES) await run(sql, statement, [projectId]);
    },
    retentionPolicyOf: (orgId, projectId) => getRetentionPolicy(sql, orgId, projectId),
    retentionCandidates: async (orgId, projectId) => {
      const candidates = (
        await rows<RetentionCandidateRow>(
          sql,
          "SELECT id, status, status_updated, tags FROM runs WHERE org_id = $1 AND project_id = $2 AND deleted_at IS NULL",
          [orgId, projectId],
        )
      ).map(toRetentionCandidate);
      const liveForks = (
        await rows<LiveForkRow>(
          sql,
          `SELECT forked_from_run_id AS parent_id, id AS child_id FROM runs
           WHERE org_id = $1 AND project_id = $2 AND forked_from_run_id IS NOT NULL AND deleted_at IS NULL`,
          [orgId, projectId],
        )
      ).map(toLiveFork);
      return { candidates, liveForks };
    },
  };
}
