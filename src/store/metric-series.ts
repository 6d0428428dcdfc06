import type { Piece } from "../domain/lineage.js";
import { lowerBound, type Point, type PointBlock } from "../domain/sampling.js";
import { addPoints, combineSummaries, EMPTY_SUMMARY, removePoints, type MetricSummaryState } from "../domain/summaries.js";
import type { PointRule } from "../domain/metric-points.js";
import { columnsOf, concatColumns, mergeColumns, MAX_CHUNK_POINTS, SMALL_CHUNK_POINTS, type PointColumns } from "./metric-chunks.js";
import { toSummaryState, type MetricRow } from "./rows.js";
import type { SeriesColumns } from "./store.js";
import { performer, type Workflow } from "./workflow.js";

/**
 * How every backend writes and reads chunked metric points (src/store/metric-chunks.ts): the
 * decisions live here, the backends only fetch and write the rows these functions ask for.
 */

/** A chunk row without its points. */
export interface ChunkMeta {
  id: number;
  start_step: number;
  end_step: number;
  point_count: number;
}

export const CHUNK_META = "id, start_step, end_step, point_count";

/** The chunk aggregates sampling reads, after CHUNK_META (see chunkBlock). */
export const CHUNK_BLOCK = `${CHUNK_META}, min, min_step, min_time, max, max_step, max_time, nan_step, inf_step, neg_inf_step`;

/** A CHUNK_BLOCK row as an array (building row objects costs three times as much for ~10,000 chunks). */
export type ChunkBlockRow = [number, number, number, number, ...(number | null)[]];

/** The aggregates summarizeChunkRows reads, in this order. */
export const CHUNK_SUMMARY = "point_count, finite_count, mean, stddev, min, max, start_step, end_step, last_value, last_value_step";
export type ChunkSummaryRow = [number, number, number, number, number | null, number | null, number, number, number | null, number | null];

// Writes.

/**
 * The client time of a metric's last point once `written` (points written in place of whole
 * chunks, in the point order) is stored: its last point is the metric's last when it reaches the
 * stored last step (every chunk holding that step was rewritten with it), else the stored time
 * stands, which may be null (not known: the point must be read).
 */
export function lastTimeAfter(storedLastTime: number | null, storedLastStep: number | null, written: PointColumns): number | null {
  const last = written.steps.length - 1;
  return last >= 0 && (storedLastStep === null || written.steps[last]! >= storedLastStep) ? written.times[last]! : storedLastTime;
}

/** The rule a series is written by: Stepwise's "replace-step" unless it says otherwise (MLflow's routes). */
export const ruleOf = (series: { rule?: PointRule }): PointRule => series.rule ?? "replace-step";

/**
 * How one series meets its metric's stored points: its points as columns (written at `now`), its
 * rule, and whether they all come after the stored ones (an append, planAppend) or must be merged
 * into them (mergeIntoStoredChunks).
 */
export function seriesWrite(
  metric: Pick<MetricRow, "last_step" | "last_time">,
  series: SeriesColumns,
  now: number,
): { incoming: PointColumns; rule: PointRule; appends: boolean } {
  const incoming = columnsOf(series.steps, series.values, series.times, now);
  const rule = ruleOf(series);
  return { incoming, rule, appends: appendsAfterLastPoint({ lastStep: metric.last_step, lastTime: metric.last_time }, incoming, rule) };
}

/**
 * The common case of ingest: every incoming point comes after the stored ones in the point order,
 * so nothing is replaced or interleaved. Under MLflow's rule a point at the last step comes after
 * when its time is later than the last point's (a loop of log_metric calls without a step).
 */
export function appendsAfterLastPoint(
  stored: { lastStep: number | null; lastTime: number | null },
  incoming: PointColumns,
  rule: PointRule,
): boolean {
  if (stored.lastStep === null || incoming.steps[0]! > stored.lastStep) return true;
  return (
    rule === "keep-every-point" && incoming.steps[0] === stored.lastStep && stored.lastTime !== null && incoming.times[0]! > stored.lastTime
  );
}

/** Small appends are merged into a small last chunk, so slow loggers do not make one row per point. */
export function extendsLastChunk(last: Pick<ChunkMeta, "point_count"> | undefined, incomingCount: number): boolean {
  return last !== undefined && last.point_count < SMALL_CHUNK_POINTS && last.point_count + incomingCount <= MAX_CHUNK_POINTS;
}

/** The points written when appending, with the last chunk's points first when it is extended. */
export function appendedColumns(lastChunkPoints: PointColumns | undefined, incoming: PointColumns): PointColumns {
  return lastChunkPoints ? concatColumns([lastChunkPoints, incoming]) : incoming;
}

/** What an append past the last stored step writes: `columns` as new chunks, replacing chunk `replaces` when it extends it. */
export interface AppendPlan {
  replaces: number | undefined;
  columns: PointColumns;
  summary: MetricSummaryState;
}

/**
 * The append of `incoming` (every step past the stored ones) to a metric with this summary and
 * last chunk; `pointsOf` gives the last chunk's points, asked for only when it is extended.
 */
