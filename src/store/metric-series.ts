import type { Piece } from "../domain/lineage.js";
import { lowerBound, type Point, type PointBlock } from "../domain/sampling.js";
import { addPoints, combineSummaries, EMPTY_SUMMARY, removePoints, type MetricSummaryState } from "../domain/summaries.js";
import { concatColumns, mergeColumns, MAX_CHUNK_POINTS, SMALL_CHUNK_POINTS, type PointColumns } from "./metric-chunks.js";

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
 * The client time of the point at a metric's last step once `incoming` is written (`lastStep` is the
 * summary's after the write): the incoming point's when it holds that step (ascending steps, so
 * it is the last one), else the stored time, which may be null (not known: the point must be read).
 */
export function lastTimeAfter(storedLastTime: number | null, lastStep: number | null, incoming: PointColumns): number | null {
  const last = incoming.steps.length - 1;
  return last >= 0 && incoming.steps[last] === lastStep ? incoming.times[last]! : storedLastTime;
}

/** The common case of ingest: every incoming step is past the stored ones, so nothing is replaced. */
export function appendsAfterLastStep(storedLastStep: number | null, incoming: PointColumns): boolean {
  return storedLastStep === null || incoming.steps[0]! > storedLastStep;
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
): { merged: PointColumns; summary: MetricSummaryState | "rescan" } | undefined {
  const { merged, removed, added } = mergeColumns(stored, incoming);
  if (removed.steps.length === 0 && added.steps.length === 0) return undefined;
  const { state, rescan } = removePoints(summary, removed.values);
  return { merged, summary: rescan ? "rescan" : addPoints(state, added.steps, added.values) };
}

// Reads.

/**
 * The chunks of a piece that stick out of it on either side (at most two), which range aggregates
 * cannot cover: from the chunk at or after `from` and the chunk at or before `to`.
 */
export function boundaryChunks(piece: Piece, low: ChunkMeta | undefined, high: ChunkMeta | undefined): ChunkMeta[] {
  const out: ChunkMeta[] = [];
  if (low && low.start_step <= piece.to && (low.start_step < piece.from || low.end_step > piece.to)) out.push(low);
  if (high && high.id !== low?.id && high.end_step >= piece.from && (high.start_step < piece.from || high.end_step > piece.to))
    out.push(high);
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

/** Adds the points within [from, to] of partly covered chunks to the summary of the chunks inside. */
export function addBoundaryPoints(inside: MetricSummaryState, boundary: PointColumns[], from: number, to: number): MetricSummaryState {
  let summary = inside;
  for (const columns of boundary) {
    const i = lowerBound(columns.steps.length, (k) => columns.steps[k]!, from);
    const j = lowerBound(columns.steps.length, (k) => columns.steps[k]!, to + 1);
    summary = addPoints(summary, columns.steps.subarray(i, j), columns.values.subarray(i, j));
  }
  return summary;
}

/** Adds a chunk's points within the piece to `points`; false once `limit` points are there. */
export function collectPoints(columns: PointColumns, piece: Piece, points: Point[], limit: number): boolean {
  for (let i = 0; i < columns.steps.length; i++) {
    const step = columns.steps[i]!;
    if (step < piece.from || step > piece.to) continue;
    points.push({ step, value: columns.values[i]!, time: columns.times[i]!, writtenAt: columns.writtenAt[i]! });
    if (points.length >= limit) return false;
  }
  return true;
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
