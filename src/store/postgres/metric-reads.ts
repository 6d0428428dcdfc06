import { MAX_LINEAGE_DEPTH, type LineageLink, type StoredMetricRef } from "../../domain/lineage.js";
import { METRIC_COLUMNS, METRIC_COLUMNS_OF_M, type MetricRow } from "../rows.js";
import type { Async } from "../workflow.js";
import type { MetricReadOperations, RunFork, RunMetricRow } from "../workflows/metric-reads.js";
import { arrays, rows, type Sql } from "./db.js";
import { readSegments, sampleSegments, summarizePiece } from "./metric-series.js";

export async function countMetricsOfRuns(sql: Sql, orgId: string, runIds: number[]): Promise<Map<number, number>> {
  const found = await arrays<[number, number]>(
    sql,
    `SELECT m.run_id, count(*)::int FROM metrics m JOIN runs r ON r.id = m.run_id
     WHERE r.org_id = $1 AND r.id = ANY($2::bigint[]) GROUP BY m.run_id`,
    [orgId, runIds],
  );
  return new Map(found);
}

/** The run, then its parent, grandparent, ... (all in one organization by construction): `chain`, with columns of its own. */
const LINEAGE = `WITH RECURSIVE chain AS (
       SELECT id, forked_from_run_id, fork_step, 1 AS depth FROM runs WHERE org_id = $1 AND id = $2
       UNION ALL
       SELECT r.id, r.forked_from_run_id, r.fork_step, c.depth + 1 FROM runs r JOIN chain c ON r.id = c.forked_from_run_id
       WHERE r.org_id = $1 AND c.depth < $3)`;

type LinkRow = LineageLink & { metricId: number | null; firstStep: number | null };

/**
 * The operations of store/workflows/metric-reads.ts in PostgreSQL's SQL, one query each: a run with
 * its own metrics, and a lineage with its metrics of one name (recursive), are each one round trip.
 */
export function metricReadOperations(sql: Sql): Async<MetricReadOperations> {
  return {
    runMetricRows: async (orgId, runId, filter) => {
      const found = await rows<Partial<MetricRow> & { forked: number | null }>(
        sql,
        `SELECT r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
         FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND ($3::text IS NULL OR m.log_name = $3) AND ($4::text IS NULL OR m.log_group = $4)
         WHERE r.org_id = $1 AND r.id = $2 ORDER BY m.log_name`,
        [orgId, runId, filter.logName ?? null, filter.logGroup ?? null],
      );
      if (found.length === 0) return undefined;
      return { forked: found[0]!.forked, own: found.filter((row): row is MetricRow & { forked: number | null } => row.id !== null) };
    },
    lineage: (orgId, runId) =>
      rows<LineageLink>(
        sql,
        `${LINEAGE} SELECT id, forked_from_run_id AS "forkedFromRunId", fork_step AS "forkStep" FROM chain ORDER BY depth`,
        [orgId, runId, MAX_LINEAGE_DEPTH],
      ),
    lineageMetrics: async (orgId, runId, logName) =>
      (
        await rows<LinkRow>(
          sql,
          `${LINEAGE}
           SELECT c.id, c.forked_from_run_id AS "forkedFromRunId", c.fork_step AS "forkStep", m.id AS "metricId", m.first_step AS "firstStep"
           FROM chain c LEFT JOIN metrics m ON m.run_id = c.id AND m.log_name = $4 ORDER BY c.depth`,
          [orgId, runId, MAX_LINEAGE_DEPTH, logName],
        )
      ).map(({ metricId, firstStep, ...link }) => ({ ...link, metric: metricId === null ? undefined : { id: metricId, firstStep } })),
    storedMetrics: (runIds, logName) =>
      rows<StoredMetricRef & { runId: number }>(
        sql,
        `SELECT run_id AS "runId", id, first_step AS "firstStep" FROM metrics WHERE run_id = ANY($1::bigint[]) AND log_name = $2`,
        [runIds, logName],
      ),
    // Unfiltered (the names of runs), the index on run and name covers the query.
    metricNamesOfRuns: async (runIds, { logName, logGroup }) => {
      const filtered = logName !== undefined || logGroup !== undefined;
      const names = await rows<{ log_name: string }>(
        sql,
        `SELECT DISTINCT log_name FROM metrics WHERE run_id = ANY($1::bigint[])
         ${filtered ? "AND ($2::text IS NULL OR log_name = $2) AND ($3::text IS NULL OR log_group = $3)" : ""}`,
        filtered ? [runIds, logName ?? null, logGroup ?? null] : [runIds],
      );
      return names.map((row) => row.log_name);
    },
    runForks: (orgId, runIds, projectId) =>
      rows<RunFork>(
        sql,
        `SELECT id, forked_from_run_id AS forked FROM runs
         WHERE org_id = $1 AND id = ANY($2::bigint[]) ${projectId === undefined ? "" : "AND project_id = $3"}`,
        projectId === undefined ? [orgId, runIds] : [orgId, runIds, projectId],
      ),
    metricRowsOfRuns: (runIds) =>
      rows<MetricRow>(sql, `SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = ANY($1::bigint[]) ORDER BY run_id, log_name`, [runIds]),
    // ILIKE: SQLite's LIKE ignores ASCII case, and the search means its characters literally.
    projectMetricNames: async (orgId, projectId, pattern, limit) =>
      (
        await rows<{ log_name: string }>(
          sql,
          `SELECT n.log_name FROM project_metric_names n JOIN projects p ON p.id = n.project_id
           WHERE p.org_id = $1 AND n.project_id = $2 AND ($3::text IS NULL OR n.log_name ILIKE $3 ESCAPE '\\') ORDER BY n.log_name LIMIT $4`,
          [orgId, projectId, pattern, limit],
        )
      ).map((row) => row.log_name),
    runMetricRowsOfProject: (orgId, projectId, logName, runIds) =>
      arrays<RunMetricRow>(
        sql,
        `SELECT r.id AS run, r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
         FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = $1
         WHERE r.org_id = $2 AND r.project_id = $3 AND r.deleted_at IS NULL AND ($4::bigint[] IS NULL OR r.id = ANY($4::bigint[]))
           AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)
         ORDER BY r.id`,
        [logName, orgId, projectId, runIds ?? null],
      ),
    runLastValues: (orgId, projectId, logName) =>
      arrays<[number, number | null, number | null]>(
        sql,
        `SELECT r.id, r.forked_from_run_id, m.last_value
         FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = $1
         WHERE r.org_id = $2 AND r.project_id = $3 AND r.deleted_at IS NULL AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
        [logName, orgId, projectId],
      ),
    summarizePiece: (metricId, from, to) => summarizePiece(sql, metricId, from, to),
    readSegments: (segments, from, to, limit, skip) => readSegments(sql, segments, from, to, limit, skip),
    sampleSegments: (segments, from, to, limit) => sampleSegments(sql, segments, from, to, limit),
  };
}