export function planAppend(
  summary: MetricSummaryState,
  last: Pick<ChunkMeta, "id" | "point_count"> | undefined,
  pointsOf: (chunk: Pick<ChunkMeta, "id" | "point_count">) => PointColumns,
  incoming: PointColumns,
): AppendPlan {
  const extended = last && extendsLastChunk(last, incoming.steps.length) ? last : undefined;
  return {
    replaces: extended?.id,
    columns: appendedColumns(extended && pointsOf(extended), incoming),
    summary: addPoints(summary, incoming.steps, incoming.values),
  };
}

/**
 * Merges incoming points into the stored points of the chunks they overlap, the incoming point
 * winning. Returns undefined for an exact retry (nothing to write); otherwise the points that
 * replace those chunks and the corrected summary, or `rescan` when a finite value was replaced
 * (taking a value out of a mean and deviation by subtraction can cancel every digit): the caller
 * then recomputes the summary from its chunks after writing them.
 */
export function mergeIntoStored(
  summary: MetricSummaryState,
  stored: PointColumns,
  incoming: PointColumns,
  rule: PointRule,
): { merged: PointColumns; summary: MetricSummaryState | "rescan" } | undefined {
  const { merged, removed, added } = mergeColumns(stored, incoming, rule);
  if (removed.steps.length === 0 && added.steps.length === 0) return undefined;
  const { state, rescan } = removePoints(summary, removed.values);
  // A finite point added at the step of the last finite value may come before it or after it: only the points tell.
  const lastUnclear = added.steps.some((step, i) => step === summary.lastValueStep && Number.isFinite(added.values[i]!));
  return { merged, summary: rescan || lastUnclear ? "rescan" : addPoints(state, added.steps, added.values) };
}

/**
 * Chunk order. A merge rewrites the chunks holding any step of the incoming points' range, widened
 * until every chunk holding a step of the rewritten ones is among them: a step's points may span
 * several chunks, and rewritten chunks get new IDs, in order, so that chunks of equal end step
 * stay ordered by ID. The wider range to read again, given the chunks of [lo, hi]; undefined when
 * they are all.
 */
export function widenedRange([lo, hi]: [number, number], chunks: ChunkMeta[]): [number, number] | undefined {
  const first = chunks[0];
  const last = chunks[chunks.length - 1];
  if (!first || !last || (first.start_step >= lo && last.end_step <= hi)) return undefined;
  return [Math.min(lo, first.start_step), Math.max(hi, last.end_step)];
}

/** What a merge asks of the backend's chunk rows, inside the metric write's transaction. */
export interface ChunkMergeOperations {
  /** The chunks of a metric that hold any step in [from, to], in chunk order. */
  chunksOverlapping(metricId: number, from: number, to: number): ChunkMeta[];
  /** The points of these chunks, in their order. */
  loadChunks(chunks: ChunkMeta[]): PointColumns[];
  /** Deletes these chunks and writes `columns` as the metric's chunks in their place. */
  replaceChunks(metricId: number, replaced: ChunkMeta[], columns: PointColumns): void;
  /** The metric's summary recomputed from its chunks. */
  summarizeMetric(metricId: number): MetricSummaryState;
}

const performMerge = performer<ChunkMergeOperations>();

/**
 * Retries and out-of-order points: rewrites the chunks the incoming steps overlap ("Chunk order"),
 * returning the metric's summary after it and the points written in place of whole chunks
 * (lastTimeAfter). An exact retry writes nothing.
 */
export function* mergeIntoStoredChunks(
  metric: MetricRow,
  incoming: PointColumns,
  rule: PointRule,
): Workflow<{ summary: MetricSummaryState; written: PointColumns }, ChunkMergeOperations> {
  let range: [number, number] | undefined = [incoming.steps[0]!, incoming.steps[incoming.steps.length - 1]!];
  let overlapped: ChunkMeta[] = [];
  for (; range; range = widenedRange(range, overlapped)) overlapped = yield* performMerge("chunksOverlapping", metric.id, ...range);
  const stored = concatColumns(yield* performMerge("loadChunks", overlapped));
  const merge = mergeIntoStored(toSummaryState(metric), stored, incoming, rule);
  if (!merge) return { summary: toSummaryState(metric), written: stored }; // nothing new
  yield* performMerge("replaceChunks", metric.id, overlapped, merge.merged);
  // A rescan reads chunk rows, not points: ~10,000 rows for a 5M-point series.
  return { summary: merge.summary === "rescan" ? yield* performMerge("summarizeMetric", metric.id) : merge.summary, written: merge.merged };
}

/**
 * Series split so that no name occurs twice in one round (decoded batches name each metric once:
 * one round), keeping their order: a later series of a name is written after the earlier one, as
 * if sent in a later batch.
 */
export function distinctRounds<S extends { logName: string }>(ordered: S[]): S[][] {
  const rounds: S[][] = [];
  const seen = new Map<string, number>();
  for (const one of ordered) {
    const round = seen.get(one.logName) ?? 0;
    seen.set(one.logName, round + 1);
    (rounds[round] ??= []).push(one);
  }
  return rounds;
}

