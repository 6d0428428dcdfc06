import { checkMetricCount, logGroupOf } from "../../domain/log-names.js";
import { ALL_STEPS } from "../../domain/lineage.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { columnsOf, concatColumns, type PointColumns } from "../metric-chunks.js";
import { appendsAfterLastStep, lastTimeAfter, mergeIntoStored, planAppend } from "../metric-series.js";
import { METRIC_COLUMNS, toSummaryState, type MetricRow } from "../rows.js";
import type { MetricSeries } from "../store.js";
import type { Statements } from "./statements.js";
import { chunksOverlapping, deleteChunk, insertChunks, loadChunk, rewriteChunk } from "./metric-chunks.js";
import { summarizePiece } from "./metric-series.js";
import { runExists, touchHeartbeat } from "./run-attributes.js";

/**
 * Must run inside a write transaction: the points and the summaries are written together, so
 * statistics and charts never disagree. Returns undefined for an unknown run.
 */
export function appendMetricPoints(s: Statements, orgId: string, runId: number, series: MetricSeries[], now: number): number | undefined {
  if (!runExists(s, orgId, runId)) return undefined;
  let accepted = 0;
  // The run's metric count, read once the batch creates its first metric (most batches create none).
  let before: number | undefined;
  let created = 0;
  const countCreated = () => {
    before ??= (s.get("SELECT count(*) AS n FROM metrics WHERE run_id = ?").get(runId) as { n: number }).n;
    checkMetricCount(before, before + ++created);
  };
  for (const one of series) {
    if (one.steps.length === 0) continue;
    const metric = getOrCreateMetric(s, runId, one.logName, now, countCreated);
    const incoming = columnsOf(one.steps, one.values, one.times, now);
    const summary = appendsAfterLastStep(metric.last_step, incoming)
      ? appendAfterLastStep(s, metric, incoming)
      : mergeIntoStoredSteps(s, metric, incoming);
    writeSummary(s, metric.id, summary, lastTimeAfter(metric.last_time, summary.lastStep, incoming));
    accepted += one.steps.length;
  }
  touchHeartbeat(s, runId, now);
  return accepted;
}

function getOrCreateMetric(s: Statements, runId: number, logName: string, now: number, beforeCreate: () => void): MetricRow {
  const existing = s.get(`SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = ? AND log_name = ?`).get(runId, logName) as
    | MetricRow
    | undefined;
  if (existing) return existing;
  beforeCreate();
  const logGroup = logGroupOf(logName);
  s.get(
    "INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at) VALUES (?, ?, 'METRIC', ?, ?) ON CONFLICT DO NOTHING",
  ).run(runId, logName, logGroup || null, now);
  s.get("INSERT INTO project_metric_names (project_id, log_name) SELECT project_id, ? FROM runs WHERE id = ? ON CONFLICT DO NOTHING").run(
    logName,
    runId,
  );
  return s
    .get(`INSERT INTO metrics (run_id, log_name, log_group) VALUES (?, ?, ?) RETURNING ${METRIC_COLUMNS}`)
    .get(runId, logName, logGroup) as MetricRow;
}

/** The common case: every incoming step is past the stored ones, so nothing is replaced. */
function appendAfterLastStep(s: Statements, metric: MetricRow, incoming: PointColumns): MetricSummaryState {
  const last = s.get("SELECT id, point_count FROM metric_chunks WHERE metric_id = ? ORDER BY end_step DESC LIMIT 1").get(metric.id) as
    | { id: number; point_count: number }
    | undefined;
  const plan = planAppend(toSummaryState(metric), last, (chunk) => loadChunk(s, chunk), incoming);
  if (plan.replaces !== undefined) rewriteChunk(s, plan.replaces, plan.columns);
  else insertChunks(s, metric.id, plan.columns);
  return plan.summary;
}

/** Retries and out-of-order steps: rewrite the chunks the incoming steps overlap, the incoming point winning. */
function mergeIntoStoredSteps(s: Statements, metric: MetricRow, incoming: PointColumns): MetricSummaryState {
  const overlapped = chunksOverlapping(s, metric.id, incoming.steps[0]!, incoming.steps[incoming.steps.length - 1]!);
  const stored = concatColumns(overlapped.map((chunk) => loadChunk(s, chunk)));
  const merge = mergeIntoStored(toSummaryState(metric), stored, incoming);
  if (!merge) return toSummaryState(metric); // an exact retry
  for (const chunk of overlapped) deleteChunk(s, chunk.id);
  insertChunks(s, metric.id, merge.merged);
  // A rescan reads chunk rows, not points: ~10,000 rows for a 5M-point series.
  return merge.summary === "rescan" ? summarizePiece(s, metric.id, 0, ALL_STEPS) : merge.summary;
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
