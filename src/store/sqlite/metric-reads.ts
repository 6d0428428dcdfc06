import { MAX_LINEAGE_DEPTH, type LineageLink, type StoredMetricRef } from "../../domain/lineage.js";
import { samplePoints } from "../../domain/sampling.js";
import { METRIC_COLUMNS, METRIC_COLUMNS_OF_M, type MetricRow } from "../rows.js";
import type { MetricReadOperations, RunFork, RunMetricRow } from "../workflows/metric-reads.js";
import type { Statements } from "./statements.js";
import { readSegments, storedSeries, summarizePiece } from "./metric-series.js";

export function countMetricsOfRuns(s: Statements, orgId: string, runIds: number[]): Map<number, number> {
  const rows = s
    .get(
      `SELECT m.run_id, count(*) FROM metrics m JOIN runs r ON r.id = m.run_id
       WHERE r.org_id = ? AND r.id IN (SELECT value FROM json_each(?)) GROUP BY m.run_id`,
    )
    .raw(true)
    .all(orgId, JSON.stringify(runIds)) as [number, number][];
  return new Map(rows);
}

/** The run, then its parent, grandparent, ...: a cheap statement per run. */
function lineage(s: Statements, orgId: string, runId: number): LineageLink[] {
  const chain: LineageLink[] = [];
  const link = s.get("SELECT id, forked_from_run_id AS forkedFromRunId, fork_step AS forkStep FROM runs WHERE org_id = ? AND id = ?");
  for (let next: number | null = runId; next !== null && chain.length < MAX_LINEAGE_DEPTH; ) {
    const found = link.get(orgId, next) as LineageLink | undefined;
    if (!found) break;
    chain.push(found);
    next = found.forkedFromRunId;
  }
  return chain;
}

/** Each run's metric of one name, a statement per run (by the index on run and name). */
function storedMetrics(s: Statements, runIds: number[], logName: string): (StoredMetricRef & { runId: number })[] {
  const metric = s.get("SELECT id, first_step AS firstStep FROM metrics WHERE run_id = ? AND log_name = ?");
  return runIds.flatMap((runId) => {
    const found = metric.get(runId, logName) as StoredMetricRef | undefined;
    return found ? [{ runId, ...found }] : [];
  });
}

/** The operations of store/workflows/metric-reads.ts in SQLite's SQL. Rows of many runs are read as arrays (rows.ts, metricRowAt). */
export function metricReadOperations(s: Statements): MetricReadOperations {
  return {
    runMetricRows: (orgId, runId, { logName = null, logGroup = null }) => {
      const run = s.get("SELECT forked_from_run_id AS forked FROM runs WHERE org_id = ? AND id = ?").get(orgId, runId) as
        | { forked: number | null }
        | undefined;
      const own = s.get(
        `SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = ? AND (? IS NULL OR log_name = ?) AND (? IS NULL OR log_group = ?) ORDER BY log_name`,
      );
      return run && { forked: run.forked, own: own.all(runId, logName, logName, logGroup, logGroup) as MetricRow[] };
    },
    lineage: (orgId, runId) => lineage(s, orgId, runId),
    storedMetrics: (runIds, logName) => storedMetrics(s, runIds, logName),
    lineageMetrics: (orgId, runId, logName) => {
      const chain = lineage(s, orgId, runId);
      const metrics = new Map(
        storedMetrics(
          s,
          chain.map((link) => link.id),
          logName,
        ).map((metric) => [metric.runId, metric]),
      );
      return chain.map((link) => ({ ...link, metric: metrics.get(link.id) }));
    },
    // Unfiltered (the names of runs), the index on run and name covers the query.
    metricNamesOfRuns: (runIds, { logName, logGroup }) => {
      const filtered = logName !== undefined || logGroup !== undefined;
      const names = s.get(
        `SELECT DISTINCT log_name FROM metrics WHERE run_id IN (SELECT value FROM json_each(?))
         ${filtered ? "AND (? IS NULL OR log_name = ?) AND (? IS NULL OR log_group = ?)" : ""}`,
      );
      const filter = filtered ? [logName ?? null, logName ?? null, logGroup ?? null, logGroup ?? null] : [];
      return (names.all(JSON.stringify(runIds), ...filter) as { log_name: string }[]).map((row) => row.log_name);
    },
    summarizePiece: (metricId, from, to) => summarizePiece(s, metricId, from, to),
    readSegments: (segments, from, to, limit, skip) => readSegments(s, segments, from, to, limit, skip),
    sampleSegments: (segments, from, to, limit) => samplePoints(storedSeries(s, segments, from, to), limit),
    runForks: (orgId, runIds, projectId) =>
      s
        .get(
          `SELECT id, forked_from_run_id AS forked FROM runs
           WHERE org_id = ? ${projectId === undefined ? "" : "AND project_id = ?"} AND id IN (SELECT value FROM json_each(?))`,
        )
        .all(orgId, ...(projectId === undefined ? [] : [projectId]), JSON.stringify(runIds)) as RunFork[],
    metricRowsOfRuns: (runIds) =>
      s
        .get(`SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id IN (SELECT value FROM json_each(?)) ORDER BY run_id, log_name`)
        .all(JSON.stringify(runIds)) as MetricRow[],
    projectMetricNames: (orgId, projectId, pattern, limit) =>
      (
        s
          .get(
            `SELECT n.log_name FROM project_metric_names n JOIN projects p ON p.id = n.project_id
             WHERE p.org_id = ? AND n.project_id = ? AND (? IS NULL OR n.log_name LIKE ? ESCAPE '\\') ORDER BY n.log_name LIMIT ?`,
          )
          .all(orgId, projectId, pattern, pattern, limit) as { log_name: string }[]
      ).map((row) => row.log_name),
    runMetricRowsOfProject: (orgId, projectId, logName, runIds) =>
      s
        .get(
          `SELECT r.id AS run, r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
           FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = ?
           WHERE r.org_id = ? AND r.project_id = ? AND r.deleted_at IS NULL ${runIds ? "AND r.id IN (SELECT value FROM json_each(?))" : ""}
             AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
        )
        .raw(true)
        .all(logName, orgId, projectId, ...(runIds ? [JSON.stringify(runIds)] : [])) as RunMetricRow[],
    // One column of every run (building row objects would cost more than the query): filters and sorts of the run list.
    runLastValues: (orgId, projectId, logName) =>
      s
        .get(
          `SELECT r.id, r.forked_from_run_id, m.last_value
           FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = ?
           WHERE r.org_id = ? AND r.project_id = ? AND r.deleted_at IS NULL AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
        )
        .raw(true)
        .all(logName, orgId, projectId) as [number, number | null, number | null][],
  };
}
