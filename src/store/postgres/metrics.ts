import { ALL_STEPS } from "../../domain/lineage.js";
import { logGroupOf } from "../../domain/log-names.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { decodeChunk, SMALL_CHUNK_POINTS, type PointColumns } from "../metric-chunks.js";
import {
  distinctRounds,
  lastTimeAfter,
  mergeIntoStoredChunks,
  planAppend,
  seriesWrite,
  type ChunkMergeOperations,
} from "../metric-series.js";
import { METRIC_COLUMNS, toSummaryState, type MetricRow } from "../rows.js";
import type { SeriesColumns } from "../store.js";
import { runAsync, type Async } from "../workflow.js";
import type { MetricWriteOperations } from "../workflows/metric-writes.js";
import { row, rows, run, type Sql } from "./db.js";
import { chunksOverlapping, deleteChunks, insertChunks, lastChunks, loadChunks } from "./metric-chunks.js";
import { summarizePiece } from "./metric-series.js";

/**
 * The metric-write operations (workflows/metric-writes.ts) in PostgreSQL's SQL, inside the
 * workflow's transaction: the points and the summaries are written together, so statistics and
 * charts never disagree. The rows of the batch's metrics are locked (FOR UPDATE) before their
 * chunks are read, so two processes writing one run and metric take turns and the summary stays
 * exact; they are locked in one statement, in name order, so two batches naming the same metrics
 * never deadlock.
 *
 * A batch costs a fixed number of statements whatever its number of metrics (about ten: run,
 * metrics created, log names, metrics locked, last chunks, chunk rows, summaries, heartbeat), not
 * a few per metric: on PostgreSQL each statement is a round trip. Only steps at or before a
 * metric's last stored step (retries, out-of-order writes; rare) take a few statements per metric.
 */
export function postgresMetricWrites(sql: Sql): Async<MetricWriteOperations> {
  return {
    // The inserts take the names in the order given (ascending), so a batch waits on a concurrent
    // insert of the same name, never in a cycle.
    createMetrics: async (runId, logNames) =>
      (
        await rows<{ log_name: string }>(
          sql,
          `INSERT INTO metrics (run_id, log_name, log_group)
           SELECT $1, n.name, n.grp FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS n(name, grp, i)
           ORDER BY n.i ON CONFLICT (run_id, log_name) DO NOTHING RETURNING log_name`,
          [runId, logNames, logNames.map(logGroupOf)],
        )
      ).map((row) => row.log_name),
    countMetrics: async (runId) => (await row<{ n: number }>(sql, "SELECT count(*)::int AS n FROM metrics WHERE run_id = $1", [runId]))!.n,
    addProjectMetricNames: async (runId, logNames) => {
      await run(
        sql,
        `INSERT INTO project_metric_names (project_id, log_name)
         SELECT r.project_id, n.name FROM runs r, unnest($2::text[]) AS n(name) WHERE r.id = $1 ORDER BY n.name ON CONFLICT DO NOTHING`,
        [runId, logNames],
      );
    },
    writeMetricPoints: async (runId, series, now) => {
      const ordered = [...series].sort((a, b) => (a.logName < b.logName ? -1 : a.logName > b.logName ? 1 : 0));
      for (const round of distinctRounds(ordered)) await appendRound(sql, runId, round, now);
    },
  };
}

/** Appends series of distinct names, ascending. */
async function appendRound(sql: Sql, runId: number, round: SeriesColumns[], now: number): Promise<void> {
  const locked = await lockMetrics(
    sql,
    runId,
    round.map((one) => one.logName),
  );
  const writes = round.map((one) => {
    const metric = locked.get(one.logName)!;
    return { metric, ...seriesWrite(metric, one, now) };
  });
  const summaries = await appendAfterLastPoints(
    sql,
    writes.filter((write) => write.appends),
  );
  for (const { metric, incoming, rule } of writes.filter((write) => !write.appends)) {
    const { summary, written } = await runAsync(mergeIntoStoredChunks(metric, incoming, rule), chunkMerges(sql));
    summaries.push(summaryWrite(metric, written, summary));
  }
  await writeSummaries(sql, summaries);
}

/** What writeSummaries writes for one metric: its summary and the client time of its last point. */
interface SummaryWrite {
  metricId: number;
  summary: MetricSummaryState;
  lastTime: number | null;
}

