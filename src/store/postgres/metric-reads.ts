import {
  ALL_STEPS,
  lineageSegments,
  MAX_LINEAGE_DEPTH,
  type LineageLink,
  type Segment,
  type StoredMetricRef,
} from "../../domain/lineage.js";
import { logGroupOf } from "../../domain/log-names.js";
import type { Point, SampledPoint } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { combineSegmentSummaries, searchNames } from "../metric-series.js";
import { METRIC_COLUMNS_OF_M, metricRowAt, namedSummary, toSummaryState, type MetricRow } from "../rows.js";
import type { MetricNameQuery, MetricSummary, RunMetricSummary } from "../store.js";
import { arrays, rows, type Sql } from "./db.js";
import { readSegments, sampleSegments, summarizePiece } from "./metric-series.js";

/** The run, then its parent, grandparent, ... (all in one organization by construction): `chain`, with columns of its own. */
const LINEAGE = `WITH RECURSIVE chain AS (
       SELECT id, forked_from_run_id, fork_step, 1 AS depth FROM runs WHERE org_id = $1 AND id = $2
       UNION ALL
       SELECT r.id, r.forked_from_run_id, r.fork_step, c.depth + 1 FROM runs r JOIN chain c ON r.id = c.forked_from_run_id
       WHERE r.org_id = $1 AND c.depth < $3)`;

/** A run's lineage (LINEAGE), in one query. */
function lineage(sql: Sql, orgId: string, runId: number): Promise<LineageLink[]> {
  return rows<LineageLink>(
    sql,
    `${LINEAGE} SELECT id, forked_from_run_id AS "forkedFromRunId", fork_step AS "forkStep" FROM chain ORDER BY depth`,
    [orgId, runId, MAX_LINEAGE_DEPTH],
  );
}

/** The segments of a metric's series for a run (domain/lineage.ts): its lineage and each run's metric of that name, in one query. */
async function runSegments(sql: Sql, orgId: string, runId: number, logName: string): Promise<Segment[]> {
  const found = await rows<LineageLink & { metricId: number | null; firstStep: number | null }>(
    sql,
    `${LINEAGE}
     SELECT c.id, c.forked_from_run_id AS "forkedFromRunId", c.fork_step AS "forkStep", m.id AS "metricId", m.first_step AS "firstStep"
     FROM chain c LEFT JOIN metrics m ON m.run_id = c.id AND m.log_name = $4 ORDER BY c.depth`,
    [orgId, runId, MAX_LINEAGE_DEPTH, logName],
  );
  const byRun = new Map(found.map((link) => [link.id, link]));
  return lineageSegments(found, (id) => {
    const { metricId, firstStep } = byRun.get(id)!;
    return metricId === null ? undefined : { id: metricId, firstStep };
  });
}

/** The segments of a metric's series for a run's lineage chain (domain/lineage.ts). */
async function segmentsFor(sql: Sql, chain: LineageLink[], logName: string): Promise<Segment[]> {
  const found = await rows<StoredMetricRef & { runId: number }>(
    sql,
    `SELECT run_id AS "runId", id, first_step AS "firstStep" FROM metrics WHERE run_id = ANY($1::bigint[]) AND log_name = $2`,
    [chain.map((link) => link.id), logName],
  );
  const byRun = new Map(found.map((metric) => [metric.runId, metric]));
  return lineageSegments(chain, (runId) => byRun.get(runId));
}

async function summarizeSegments(sql: Sql, segments: Segment[], ownRow?: MetricRow): Promise<MetricSummaryState | undefined> {
  const parts: MetricSummaryState[] = [];
  for (const segment of segments) {
    parts.push(
      segment.maxStep === ALL_STEPS && ownRow?.id === segment.metricId
        ? toSummaryState(ownRow)
        : await summarizePiece(sql, segment.metricId, 0, segment.maxStep),
    );
  }
  return combineSegmentSummaries(parts);
}

