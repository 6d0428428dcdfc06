import { logGroupOf } from "../../domain/log-names.js";
import { ALL_STEPS } from "../../domain/lineage.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import type { PointColumns } from "../metric-chunks.js";
import {
  distinctRounds,
  lastTimeAfter,
  mergeIntoStoredChunks,
  planAppend,
  seriesWrite,
  type ChunkMergeOperations,
  type ChunkMeta,
} from "../metric-series.js";
import { METRIC_COLUMNS, toSummaryState, type MetricRow } from "../rows.js";
import type { MetricWriteOperations } from "../workflows/metric-writes.js";
import { runSync } from "../workflow.js";
import type { Statements } from "./statements.js";
import { chunksOverlapping, deleteChunk, insertChunks, loadChunk, rewriteChunk } from "./metric-chunks.js";
import { summarizePiece } from "./metric-series.js";

/**
 * The metric-write operations (workflows/metric-writes.ts) in SQLite's SQL, inside the workflow's
 * write transaction: the points and the summaries are written together, so statistics and charts
 * never disagree.
 */
export function sqliteMetricWrites(s: Statements): MetricWriteOperations {
  return {
    createMetrics: (runId, logNames) =>
      (
        s
          .get(
            `INSERT INTO metrics (run_id, log_name, log_group)
             SELECT ?, n.value ->> 0, n.value ->> 1 FROM json_each(?) AS n WHERE true ORDER BY n.key
             ON CONFLICT (run_id, log_name) DO NOTHING RETURNING log_name`,
          )
          .all(runId, JSON.stringify(logNames.map((name) => [name, logGroupOf(name)]))) as { log_name: string }[]
      ).map((row) => row.log_name),
    countMetrics: (runId) => (s.get("SELECT count(*) AS n FROM metrics WHERE run_id = ?").get(runId) as { n: number }).n,
    addProjectMetricNames: (runId, logNames) => {
      s.get(
        `INSERT INTO project_metric_names (project_id, log_name)
         SELECT r.project_id, n.value FROM runs r, json_each(?) AS n WHERE r.id = ? ORDER BY n.key ON CONFLICT DO NOTHING`,
      ).run(JSON.stringify(logNames), runId);
    },
    writeMetricPoints: (runId, series, now) => {
      const merges = chunkMerges(s);
      // Read once per round: a name sent twice in one batch is applied over its first series.
      for (const round of distinctRounds(series)) {
        const metrics = metricsWithLastChunk(
          s,
          runId,
          round.map((one) => one.logName),
        );
        for (const one of round) {
          const { metric: stored, lastChunk } = metrics.get(one.logName)!;
          const { incoming, rule, appends } = seriesWrite(stored, one, now);
          const { summary, written } = appends
            ? appendAfterLastPoint(s, stored, lastChunk, incoming)
            : runSync(mergeIntoStoredChunks(stored, incoming, rule), merges);
          writeSummary(s, stored.id, summary, lastTimeAfter(stored.last_time, stored.last_step, written));
        }
      }
    },
  };
}

/** A metric's summary after a write, and the points written in place of whole chunks (lastTimeAfter). */
interface Written {
  summary: MetricSummaryState;
  written: PointColumns;
}

type LastChunk = Pick<ChunkMeta, "id" | "point_count">;

const METRIC_AND_LAST_CHUNK = `SELECT ${METRIC_COLUMNS.split(", ")
  .map((column) => `m.${column}`)
  .join(", ")}, c.id AS last_chunk_id, c.point_count AS last_chunk_points
  FROM metrics m
  LEFT JOIN metric_chunks c ON c.id = (SELECT id FROM metric_chunks WHERE metric_id = m.id ORDER BY end_step DESC, id DESC LIMIT 1)
  WHERE m.run_id = ? AND m.log_name IN (SELECT value FROM json_each(?))`;

/** The run's metrics of these names with their last chunks, in one statement (a batch names a hundred metrics). */
function metricsWithLastChunk(
  s: Statements,
  runId: number,
  logNames: string[],
): Map<string, { metric: MetricRow; lastChunk: LastChunk | undefined }> {
  const rows = s.get(METRIC_AND_LAST_CHUNK).all(runId, JSON.stringify(logNames)) as (MetricRow & {
    last_chunk_id: number | null;
    last_chunk_points: number | null;
  })[];
  return new Map(
    rows.map(({ last_chunk_id, last_chunk_points, ...metric }) => [
      metric.log_name,
      { metric, lastChunk: last_chunk_id === null ? undefined : { id: last_chunk_id, point_count: last_chunk_points! } },
    ]),
  );
}

/** The common case: every incoming point comes after the stored ones, so nothing is replaced. */
function appendAfterLastPoint(s: Statements, metric: MetricRow, last: LastChunk | undefined, incoming: PointColumns): Written {
  const plan = planAppend(toSummaryState(metric), last, (chunk) => loadChunk(s, chunk), incoming);
  if (plan.replaces !== undefined) rewriteChunk(s, plan.replaces, plan.columns);
  else insertChunks(s, metric.id, plan.columns);
  return { summary: plan.summary, written: plan.columns };
}

/** The chunk operations of a merge (metric-series.ts, mergeIntoStoredChunks) in SQLite's SQL. */
function chunkMerges(s: Statements): ChunkMergeOperations {
  return {
    chunksOverlapping: (metricId, from, to) => chunksOverlapping(s, metricId, from, to),
    loadChunks: (chunks) => chunks.map((chunk) => loadChunk(s, chunk)),
    replaceChunks: (metricId, replaced, columns) => {
      for (const chunk of replaced) deleteChunk(s, chunk.id);
      insertChunks(s, metricId, columns);
    },
    summarizeMetric: (metricId) => summarizePiece(s, metricId, 0, ALL_STEPS),
  };
}

/** A metric row's summary columns as SET assignments; summaryValues lists their values in this order. */
export const SUMMARY_ASSIGNMENTS =
  "count = ?, non_finite_count = ?, min = ?, max = ?, mean = ?, stddev = ?, first_step = ?, last_step = ?, last_value = ?, last_value_step = ?";

export function summaryValues(summary: MetricSummaryState): (number | null)[] {
  return [
    summary.count,
    summary.nonFiniteCount,
    summary.min,
    summary.max,
    summary.mean,
    summary.stddev,
    summary.firstStep,
    summary.lastStep,
    summary.lastValue,
    summary.lastValueStep,
  ];
}

/** Writes a metric's summary and the client time of its last point (lastTimeAfter) in one statement. */
function writeSummary(s: Statements, metricId: number, summary: MetricSummaryState, lastTime: number | null): void {
  s.get(`UPDATE metrics SET ${SUMMARY_ASSIGNMENTS}, last_time = ? WHERE id = ?`).run(...summaryValues(summary), lastTime, metricId);
}
