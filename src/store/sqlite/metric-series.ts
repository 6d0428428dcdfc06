import { piecesOf, type Segment } from "../../domain/lineage.js";
import type { BlockSeries, Point, PointBlock } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { addBoundaryPoints, boundaryChunks, chunkBlock, PointCollector } from "../metric-series.js";
import type { Statements } from "./statements.js";
import {
  chunkAtOrAfter,
  chunkEndingAfter,
  chunkBlocksOverlapping,
  chunksOverlapping,
  loadChunk,
  loadChunkView,
  summarizeChunksInside,
} from "./metric-chunks.js";

/** Summary of the points of one metric within [from, to], from chunk aggregates plus at most two partly covered chunks. */
export function summarizePiece(s: Statements, metricId: number, from: number, to: number): MetricSummaryState {
  const piece = { metricId, from, to };
  const boundary = boundaryChunks(piece, chunkAtOrAfter(s, metricId, from), chunkEndingAfter(s, metricId, to));
  return addBoundaryPoints(
    summarizeChunksInside(s, metricId, from, to),
    boundary.map((chunk) => loadChunk(s, chunk)),
    from,
    to,
  );
}

/** Reads the points of the segments within [from, to], in the point order, after the first `skip`, stopping after `limit`. */
export function readSegments(s: Statements, segments: Segment[], from: number, to: number, limit = Infinity, skip = 0): Point[] {
  const collector = new PointCollector(limit, skip);
  for (const piece of piecesOf(segments, from, to)) {
    for (const chunk of chunksOverlapping(s, piece.metricId, piece.from, piece.to)) {
      if (!collector.skipsWhole(chunk, piece) && !collector.add(loadChunk(s, chunk), piece)) return collector.points;
    }
  }
  return collector.points;
}

/**
 * The segments' stored chunks within [from, to] as blocks for domain/sampling.ts: their aggregates
 * come from chunk rows, and a chunk's points are read only when the sampler asks for them.
 */
export function storedSeries(s: Statements, segments: Segment[], from: number, to: number): BlockSeries {
  const chunks = new Map<PointBlock, { id: number; point_count: number }>();
  const blocks: PointBlock[] = [];
  for (const piece of piecesOf(segments, from, to)) {
    for (const row of chunkBlocksOverlapping(s, piece.metricId, piece.from, piece.to)) {
      const block = chunkBlock(row, piece);
      blocks.push(block);
      chunks.set(block, { id: row[0], point_count: block.count });
    }
  }
  return { blocks, read: (block) => loadChunkView(s, chunks.get(block)!) };
}
