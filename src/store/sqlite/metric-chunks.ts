import { aggregateChunk, decodeChunk, encodeChunk, MAX_CHUNK_POINTS, viewChunk, type ChunkView, type PointColumns } from "../metric-chunks.js";
import type { Statements } from "./db.js";

/** A chunk row without its points. */
export interface ChunkMeta {
  id: number;
  start_step: number;
  end_step: number;
  point_count: number;
}

export const CHUNK_META = "id, start_step, end_step, point_count";

/** Writes columns as chunks of at most MAX_CHUNK_POINTS points, each with its aggregates. */
export function insertChunks(s: Statements, metricId: number, columns: PointColumns): void {
  const insertMeta = s.get(
    `INSERT INTO metric_chunks (metric_id, start_step, end_step, point_count, finite_count, sum, sum_sq, min, min_step, max, max_step,
                                last_value, last_value_step)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertPoints = s.get("INSERT INTO metric_chunk_points (chunk_id, points) VALUES (?, ?)");
  for (let from = 0; from < columns.steps.length; from += MAX_CHUNK_POINTS) {
    const to = Math.min(from + MAX_CHUNK_POINTS, columns.steps.length);
    const a = aggregateChunk(columns, from, to);
    const { lastInsertRowid } = insertMeta.run(
      metricId,
      columns.steps[from]!,
      columns.steps[to - 1]!,
      to - from,
      a.finiteCount,
      a.sum,
      a.sumSq,
      a.min,
      a.minStep,
      a.max,
      a.maxStep,
      a.lastValue,
      a.lastValueStep,
    );
    insertPoints.run(lastInsertRowid, encodeChunk(columns, from, to));
  }
}

export function deleteChunk(s: Statements, chunkId: number): void {
  s.get("DELETE FROM metric_chunk_points WHERE chunk_id = ?").run(chunkId);
  s.get("DELETE FROM metric_chunks WHERE id = ?").run(chunkId);
}

function chunkBlob(s: Statements, chunkId: number): Buffer {
  return (s.get("SELECT points FROM metric_chunk_points WHERE chunk_id = ?").get(chunkId) as { points: Buffer }).points;
}

export function loadChunk(s: Statements, chunk: Pick<ChunkMeta, "id" | "point_count">): PointColumns {
  return decodeChunk(chunkBlob(s, chunk.id), chunk.point_count);
}

export function loadChunkView(s: Statements, chunk: Pick<ChunkMeta, "id" | "point_count">): ChunkView {
  return viewChunk(chunkBlob(s, chunk.id), chunk.point_count);
}

/** The first `limit` chunks of a metric that hold any step in [from, to], ascending. */
export function chunksOverlapping(s: Statements, metricId: number, from: number, to: number, limit = -1): ChunkMeta[] {
  return s
    .get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step >= ? AND start_step <= ? ORDER BY end_step LIMIT ?`)
    .all(metricId, from, to, limit) as ChunkMeta[];
}

/** The chunk holding `step`, else the first chunk after it. */
export function chunkAtOrAfter(s: Statements, metricId: number, step: number): ChunkMeta | undefined {
  return s.get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step >= ? ORDER BY end_step LIMIT 1`).get(metricId, step) as
    | ChunkMeta
    | undefined;
}

/** The chunk holding `step`, else the last chunk before it. */
export function chunkAtOrBefore(s: Statements, metricId: number, step: number): ChunkMeta | undefined {
  const atOrAfter = chunkAtOrAfter(s, metricId, step);
  if (atOrAfter && atOrAfter.start_step <= step) return atOrAfter;
  return s.get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step < ? ORDER BY end_step DESC LIMIT 1`).get(metricId, step) as
    | ChunkMeta
    | undefined;
}

export interface RangeAggregates {
  point_count: number;
  finite_count: number;
  sum: number;
  sum_sq: number;
  min: number | null;
  max: number | null;
  first_step: number | null;
  last_step: number | null;
}

/** Aggregates over the chunks lying wholly inside [from, to], computed from chunk rows alone. */
export function aggregateInside(s: Statements, metricId: number, from: number, to: number): RangeAggregates {
  return s
    .get(
      `SELECT coalesce(sum(point_count), 0) AS point_count, coalesce(sum(finite_count), 0) AS finite_count, coalesce(sum(sum), 0) AS sum,
              coalesce(sum(sum_sq), 0) AS sum_sq, min(min) AS min, max(max) AS max, min(start_step) AS first_step, max(end_step) AS last_step
       FROM metric_chunks WHERE metric_id = ? AND end_step <= ? AND start_step >= ?`,
    )
    .get(metricId, to, from) as RangeAggregates;
}

/** The chunk inside [from, to] holding the lowest (or highest) finite value, lowest step on ties. */
export function extremeInside(s: Statements, metricId: number, from: number, to: number, which: "min" | "max"): { value: number; step: number } | undefined {
  const sql =
    which === "min"
      ? "SELECT min AS value, min_step AS step FROM metric_chunks WHERE metric_id = ? AND end_step <= ? AND start_step >= ? AND min IS NOT NULL ORDER BY min, min_step LIMIT 1"
      : "SELECT max AS value, max_step AS step FROM metric_chunks WHERE metric_id = ? AND end_step <= ? AND start_step >= ? AND max IS NOT NULL ORDER BY max DESC, max_step LIMIT 1";
  return s.get(sql).get(metricId, to, from) as { value: number; step: number } | undefined;
}

/** The finite value at the highest step within [from, to] among chunks wholly inside it. */
export function lastValueInside(s: Statements, metricId: number, from: number, to: number): { value: number; step: number } | undefined {
  return s
    .get(
      `SELECT last_value AS value, last_value_step AS step FROM metric_chunks
       WHERE metric_id = ? AND end_step <= ? AND start_step >= ? AND last_value_step IS NOT NULL ORDER BY end_step DESC LIMIT 1`,
    )
    .get(metricId, to, from) as { value: number; step: number } | undefined;
}
