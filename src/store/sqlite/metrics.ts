import { logGroupOf } from "../../domain/log-names.js";
import { addPoints, removePoints, type MetricSummaryState } from "../../domain/summaries.js";
import { columnsOf, concatColumns, mergeColumns, MAX_CHUNK_POINTS, SMALL_CHUNK_POINTS, type PointColumns } from "../metric-chunks.js";
import type { MetricSeries } from "../store.js";
import type { Statements } from "./db.js";
import { chunksOverlapping, deleteChunk, insertChunks, loadChunk } from "./metric-chunks.js";
import { summarizePiece } from "./metric-series.js";
import { runExists, touchHeartbeat } from "./run-attributes.js";

export interface MetricRow {
  id: number;
  run_id: number;
  log_name: string;
  log_group: string;
  count: number;
  non_finite_count: number;
  min: number | null;
  max: number | null;
  sum: number;
  sum_sq: number;
  first_step: number | null;
  last_step: number | null;
  last_value: number | null;
  last_value_step: number | null;
}

export const METRIC_COLUMNS = "id, run_id, log_name, log_group, count, non_finite_count, min, max, sum, sum_sq, first_step, last_step, last_value, last_value_step";

/** METRIC_COLUMNS qualified with the alias `m`, for joins. */
export const METRIC_COLUMNS_OF_M = METRIC_COLUMNS.split(", ").map((column) => `m.${column}`).join(", ");

export const toSummaryState = (row: MetricRow): MetricSummaryState => ({
  count: row.count,
  nonFiniteCount: row.non_finite_count,
  min: row.min,
  max: row.max,
  sum: row.sum,
  sumSq: row.sum_sq,
  firstStep: row.first_step,
  lastStep: row.last_step,
  lastValue: row.last_value,
  lastValueStep: row.last_value_step,
});

/**
 * Must run inside a write transaction: the points and the summaries are written together, so
 * statistics and charts never disagree. Returns undefined for an unknown run.
 */
export function appendMetricPoints(s: Statements, orgId: string, runId: number, series: MetricSeries[], now: number): number | undefined {
  if (!runExists(s, orgId, runId)) return undefined;
  let accepted = 0;
  for (const one of series) {
    if (one.steps.length === 0) continue;
    const metric = getOrCreateMetric(s, runId, one.logName, now);
    const incoming = columnsOf(one.steps, one.values, one.times, now);
    const summary =
      metric.last_step === null || one.steps[0]! > metric.last_step
        ? appendAfterLastStep(s, metric, incoming)
        : mergeIntoStoredSteps(s, metric, incoming);
    writeSummary(s, metric.id, summary);
    accepted += one.steps.length;
  }
  touchHeartbeat(s, runId, now);
  return accepted;
}

function getOrCreateMetric(s: Statements, runId: number, logName: string, now: number): MetricRow {
  const existing = s.get(`SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = ? AND log_name = ?`).get(runId, logName) as MetricRow | undefined;
  if (existing) return existing;
  const logGroup = logGroupOf(logName);
  s.get("INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at) VALUES (?, ?, 'METRIC', ?, ?) ON CONFLICT DO NOTHING").run(
    runId,
    logName,
    logGroup || null,
    now,
  );
  return s.get(`INSERT INTO metrics (run_id, log_name, log_group) VALUES (?, ?, ?) RETURNING ${METRIC_COLUMNS}`).get(runId, logName, logGroup) as MetricRow;
}

/** The common case: every incoming step is past the stored ones, so nothing is replaced. */
function appendAfterLastStep(s: Statements, metric: MetricRow, incoming: PointColumns): MetricSummaryState {
  const summary = addPoints(toSummaryState(metric), incoming.steps, incoming.values);
  const last = s.get("SELECT id, point_count FROM metric_chunks WHERE metric_id = ? ORDER BY end_step DESC LIMIT 1").get(metric.id) as
    | { id: number; point_count: number }
    | undefined;
  if (last && last.point_count < SMALL_CHUNK_POINTS && last.point_count + incoming.steps.length <= MAX_CHUNK_POINTS) {
    const stored = loadChunk(s, last);
    deleteChunk(s, last.id);
    insertChunks(s, metric.id, concatColumns([stored, incoming]));
  } else {
    insertChunks(s, metric.id, incoming);
  }
  return summary;
}

/** Retries and out-of-order steps: rewrite the chunks the incoming steps overlap, the incoming point winning. */
function mergeIntoStoredSteps(s: Statements, metric: MetricRow, incoming: PointColumns): MetricSummaryState {
  const overlapped = chunksOverlapping(s, metric.id, incoming.steps[0]!, incoming.steps[incoming.steps.length - 1]!);
  const stored = concatColumns(overlapped.map((chunk) => loadChunk(s, chunk)));
  const { merged, removed, added } = mergeColumns(stored, incoming);
  if (removed.steps.length === 0 && added.steps.length === 0) return toSummaryState(metric); // an exact retry
  for (const chunk of overlapped) deleteChunk(s, chunk.id);
  insertChunks(s, metric.id, merged);
  const { state, rescan } = removePoints(toSummaryState(metric), removed.steps, removed.values);
  // A rescan reads chunk aggregates, not points, so even a long series recomputes cheaply.
  return rescan ? summarizePiece(s, metric.id, 0, Number.MAX_SAFE_INTEGER) : addPoints(state, added.steps, added.values);
}

function writeSummary(s: Statements, metricId: number, summary: MetricSummaryState): void {
  s.get(
    `UPDATE metrics SET count = ?, non_finite_count = ?, min = ?, max = ?, sum = ?, sum_sq = ?, first_step = ?, last_step = ?,
            last_value = ?, last_value_step = ? WHERE id = ?`,
  ).run(
    summary.count,
    summary.nonFiniteCount,
    summary.min,
    summary.max,
    summary.sum,
    summary.sumSq,
    summary.firstStep,
    summary.lastStep,
    summary.lastValue,
    summary.lastValueStep,
    metricId,
  );
}

