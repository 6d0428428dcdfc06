import { CANDIDATE_COLUMNS, RUN_ORDER_COLUMNS, RUN_READ, runsInOrder, toCandidate } from "../rows.js";
import type { CandidateRow, RecordRead } from "../rows.js";
import type { Run, RunCandidate, RunListQuery, RunNarrowing } from "../store.js";
import { arrays, readAll, row, type Sql } from "./db.js";

/**
 * The WHERE clause of the name search, tags (any of) and statuses, with its parameters. Lists travel
 * as one array parameter, so the SQL text never depends on how many values a request sends.
 */
function narrowingClause(orgId: string, projectId: number, narrowing: RunNarrowing): { sql: string; params: unknown[] } {
  // Deleted runs (in the trash) leave every list at once (docs/semantics.md, "Deletion").
  const where = ["r.org_id = $1", "r.project_id = $2", "r.deleted_at IS NULL"];
  const params: unknown[] = [orgId, projectId];
  if (narrowing.search) {
    // strpos, not LIKE: a search for "50%" or "a_b" means those characters.
    params.push(narrowing.search);
    where.push(`strpos(lower(r.name), lower($${params.length})) > 0`);
  }
  if (narrowing.tags?.length) {
    params.push(narrowing.tags);
    // A row whose tags jsonb cannot hold matches no tag instead of failing the list (migration 0006).
    where.push(
      `(CASE WHEN strpos(r.tags, '\\u') = 0 THEN r.tags::jsonb ELSE stepwise_tags_jsonb(r.tags) END) ?| $${params.length}::text[]`,
    );
  }
  if (narrowing.statuses?.length) {
    params.push(narrowing.statuses);
    where.push(`r.status = ANY($${params.length}::text[])`);
  }
  return { sql: where.join(" AND "), params };
}

/** One page of the matching runs in column order (ties by ID in the same direction), and how many match. */
export async function listRuns(sql: Sql, orgId: string, projectId: number, query: RunListQuery): Promise<{ runs: Run[]; total: number }> {
  const where = narrowingClause(orgId, projectId, query);
  const direction = query.order.descending ? "DESC" : "ASC";
  const n = where.params.length;
  const runs = await readAll(
    sql,
    RUN_READ,
    `WHERE ${where.sql} ORDER BY ${RUN_ORDER_COLUMNS[query.order.field]} ${direction}, r.id ${direction} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...where.params, query.page.limit, query.page.offset],
  );
  const total = (await row<{ n: number }>(sql, `SELECT count(*) AS n FROM runs r WHERE ${where.sql}`, where.params))!.n;
  return { runs, total };
}

/** Every matching run, newest first, with only what filters and sorts read (rows as arrays). */
export async function listRunCandidates(sql: Sql, orgId: string, projectId: number, narrowing: RunNarrowing): Promise<RunCandidate[]> {
  const where = narrowingClause(orgId, projectId, narrowing);
  const found = await arrays<CandidateRow>(
    sql,
    `SELECT ${CANDIDATE_COLUMNS}
     FROM runs r WHERE ${where.sql} ORDER BY r.created_at DESC, r.id DESC`,
    where.params,
  );
  return found.map(toCandidate);
}

/** Runs of the organization by ID, in the order asked; unknown IDs are left out. */
export async function getRuns(sql: Sql, orgId: string, runIds: number[]): Promise<Run[]> {
  return runsByIds(sql, RUN_READ, orgId, runIds, true);
}

/** getRuns as `read` maps the runs (the core record, live only; or MLflow's, deleted ones too: mlflow.ts). */
export async function runsByIds<R, T extends { id: number }>(
  sql: Sql,
  read: RecordRead<R, T>,
  orgId: string,
  runIds: number[],
  liveOnly: boolean,
): Promise<T[]> {
  const where = `WHERE r.org_id = $1 AND r.id = ANY($2::bigint[])${liveOnly ? " AND r.deleted_at IS NULL" : ""}`;
  return runsInOrder(runIds, await readAll(sql, read, where, [orgId, runIds]));
}
