import type { MetricSummaryState } from "../../domain/summaries.js";
import {
  CHUNK_ROW_COLUMNS,
  chunkRowValues,
  decodeChunk,
  encodeChunk,
  MAX_CHUNK_POINTS,
  SAMPLED_BYTES_PER_POINT,
  viewChunk,
} from "../metric-chunks.js";
import type { ChunkView, PointColumns } from "../metric-chunks.js";
import { CHUNK_BLOCK, CHUNK_META, CHUNK_SUMMARY, summarizeChunkRows } from "../metric-series.js";
import type { ChunkBlockRow, ChunkMeta, ChunkSummaryRow } from "../metric-series.js";
import { arrays, row, rows, run, type Sql } from "./db.js";

const CHUNK_COLUMNS = ["metric_id", ...CHUNK_ROW_COLUMNS, "points"];

/**
 * Chunk rows per INSERT: 64 × 19 parameters. Multi-row INSERT is the fastest way `pg` writes chunk
 * rows (docs/decisions.md, "PostgreSQL driver"); one batch of ingest writes ~100-150 rows, so at
 * 16 per statement it took 7-10 round trips, at 64 two or three.
 */
const CHUNKS_PER_INSERT = 64;

const insertText = new Map<number, string>();
/** The multi-row INSERT of n chunk rows (one text per n ≤ CHUNKS_PER_INSERT, so each is prepared once per connection). */
function insertChunksSql(n: number): string {
  let text = insertText.get(n);
  if (!text) {
    const tuples = Array.from(
      { length: n },
      (_, r) => `(${CHUNK_COLUMNS.map((_, c) => `$${r * CHUNK_COLUMNS.length + c + 1}`).join(", ")})`,
    );
    text = `INSERT INTO metric_chunks (${CHUNK_COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`;
    insertText.set(n, text);
  }
  return text;
}

/**
 * Writes each metric's columns as chunks of at most MAX_CHUNK_POINTS points, each with its
 * aggregates, all in multi-row INSERTs of up to CHUNKS_PER_INSERT rows.
 */
export async function insertChunks(sql: Sql, writes: { metricId: number; columns: PointColumns }[]): Promise<void> {
  let batch: unknown[] = [];
  let count = 0;
  const flush = async () => {
    if (count > 0) await run(sql, insertChunksSql(count), batch);
    batch = [];
    count = 0;
  };
  for (const { metricId, columns } of writes) {
    for (let from = 0; from < columns.steps.length; from += MAX_CHUNK_POINTS) {
      const to = Math.min(from + MAX_CHUNK_POINTS, columns.steps.length);
      batch.push(metricId, ...chunkRowValues(columns, from, to), encodeChunk(columns, from, to));
      if (++count === CHUNKS_PER_INSERT) await flush();
    }
  }
  await flush();
}

export async function deleteChunks(sql: Sql, chunkIds: number[]): Promise<void> {
  if (chunkIds.length > 0) await run(sql, "DELETE FROM metric_chunks WHERE id = ANY($1::bigint[])", [chunkIds]);
}

/**
 * Chunk points leave PostgreSQL as base64 text (docs/decisions.md, "Chunk points from PostgreSQL"):
 * `pg` reads a bytea in text results as hex, twice the bytes, and cannot take binary results for it.
 * PostgreSQL breaks base64 into lines, which Buffer.from skips.
 */
const base64Of = (bytea: string) => `encode(${bytea}, 'base64')`;
/** The points sampling reads (SAMPLED_BYTES_PER_POINT): an external (uncompressed) bytea is read only as far as that. */
const SAMPLED_POINTS = `substring(points from 1 for point_count * ${SAMPLED_BYTES_PER_POINT})`;

function pointsFromBase64(text: string): Buffer {
  return Buffer.from(text, "base64");
}

/** The points of chunks by ID, in one query. */
export async function loadChunks(sql: Sql, chunks: Pick<ChunkMeta, "id" | "point_count">[]): Promise<PointColumns[]> {
  if (chunks.length === 0) return [];
  const found = await arrays<[number, string]>(sql, `SELECT id, ${base64Of("points")} FROM metric_chunks WHERE id = ANY($1::bigint[])`, [
    chunks.map((chunk) => chunk.id),
  ]);
  const blobs = new Map(found);
  return chunks.map((chunk) => decodeChunk(pointsFromBase64(blobs.get(chunk.id)!), chunk.point_count));
}