// Reads.

/**
 * The chunks of a piece that stick out of it on either side (at most two), which range aggregates
 * cannot cover: from the first chunk ending at or after `from` and the first ending after `to`
 * (only they can: chunks follow the point order).
 */
export function boundaryChunks(piece: Piece, low: ChunkMeta | undefined, high: ChunkMeta | undefined): ChunkMeta[] {
  const out: ChunkMeta[] = [];
  if (low && low.start_step <= piece.to && (low.start_step < piece.from || low.end_step > piece.to)) out.push(low);
  if (high && high.id !== low?.id && high.start_step <= piece.to) out.push(high);
  return out;
}

/**
 * The summary of chunk rows lying wholly inside a range: moments merged in step order (Chan's
 * rule, in domain/summaries.ts), extremes and steps by comparison.
 */
export function summarizeChunkRows(rows: ChunkSummaryRow[]): MetricSummaryState {
  let summary: MetricSummaryState = EMPTY_SUMMARY;
  for (const [points, count, mean, stddev, min, max, startStep, endStep, lastValue, lastValueStep] of rows) {
    summary = combineSummaries(summary, {
      count,
      mean,
      stddev,
      nonFiniteCount: points - count,
      min,
      max,
      firstStep: startStep,
      lastStep: endStep,
      lastValue,
      lastValueStep,
    });
  }
  return summary;
}

/**
 * Adds the points within [from, to] of partly covered chunks to the summary of the chunks inside,
 * in the point order: a chunk sticking out before `from` comes first, one sticking out after `to` last.
 */
export function addBoundaryPoints(inside: MetricSummaryState, boundary: PointColumns[], from: number, to: number): MetricSummaryState {
  let summary = inside;
  for (const columns of boundary) {
    const i = lowerBound(columns.steps.length, (k) => columns.steps[k]!, from);
    const j = lowerBound(columns.steps.length, (k) => columns.steps[k]!, to + 1);
    const part = addPoints(EMPTY_SUMMARY, columns.steps.subarray(i, j), columns.values.subarray(i, j));
    summary = i > 0 ? combineSummaries(part, summary) : combineSummaries(summary, part);
  }
  return summary;
}

/**
 * Collects the points of a read in order: skips the first `skip` points within the pieces (without
 * loading a chunk wholly skipped), then keeps up to `limit` points.
 */
export class PointCollector {
  readonly points: Point[] = [];
  constructor(
    private readonly limit: number,
    private skip = 0,
  ) {}

  /** Whether the chunk, lying wholly inside the piece, is skipped whole (its points need not be loaded). */
  skipsWhole(chunk: ChunkMeta, piece: Piece): boolean {
    if (chunk.point_count > this.skip || chunk.start_step < piece.from || chunk.end_step > piece.to) return false;
    this.skip -= chunk.point_count;
    return true;
  }

  /** Adds a chunk's points within the piece; false once `limit` points are there. */
  add(columns: PointColumns, piece: Piece): boolean {
    for (let i = 0; i < columns.steps.length; i++) {
      const step = columns.steps[i]!;
      if (step < piece.from || step > piece.to) continue;
      if (this.skip > 0) {
        this.skip--;
        continue;
      }
      this.points.push({ step, value: columns.values[i]!, time: columns.times[i]!, writtenAt: columns.writtenAt[i]! });
      if (this.points.length >= this.limit) return false;
    }
    return true;
  }
}

/** A chunk row as a block of domain/sampling.ts, for the part of it inside the piece. */
export function chunkBlock(row: ChunkBlockRow, piece: Piece): PointBlock {
  const [, startStep, endStep, count, min, minStep, minTime, max, maxStep, maxTime, nanStep, infStep, negInfStep] = row;
  return {
    startStep,
    endStep,
    count,
    lowStep: piece.from,
    highStep: piece.to,
    min: min ?? null,
    minStep: minStep ?? null,
    minTime: minTime ?? null,
    max: max ?? null,
    maxStep: maxStep ?? null,
    maxTime: maxTime ?? null,
    nanStep: nanStep ?? null,
    infStep: infStep ?? null,
    negInfStep: negInfStep ?? null,
  };
}

/** A series' summary from its segments' summaries, oldest first; undefined when it has none. */
export function combineSegmentSummaries(parts: MetricSummaryState[]): MetricSummaryState | undefined {
  let summary: MetricSummaryState | undefined;
  for (const part of parts) summary = summary ? combineSummaries(summary, part) : part;
  return summary;
}

/** Metric names found across a run's lineage, filtered by a case-insensitive search, ascending, at most `limit`. */
export function searchNames(names: Iterable<string>, search: string | undefined, limit: number): string[] {
  const needle = search?.toLowerCase();
  return [...new Set(names)]
    .filter((name) => !needle || name.toLowerCase().includes(needle))
    .sort()
    .slice(0, limit);
}
