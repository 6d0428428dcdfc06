import { piecesOf, type Segment } from "../../domain/lineage.js";
import { likelyReads, sampleFetched, type Point, type PointBlock, type PointReader, type SampledPoint } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { addBoundaryPoints, boundaryChunks, chunkBlock, PointCollector } from "../metric-series.js";
import type { Sql } from "./db.js";
import {
  chunkAtOrAfter,
  chunkEndingAfter,
  chunkBlocksOverlapping,
  chunksOverlapping,
  loadChunks,
  loadChunkViews,
  summarizeChunksInside,
} from "./metric-chunks.js";

/** Summary of the points of one metric within [from, to], from chunk aggregates plus at most two partly covered chunks. */
export async function summarizePiece(sql: Sql, metricId: number, from: number, to: number): Promise<MetricSummaryState> {
  const piece = { metricId, from, to };
  const boundary = boundaryChunks(piece, await chunkAtOrAfter(sql, metricId, from), await chunkEndingAfter(sql, metricId, to));
  return addBoundaryPoints(await summarizeChunksInside(sql, metricId, from, to), await loadChunks(sql, boundary), from, to);
}

/** Reads the points of the segments within [from, to], in the point order, after the first `skip`, stopping after `limit`. */
export async function readSegments(sql: Sql, segments: Segment[], from: number, to: number, limit = Infinity, skip = 0): Promise<Point[]> {
  const collector = new PointCollector(limit, skip);
  for (const piece of piecesOf(segments, from, to)) {
    const overlapping = await chunksOverlapping(sql, piece.metricId, piece.from, piece.to);
    let first = 0;
    while (first < overlapping.length && collector.skipsWhole(overlapping[first]!, piece)) first++;
    const chunks = overlapping.slice(first);
    // Points are fetched a few chunks per round trip, and no further than `limit` needs.
    for (let i = 0; i < chunks.length; i += READ_AHEAD) {
      for (const columns of await loadChunks(sql, chunks.slice(i, i + READ_AHEAD))) {
        if (!collector.add(columns, piece)) return collector.points;
      }
    }
  }
  return collector.points;
}

/** Chunks fetched per round trip when reading points in order. */
const READ_AHEAD = 32;

/**
 * Most queries fetching chunk points for one sample at once, each on its own pooled connection, so
 * PostgreSQL reads and encodes them on several cores: one query per FETCH_SLICE chunks (a few
 * chunks are not worth a second connection), at most FETCH_QUERIES, sharing the chunks evenly.
 */
const FETCH_QUERIES = 4;
const FETCH_SLICE = 32;

/** The sampled points of these chunks (loadChunkViews), in up to FETCH_QUERIES concurrent queries. */
async function fetchViews(sql: Sql, chunks: { id: number; point_count: number }[]): Promise<Map<number, PointReader>> {
  const queries = Math.min(FETCH_QUERIES, Math.ceil(chunks.length / FETCH_SLICE));
  const size = Math.ceil(chunks.length / queries);
  const parts = await Promise.all(Array.from({ length: queries }, (_, q) => loadChunkViews(sql, chunks.slice(q * size, (q + 1) * size))));
  return new Map(parts.flatMap((part) => [...part]));
}

/**
 * The deterministic sample of domain/sampling.ts over the segments' stored chunks within [from, to].
 * The sampler reads a chunk's points synchronously, only when its aggregates are not enough (a few
 * hundred chunks of ~10,000 for a 5M-point series); here each read is a round trip. So the chunks
 * it will likely read are fetched first (likelyReads, from the chunk rows), in a few concurrent
 * queries, and it runs on those (sampleFetched); when it lacked some, they are fetched and it runs
 * again. Its sample is then exactly the SQLite store's.
 */
export async function sampleSegments(sql: Sql, segments: Segment[], from: number, to: number, limit: number): Promise<SampledPoint[]> {
  // A chunk can vanish between reading the chunk rows and fetching its points (a concurrent
  // overwrite replaces chunks); the sample then starts over from the chunk rows.
  for (let attempt = 1; ; attempt++) {
    const points = await sampleOnce(sql, segments, from, to, limit);
    if (points) return points;
    if (attempt === 3) throw new Error("the series kept changing while it was being sampled");
  }
}

/** One sample over the chunk rows as read now; undefined when a chunk it needs is gone. */
async function sampleOnce(sql: Sql, segments: Segment[], from: number, to: number, limit: number): Promise<SampledPoint[] | undefined> {
  const chunks = new Map<PointBlock, { id: number; point_count: number }>();
  const blocks: PointBlock[] = [];
  for (const piece of piecesOf(segments, from, to)) {
    for (const row of await chunkBlocksOverlapping(sql, piece.metricId, piece.from, piece.to)) {
      const block = chunkBlock(row, piece);
      blocks.push(block);
      chunks.set(block, { id: row[0], point_count: block.count });
    }
  }
  const fetched = new Map<PointBlock, PointReader>();
  for (let wanted = likelyReads(blocks, limit); ; ) {
    const views = await fetchViews(
      sql,
      wanted.map((block) => chunks.get(block)!),
    );
    for (const block of wanted) {
      const view = views.get(chunks.get(block)!.id);
      if (!view) return undefined;
      fetched.set(block, view);
    }
    const sample = sampleFetched(blocks, limit, (block) => fetched.get(block));
    if ("points" in sample) return sample.points;
    wanted = sample.missing;
  }
}