/** `written`: the points written in place of whole chunks (lastTimeAfter). */
function summaryWrite(metric: MetricRow, written: PointColumns, summary: MetricSummaryState): SummaryWrite {
  return { metricId: metric.id, summary, lastTime: lastTimeAfter(metric.last_time, metric.last_step, written) };
}

/** The rows of these metrics of the run (names ascending, distinct), locked until the transaction ends, in ORDER BY order. */
async function lockMetrics(sql: Sql, runId: number, logNames: string[]): Promise<Map<string, MetricRow>> {
  const found = await rows<MetricRow>(
    sql,
    `SELECT ${METRIC_COLUMNS} FROM metrics WHERE run_id = $1 AND log_name = ANY($2::text[]) ORDER BY log_name FOR UPDATE`,
    [runId, logNames],
  );
  return new Map(found.map((metric) => [metric.log_name, metric]));
}

/** The common case: every incoming point comes after the stored ones, so nothing is replaced; all metrics at once. */
async function appendAfterLastPoints(sql: Sql, appends: { metric: MetricRow; incoming: PointColumns }[]): Promise<SummaryWrite[]> {
  const last = await lastChunks(
    sql,
    appends.map(({ metric }) => metric.id),
    SMALL_CHUNK_POINTS,
  );
  const replaced: number[] = [];
  const writes: { metricId: number; columns: PointColumns }[] = [];
  const summaries = appends.map(({ metric, incoming }) => {
    const chunk = last.get(metric.id);
    // A chunk an append may extend has fewer than SMALL_CHUNK_POINTS points, so its points came with it.
    const plan = planAppend(toSummaryState(metric), chunk, () => decodeChunk(chunk!.points!, chunk!.point_count), incoming);
    if (plan.replaces !== undefined) replaced.push(plan.replaces);
    writes.push({ metricId: metric.id, columns: plan.columns });
    return summaryWrite(metric, plan.columns, plan.summary);
  });
  await deleteChunks(sql, replaced);
  await insertChunks(sql, writes);
  return summaries;
}

/** The chunk operations of a merge (metric-series.ts, mergeIntoStoredChunks) in PostgreSQL's SQL. */
function chunkMerges(sql: Sql): Async<ChunkMergeOperations> {
  return {
    chunksOverlapping: (metricId, from, to) => chunksOverlapping(sql, metricId, from, to),
    loadChunks: (chunks) => loadChunks(sql, chunks),
    replaceChunks: async (metricId, replaced, columns) => {
      await deleteChunks(
        sql,
        replaced.map((chunk) => chunk.id),
      );
      await insertChunks(sql, [{ metricId, columns }]);
    },
    summarizeMetric: (metricId) => summarizePiece(sql, metricId, 0, ALL_STEPS),
  };
}

/** Writes the summaries (and last points' client times, see lastTimeAfter) of many metrics in one statement. */
async function writeSummaries(sql: Sql, summaries: SummaryWrite[]): Promise<void> {
  if (summaries.length === 0) return;
  const column = <T>(of: (summary: MetricSummaryState) => T) => summaries.map(({ summary }) => of(summary));
  await run(
    sql,
    `UPDATE metrics AS m SET count = s.count, non_finite_count = s.non_finite_count, min = s.min, max = s.max, mean = s.mean,
            stddev = s.stddev, first_step = s.first_step, last_step = s.last_step, last_value = s.last_value,
            last_value_step = s.last_value_step, last_time = s.last_time
     FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::bigint[],
                 $9::bigint[], $10::float8[], $11::bigint[], $12::float8[])
       AS s(id, count, non_finite_count, min, max, mean, stddev, first_step, last_step, last_value, last_value_step, last_time)
     WHERE m.id = s.id`,
    [
      summaries.map(({ metricId }) => metricId),
      column((s) => s.count),
      column((s) => s.nonFiniteCount),
      column((s) => s.min),
      column((s) => s.max),
      column((s) => s.mean),
      column((s) => s.stddev),
      column((s) => s.firstStep),
      column((s) => s.lastStep),
      column((s) => s.lastValue),
      column((s) => s.lastValueStep),
      summaries.map(({ lastTime }) => lastTime),
    ],
  );
}
