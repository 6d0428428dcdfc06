import { CHUNK_ROW_COLUMNS, chunkRowValues, decodeChunk, encodeChunk, MAX_CHUNK_POINTS, viewChunk } from "../metric-chunks.js";
import type { ChunkView, PointColumns } from "../metric-chunks.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { CHUNK_BLOCK, CHUNK_META, CHUNK_SUMMARY, summarizeChunkRows } from "../metric-series.js";
import type { ChunkBlockRow, ChunkMeta, ChunkSummaryRow } from "../metric-series.js";
import type { Statements } from "./statements.js";

/** Writes columns as chunks of at most MAX_CHUNK_POINTS points, each with its aggregates. */
export function insertChunks(s: Statements, metricId: number, columns: PointColumns): void {
  const insertMeta = s.get(
    `INSERT INTO metric_chunks (metric_id, ${CHUNK_ROW_COLUMNS.join(", ")}) VALUES (?, ${CHUNK_ROW_COLUMNS.map(() => "?").join(", ")})`,
  );
  const insertPoints = s.get("INSERT INTO metric_chunk_points (chunk_id, points) VALUES (?, ?)");
  for (let from = 0; from < columns.steps.length; from += MAX_CHUNK_POINTS) {
    const to = Math.min(from + MAX_CHUNK_POINTS, columns.steps.length);
    const { lastInsertRowid } = insertMeta.run(metricId, ...chunkRowValues(columns, from, to));
    insertPoints.run(lastInsertRowid, encodeChunk(columns, from, to));
  }
}

/**
 * Rewrites one chunk's two rows with `columns`, which fit one chunk (an append extends the last
 * chunk only up to MAX_CHUNK_POINTS): two UPDATEs instead of two DELETEs and two INSERTs.
 */
export function rewriteChunk(s: Statements, chunkId: number, columns: PointColumns): void {
  s.get(`UPDATE metric_chunks SET ${CHUNK_ROW_COLUMNS.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`).run(
    ...chunkRowValues(columns, 0, columns.steps.length),
    chunkId,
  );
  s.get("UPDATE metric_chunk_points SET points = ? WHERE chunk_id = ?").run(encodeChunk(columns), chunkId);
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

/** The chunks of a metric that hold any step in [from, to], ascending. */
export function chunksOverlapping(s: Statements, metricId: number, from: number, to: number): ChunkMeta[] {
  return s
    .get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step >= ? AND start_step <= ? ORDER BY end_step, id`)
    .all(metricId, from, to) as ChunkMeta[];
}

/** The first chunk, in chunk order, ending at or after `step`: the first holding it, else the first after it. */
export function chunkAtOrAfter(s: Statements, metricId: number, step: number): ChunkMeta | undefined {
  return s
    .get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step >= ? ORDER BY end_step, id LIMIT 1`)
    .get(metricId, step) as ChunkMeta | undefined;
}

/** The first chunk, in chunk order, ending after `step`. */
export function chunkEndingAfter(s: Statements, metricId: number, step: number): ChunkMeta | undefined {
  return s
    .get(`SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = ? AND end_step > ? ORDER BY end_step, id LIMIT 1`)
    .get(metricId, step) as ChunkMeta | undefined;
}

/**
 * The chunks of a metric that hold any step in [from, to], ascending. The index range ends at `to`;
 * the one chunk that may start inside and end past it is looked up separately, so a window early in
 * a long series does not scan the chunks after it.
 */
export function chunkBlocksOverlapping(s: Statements, metricId: number, from: number, to: number): ChunkBlockRow[] {
  const rows = s
    .get(`SELECT ${CHUNK_BLOCK} FROM metric_chunks WHERE metric_id = ? AND end_step >= ? AND end_step <= ? ORDER BY end_step, id`)
    .raw(true)
    .all(metricId, from, to) as ChunkBlockRow[];
  const straddling = s
    .get(`SELECT ${CHUNK_BLOCK} FROM metric_chunks WHERE metric_id = ? AND end_step > ? ORDER BY end_step, id LIMIT 1`)
    .raw(true)
    .get(metricId, to) as ChunkBlockRow | undefined;
  if (straddling && straddling[1] <= to) rows.push(straddling);
  return rows;
}

/** The summary of the chunks lying wholly inside [from, to], from chunk rows alone. */
export function summarizeChunksInside(s: Statements, metricId: number, from: number, to: number): MetricSummaryState {
  const rows = s
    .get(`SELECT ${CHUNK_SUMMARY} FROM metric_chunks WHERE metric_id = ? AND end_step <= ? AND start_step >= ? ORDER BY end_step, id`)
    .raw(true)
    .all(metricId, to, from) as ChunkSummaryRow[];
  return summarizeChunkRows(rows);
}
