import { CANDIDATE_COLUMNS, RUN_ORDER_COLUMNS, RUN_READ, runsInOrder, toCandidate } from "../rows.js";
import type { CandidateRow, RecordRead } from "../rows.js";
import type { Run, RunCandidate, RunListQuery, RunNarrowing } from "../store.js";
import { readAll, type Statements } from "./statements.js";

/**
 * The WHERE clause of the name search, tags (any of) and statuses, with its parameters. Lists travel
 * as one JSON parameter read with json_each, so the SQL text never depends on how many values a
 * request sends: the run list prepares a fixed set of statements (see "Prepared statements" in
 * docs/decisions.md).
 */
function narrowingClause(orgId: string, projectId: number, narrowing: RunNarrowing): { sql: string; params: (string | number)[] } {
  // Deleted runs (in the trash) leave every list at once (docs/semantics.md, "Deletion").
  const where = ["r.org_id = ?", "r.project_id = ?", "r.deleted_at IS NULL"];
  const params: (string | number)[] = [orgId, projectId];
  if (narrowing.search) {
    // instr, not LIKE: a search for "50%" or "a_b" means those characters.
    where.push("instr(lower(r.name), lower(?)) > 0");
    params.push(narrowing.search);
  }
  if (narrowing.tags?.length) {
    where.push("EXISTS (SELECT 1 FROM json_each(r.tags) t WHERE t.value IN (SELECT value FROM json_each(?)))");
    params.push(JSON.stringify(narrowing.tags));
  }
  if (narrowing.statuses?.length) {
    where.push("r.status IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(narrowing.statuses));
  }
  return { sql: where.join(" AND "), params };
}

/** One page of the matching runs in column order (ties by ID in the same direction), and how many match. */
export function listRuns(s: Statements, orgId: string, projectId: number, query: RunListQuery): { runs: Run[]; total: number } {
  const where = narrowingClause(orgId, projectId, query);
  const direction = query.order.descending ? "DESC" : "ASC";
  const runs = readAll(
    s,
    RUN_READ,
    `WHERE ${where.sql} ORDER BY ${RUN_ORDER_COLUMNS[query.order.field]} ${direction}, r.id ${direction} LIMIT ? OFFSET ?`,
    ...where.params,
    query.page.limit,
    query.page.offset,
  );
  const total = (s.get(`SELECT count(*) AS n FROM runs r WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  return { runs, total };
}

/**
 * Every matching run, newest first, with only what filters and sorts read. Rows come as arrays:
 * for thousands of runs, building row objects would cost more than the query.
 */
export function listRunCandidates(s: Statements, orgId: string, projectId: number, narrowing: RunNarrowing): RunCandidate[] {
  const where = narrowingClause(orgId, projectId, narrowing);
  const rows = s
    .get(
      `SELECT ${CANDIDATE_COLUMNS}
       FROM runs r WHERE ${where.sql} ORDER BY r.created_at DESC, r.id DESC`,
    )
    .raw(true)
    .all(...where.params) as CandidateRow[];
  return rows.map(toCandidate);
}

/** Runs of the organization by ID, in the order asked; unknown IDs are left out. */
export function getRuns(s: Statements, orgId: string, runIds: number[]): Run[] {
  return runsByIds(s, RUN_READ, orgId, runIds, true);
}

/** getRuns as `read` maps the runs (the core record, live only; or MLflow's, deleted ones too: mlflow.ts). */
export function runsByIds<R, T extends { id: number }>(
  s: Statements,
  read: RecordRead<R, T>,
  orgId: string,
  runIds: number[],
  liveOnly: boolean,
): T[] {
  const where = `WHERE r.org_id = ? AND r.id IN (SELECT value FROM json_each(?))${liveOnly ? " AND r.deleted_at IS NULL" : ""}`;
  return runsInOrder(runIds, readAll(s, read, where, orgId, JSON.stringify(runIds)));
}
