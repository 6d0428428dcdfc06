import { ALL_STEPS, lineageSegments, MAX_LINEAGE_DEPTH, type LineageLink, type Segment } from "../../domain/lineage.js";
import { logGroupOf } from "../../domain/log-names.js";
import { samplePoints, type Point, type SampledPoint } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { combineSegmentSummaries, searchNames } from "../metric-series.js";
import { METRIC_COLUMNS, METRIC_COLUMNS_OF_M, metricRowAt, namedSummary, toSummaryState, type MetricRow } from "../rows.js";
import type { MetricNameQuery, MetricSummary, RunMetricSummary } from "../store.js";
import type { Statements } from "./statements.js";
import { readSegments, storedSeries, summarizePiece } from "./metric-series.js";

/** The run, then its parent, grandparent, ... (all in one organization by construction). */
function lineage(s: Statements, orgId: string, runId: number): LineageLink[] {
  const chain: LineageLink[] = [];
  let next: number | null = runId;
  while (next !== null && chain.length < MAX_LINEAGE_DEPTH) {
    const link = s
      .get("SELECT id, forked_from_run_id AS forkedFromRunId, fork_step AS forkStep FROM runs WHERE org_id = ? AND id = ?")
      .get(orgId, next) as LineageLink | undefined;
    if (!link) break;
    chain.push(link);
    next = link.forkedFromRunId;
  }
  return chain;
}

/** The segments of a metric's series for a run's lineage chain (domain/lineage.ts). */
function segmentsFor(s: Statements, chain: LineageLink[], logName: string): Segment[] {
  const metric = s.get("SELECT id, first_step AS firstStep FROM metrics WHERE run_id = ? AND log_name = ?");
  return lineageSegments(chain, (runId) => metric.get(runId, logName) as { id: number; firstStep: number | null } | undefined);
}

function summarizeSegments(s: Statements, segments: Segment[], ownRow?: MetricRow): MetricSummaryState | undefined {
  return combineSegmentSummaries(
    segments.map((segment) =>
      segment.maxStep === ALL_STEPS && ownRow?.id === segment.metricId
        ? toSummaryState(ownRow)
        : summarizePiece(s, segment.metricId, 0, segment.maxStep),
    ),
  );
}

/** Summaries of every metric of the run, inherited points included, by name. */
export function listMetricSummaries(
  s: Statements,
  orgId: string,
  runId: number,
  filter: { logName?: string; logGroup?: string } = {},
): MetricSummary[] {
  const chain = lineage(s, orgId, runId);
  if (chain.length === 0) return [];
  const own = s
    .get(
      `SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = ? AND (? IS NULL OR log_name = ?) AND (? IS NULL OR log_group = ?) ORDER BY log_name`,
    )
    .all(runId, filter.logName ?? null, filter.logName ?? null, filter.logGroup ?? null, filter.logGroup ?? null) as MetricRow[];
  if (chain.length === 1) return own.map((row) => namedSummary(row.log_name, toSummaryState(row), row.log_group, row.last_time));

  const rows = new Map(own.map((row) => [row.log_name, row]));
  const names = new Set(rows.keys());
  for (const ancestor of chain.slice(1)) {
    const inherited = s
      .get("SELECT log_name FROM metrics WHERE run_id = ? AND (? IS NULL OR log_name = ?) AND (? IS NULL OR log_group = ?)")
      .all(ancestor.id, filter.logName ?? null, filter.logName ?? null, filter.logGroup ?? null, filter.logGroup ?? null) as {
      log_name: string;
    }[];
    for (const { log_name } of inherited) names.add(log_name);
  }
  const out: MetricSummary[] = [];
  for (const name of [...names].sort()) {
    const summary = summarizeSegments(s, segmentsFor(s, chain, name), rows.get(name));
    if (summary) out.push(namedSummary(name, summary, rows.get(name)?.log_group ?? logGroupOf(name)));
  }
  return out;
}

/** listMetricSummaries for many runs: one query for the runs without a lineage. */
export function listMetricSummariesOfRuns(s: Statements, orgId: string, runIds: number[]): Map<number, MetricSummary[]> {
  const ids = JSON.stringify(runIds);
  const runs = s
    .get("SELECT id, forked_from_run_id AS forked FROM runs WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))")
    .all(orgId, ids) as { id: number; forked: number | null }[];
  const out = new Map<number, MetricSummary[]>();
  for (const run of runs) out.set(run.id, run.forked === null ? [] : listMetricSummaries(s, orgId, run.id, {}));
  const rows = s
    .get(
      `SELECT ${METRIC_COLUMNS_OF_M} FROM metrics m JOIN runs r ON r.id = m.run_id
       WHERE r.org_id = ? AND r.forked_from_run_id IS NULL AND r.id IN (SELECT value FROM json_each(?)) ORDER BY m.run_id, m.log_name`,
    )
    .all(orgId, ids) as MetricRow[];
  for (const row of rows) out.get(row.run_id)!.push(namedSummary(row.log_name, toSummaryState(row), row.log_group, row.last_time));
  return out;
}

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