/** Summaries of every metric of the run, inherited points included, by name. */
export async function listMetricSummaries(
  sql: Sql,
  orgId: string,
  runId: number,
  filter: { logName?: string; logGroup?: string } = {},
): Promise<MetricSummary[]> {
  // The run (is it in the organization, is it forked?) and its own summaries in one query: for a
  // run that is not a fork, the common case, they are the answer.
  const found = await rows<Partial<MetricRow> & { forked: number | null }>(
    sql,
    `SELECT r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
     FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND ($3::text IS NULL OR m.log_name = $3) AND ($4::text IS NULL OR m.log_group = $4)
     WHERE r.org_id = $1 AND r.id = $2 ORDER BY m.log_name`,
    [orgId, runId, filter.logName ?? null, filter.logGroup ?? null],
  );
  if (found.length === 0) return [];
  const own = found.filter((row): row is MetricRow & { forked: number | null } => row.id !== null);
  const chain = found[0]!.forked === null ? [] : await lineage(sql, orgId, runId);
  if (chain.length <= 1) return own.map((row) => namedSummary(row.log_name, toSummaryState(row), row.log_group, row.last_time));
  const byName = new Map(own.map((row) => [row.log_name, row]));
  const inherited = await rows<{ log_name: string }>(
    sql,
    `SELECT DISTINCT log_name FROM metrics WHERE run_id = ANY($1::bigint[]) AND ($2::text IS NULL OR log_name = $2)
     AND ($3::text IS NULL OR log_group = $3)`,
    [chain.slice(1).map((link) => link.id), filter.logName ?? null, filter.logGroup ?? null],
  );
  const names = new Set([...byName.keys(), ...inherited.map((row) => row.log_name)]);
  const out: MetricSummary[] = [];
  for (const name of [...names].sort()) {
    const summary = await summarizeSegments(sql, await segmentsFor(sql, chain, name), byName.get(name));
    if (summary) out.push(namedSummary(name, summary, byName.get(name)?.log_group ?? logGroupOf(name)));
  }
  return out;
}

/** listMetricSummaries for many runs: one query for the runs without a lineage. */
export async function countMetricsOfRuns(sql: Sql, orgId: string, runIds: number[]): Promise<Map<number, number>> {
  const found = await arrays<[number, number]>(
    sql,
    `SELECT m.run_id, count(*)::int FROM metrics m JOIN runs r ON r.id = m.run_id
     WHERE r.org_id = $1 AND r.id = ANY($2::bigint[]) GROUP BY m.run_id`,
    [orgId, runIds],
  );
  return new Map(found);
}

export async function listMetricSummariesOfRuns(sql: Sql, orgId: string, runIds: number[]): Promise<Map<number, MetricSummary[]>> {
  const runs = await rows<{ id: number; forked: number | null }>(
    sql,
    `SELECT id, forked_from_run_id AS forked FROM runs WHERE org_id = $1 AND id = ANY($2::bigint[])`,
    [orgId, runIds],
  );
  const out = new Map<number, MetricSummary[]>();
  for (const run of runs) out.set(run.id, run.forked === null ? [] : await listMetricSummaries(sql, orgId, run.id, {}));
  const own = await rows<MetricRow>(
    sql,
    `SELECT ${METRIC_COLUMNS_OF_M} FROM metrics m JOIN runs r ON r.id = m.run_id
     WHERE r.org_id = $1 AND r.forked_from_run_id IS NULL AND r.id = ANY($2::bigint[]) ORDER BY m.run_id, m.log_name`,
    [orgId, runIds],
  );
  for (const row of own) out.get(row.run_id)!.push(namedSummary(row.log_name, toSummaryState(row), row.log_group, row.last_time));
  return out;
}

/** Every point of a metric within [from, to], inherited ones included, ascending by step. */
export async function readMetricPoints(
  sql: Sql,
  orgId: string,
  runId: number,
  logName: string,
  from: number,
  to: number,
  limit?: number,
): Promise<Point[]> {
  return readSegments(sql, await runSegments(sql, orgId, runId, logName), from, to, limit);
}

/** The deterministic sample of domain/sampling.ts over a metric's stored (and inherited) points. */
export async function sampleMetricPoints(
  sql: Sql,
  orgId: string,
  runId: number,
  logName: string,
  from: number,
  to: number,
  limit: number,
): Promise<SampledPoint[]> {
  return sampleSegments(sql, await runSegments(sql, orgId, runId, logName), from, to, limit);
}