/** Views of the points of chunks by ID, in one query, without their server write times (sampling reads a few points of many chunks). */
export async function loadChunkViews(sql: Sql, chunks: Pick<ChunkMeta, "id" | "point_count">[]): Promise<Map<number, ChunkView>> {
  const views = new Map<number, ChunkView>();
  if (chunks.length === 0) return views;
  const counts = new Map(chunks.map((chunk) => [chunk.id, chunk.point_count]));
  const found = await arrays<[number, string]>(
    sql,
    `SELECT id, ${base64Of(SAMPLED_POINTS)} FROM metric_chunks WHERE id = ANY($1::bigint[])`,
    [[...counts.keys()]],
  );
  for (const [id, points] of found) views.set(id, viewChunk(pointsFromBase64(points), counts.get(id)!));
  return views;
}

/** The chunks of a metric that hold any step in [from, to], ascending. */
export function chunksOverlapping(sql: Sql, metricId: number, from: number, to: number): Promise<ChunkMeta[]> {
  return rows<ChunkMeta>(
    sql,
    `SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = $1 AND end_step >= $2 AND start_step <= $3 ORDER BY end_step, id`,
    [metricId, from, to],
  );
}

/**
 * The last chunk of each metric that has one, in one query (an index probe per metric), with its
 * points when it holds fewer than `withPointsBelow` (a chunk an append may extend).
 */
export async function lastChunks(
  sql: Sql,
  metricIds: number[],
  withPointsBelow: number,
): Promise<Map<number, ChunkMeta & { points: Buffer | null }>> {
  const found = new Map<number, ChunkMeta & { points: Buffer | null }>();
  if (metricIds.length === 0) return found;
  const last = await rows<ChunkMeta & { metric_id: number; points: string | null }>(
    sql,
    `SELECT m.id AS metric_id, c.id, c.start_step, c.end_step, c.point_count,
       CASE WHEN c.point_count < $2 THEN ${base64Of("c.points")} END AS points
     FROM unnest($1::bigint[]) AS m(id)
     CROSS JOIN LATERAL (SELECT ${CHUNK_META}, points FROM metric_chunks WHERE metric_id = m.id ORDER BY end_step DESC, id DESC LIMIT 1) AS c`,
    [metricIds, withPointsBelow],
  );
  for (const { metric_id, points, ...chunk } of last)
    found.set(metric_id, { ...chunk, points: points === null ? null : pointsFromBase64(points) });
  return found;
}

/** The first chunk, in chunk order, ending at or after `step`: the first holding it, else the first after it. */
export function chunkAtOrAfter(sql: Sql, metricId: number, step: number): Promise<ChunkMeta | undefined> {
  return row<ChunkMeta>(
    sql,
    `SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = $1 AND end_step >= $2 ORDER BY end_step, id LIMIT 1`,
    [metricId, step],
  );
}

/** The first chunk, in chunk order, ending after `step`. */
export function chunkEndingAfter(sql: Sql, metricId: number, step: number): Promise<ChunkMeta | undefined> {
  return row<ChunkMeta>(
    sql,
    `SELECT ${CHUNK_META} FROM metric_chunks WHERE metric_id = $1 AND end_step > $2 ORDER BY end_step, id LIMIT 1`,
    [metricId, step],
  );
}

/**
 * The chunks of a metric that hold any step in [from, to], ascending, in one query. The index range
 * ends at `to`; the one chunk that may start inside and end past it is looked up by a second index
 * probe, so a window early in a long series does not scan the chunks after it.
 */
export async function chunkBlocksOverlapping(sql: Sql, metricId: number, from: number, to: number): Promise<ChunkBlockRow[]> {
  const found = await arrays<ChunkBlockRow>(
    sql,
    `SELECT ${CHUNK_BLOCK} FROM metric_chunks WHERE metric_id = $1 AND end_step >= $2 AND end_step <= $3
     UNION ALL
     SELECT * FROM (SELECT ${CHUNK_BLOCK} FROM metric_chunks WHERE metric_id = $1 AND end_step > $3 ORDER BY end_step, id LIMIT 1) AS straddling
     WHERE start_step <= $3`,
    [metricId, from, to],
  );
  // UNION ALL promises no order; sorting rows that come in order, as they do, costs next to nothing (a sorted
  // run is one pass), and a sort in SQL would be a sort step in every plan.
  return found.sort((a, b) => a[2] - b[2] || a[0] - b[0]);
}

/** The summary of the chunks lying wholly inside [from, to], from chunk rows alone. */
export async function summarizeChunksInside(sql: Sql, metricId: number, from: number, to: number): Promise<MetricSummaryState> {
  const found = await arrays<ChunkSummaryRow>(
    sql,
    `SELECT ${CHUNK_SUMMARY} FROM metric_chunks WHERE metric_id = $1 AND end_step <= $2 AND start_step >= $3 ORDER BY end_step, id`,
    [metricId, to, from],
  );
  return summarizeChunkRows(found);
}