/** Every point of a metric within [from, to], inherited ones included, ascending by step. */
export function readMetricPoints(
  s: Statements,
  orgId: string,
  runId: number,
  logName: string,
  from: number,
  to: number,
  limit?: number,
): Point[] {
  return readSegments(s, segmentsFor(s, lineage(s, orgId, runId), logName), from, to, limit);
}

/** The deterministic sample of domain/sampling.ts over a metric's stored (and inherited) points. */
export function sampleMetricPoints(
  s: Statements,
  orgId: string,
  runId: number,
  logName: string,
  from: number,
  to: number,
  limit: number,
): SampledPoint[] {
  return samplePoints(storedSeries(s, segmentsFor(s, lineage(s, orgId, runId), logName), from, to), limit);
}

/**
 * The summary of one metric for every run of a project that has it (or of the given runs), in
 * one query for the common case; forked runs get their inherited points added.
 */
export function listRunMetricSummaries(
  s: Statements,
  orgId: string,
  projectId: number,
  logName: string,
  runIds?: number[],
): RunMetricSummary[] {
  const scope = runIds ? `AND r.id IN (SELECT value FROM json_each(?))` : "";
  const params: unknown[] = [logName, orgId, projectId, ...(runIds ? [JSON.stringify(runIds)] : [])];
  const rows = s
    .get(
      `SELECT r.id AS run, r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
       FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = ?
       WHERE r.org_id = ? AND r.project_id = ? ${scope} AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
    )
    .raw(true)
    .all(...params) as [number, number | null, ...unknown[]][];
  const out: RunMetricSummary[] = [];
  for (const row of rows) {
    const [runId, forked, metricId] = row;
    const own = metricId === null ? undefined : metricRowAt(row, 2);
    const summary = forked === null ? toSummaryState(own!) : summarizeSegments(s, segmentsFor(s, lineage(s, orgId, runId), logName), own);
    if (summary) out.push({ runId, summary });
  }
  return out;
}

/** Distinct metric names of a project's runs (or of some runs and their lineage), by name. */
export function listMetricNames(s: Statements, orgId: string, projectId: number, query: MetricNameQuery): string[] {
  const pattern = query.search ? `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  if (!query.runIds) {
    const rows = s
      .get(
        `SELECT n.log_name FROM project_metric_names n JOIN projects p ON p.id = n.project_id
         WHERE p.org_id = ? AND n.project_id = ? AND (? IS NULL OR n.log_name LIKE ? ESCAPE '\\') ORDER BY n.log_name LIMIT ?`,
      )
      .all(orgId, projectId, pattern, pattern, query.limit) as { log_name: string }[];
    return rows.map((row) => row.log_name);
  }
  // The project's runs among those asked for: the runs without a lineage in one query, a forked
  // run through its lineage (it shows its ancestors' metrics up to the fork step).
  const ids = JSON.stringify(query.runIds);
  const runs = s
    .get("SELECT id, forked_from_run_id AS forked FROM runs WHERE org_id = ? AND project_id = ? AND id IN (SELECT value FROM json_each(?))")
    .all(orgId, projectId, ids) as { id: number; forked: number | null }[];
  const plain = JSON.stringify(runs.filter((run) => run.forked === null).map((run) => run.id));
  const found = s.get("SELECT DISTINCT log_name FROM metrics WHERE run_id IN (SELECT value FROM json_each(?))").all(plain) as {
    log_name: string;
  }[];
  const names = found.map((row) => row.log_name);
  for (const run of runs)
    if (run.forked !== null) for (const summary of listMetricSummaries(s, orgId, run.id, {})) names.push(summary.logName);
  return searchNames(names, query.search, query.limit);
}

/**
 * The LAST finite value of one metric for every run of a project that has one: what run filters and
 * sorts on `summaryMetrics.<name>` compare. Reads one column (rows as arrays: building row objects
 * would cost more than the query); only forked runs take the lineage path.
 */
export function listRunLastValues(s: Statements, orgId: string, projectId: number, logName: string): Map<number, number> {
  const rows = s
    .get(
      `SELECT r.id, r.forked_from_run_id, m.last_value
       FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = ?
       WHERE r.org_id = ? AND r.project_id = ? AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
    )
    .raw(true)
    .all(logName, orgId, projectId) as [number, number | null, number | null][];
  const values = new Map<number, number>();
  const forked: number[] = [];
  for (const [runId, forkedFrom, lastValue] of rows) {
    if (forkedFrom !== null) forked.push(runId);
    else if (lastValue !== null) values.set(runId, lastValue);
  }
  if (forked.length > 0) {
    for (const { runId, summary } of listRunMetricSummaries(s, orgId, projectId, logName, forked)) {
      if (summary.lastValue !== null) values.set(runId, summary.lastValue);
    }
  }
  return values;
}