/**
 * The summary of one metric for every run of a project that has it (or of the given runs), in
 * one query for the common case; forked runs get their inherited points added.
 */
export async function listRunMetricSummaries(
  sql: Sql,
  orgId: string,
  projectId: number,
  logName: string,
  runIds?: number[],
): Promise<RunMetricSummary[]> {
  const found = await arrays<[number, number | null, ...unknown[]]>(
    sql,
    `SELECT r.id AS run, r.forked_from_run_id AS forked, ${METRIC_COLUMNS_OF_M}
     FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = $1
     WHERE r.org_id = $2 AND r.project_id = $3 AND ($4::bigint[] IS NULL OR r.id = ANY($4::bigint[]))
       AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)
     ORDER BY r.id`,
    [logName, orgId, projectId, runIds ?? null],
  );
  const out: RunMetricSummary[] = [];
  for (const row of found) {
    const [runId, forked, metricId] = row;
    const own = metricId === null ? undefined : metricRowAt(row, 2);
    const summary =
      forked === null
        ? toSummaryState(own!)
        : await summarizeSegments(sql, await segmentsFor(sql, await lineage(sql, orgId, runId), logName), own);
    if (summary) out.push({ runId, summary });
  }
  return out;
}

/** Distinct metric names of a project's runs (or of some runs and their lineage), by name. */
export async function listMetricNames(sql: Sql, orgId: string, projectId: number, query: MetricNameQuery): Promise<string[]> {
  if (!query.runIds) {
    // ILIKE: SQLite's LIKE ignores ASCII case, and the search means its characters literally.
    const pattern = query.search ? `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    const found = await rows<{ log_name: string }>(
      sql,
      `SELECT n.log_name FROM project_metric_names n JOIN projects p ON p.id = n.project_id
       WHERE p.org_id = $1 AND n.project_id = $2 AND ($3::text IS NULL OR n.log_name ILIKE $3 ESCAPE '\\') ORDER BY n.log_name LIMIT $4`,
      [orgId, projectId, pattern, query.limit],
    );
    return found.map((row) => row.log_name);
  }
  // The project's runs among those asked for: the runs without a lineage in one query, a forked
  // run through its lineage (it shows its ancestors' metrics up to the fork step).
  const runs = await rows<{ id: number; forked: number | null }>(
    sql,
    "SELECT id, forked_from_run_id AS forked FROM runs WHERE org_id = $1 AND project_id = $2 AND id = ANY($3::bigint[])",
    [orgId, projectId, query.runIds],
  );
  const plain = runs.filter((run) => run.forked === null).map((run) => run.id);
  const found = await rows<{ log_name: string }>(sql, "SELECT DISTINCT log_name FROM metrics WHERE run_id = ANY($1::bigint[])", [plain]);
  const names = found.map((row) => row.log_name);
  for (const run of runs)
    if (run.forked !== null) for (const summary of await listMetricSummaries(sql, orgId, run.id, {})) names.push(summary.logName);
  return searchNames(names, query.search, query.limit);
}

/**
 * The LAST finite value of one metric for every run of a project that has one: what run filters and
 * sorts on `summaryMetrics.<name>` compare. Only forked runs take the lineage path.
 */
export async function listRunLastValues(sql: Sql, orgId: string, projectId: number, logName: string): Promise<Map<number, number>> {
  const found = await arrays<[number, number | null, number | null]>(
    sql,
    `SELECT r.id, r.forked_from_run_id, m.last_value
     FROM runs r LEFT JOIN metrics m ON m.run_id = r.id AND m.log_name = $1
     WHERE r.org_id = $2 AND r.project_id = $3 AND (m.id IS NOT NULL OR r.forked_from_run_id IS NOT NULL)`,
    [logName, orgId, projectId],
  );
  const values = new Map<number, number>();
  const forked: number[] = [];
  for (const [runId, forkedFrom, lastValue] of found) {
    if (forkedFrom !== null) forked.push(runId);
    else if (lastValue !== null) values.set(runId, lastValue);
  }
  if (forked.length > 0) {
    for (const { runId, summary } of await listRunMetricSummaries(sql, orgId, projectId, logName, forked)) {
      if (summary.lastValue !== null) values.set(runId, summary.lastValue);
    }
  }
  return values;
}
