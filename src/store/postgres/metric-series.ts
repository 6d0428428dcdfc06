import { piecesOf, type Segment } from "../../domain/lineage.js";
import { samplePoints, type Point, type PointBlock, type PointReader, type SampledPoint } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { addBoundaryPoints, boundaryChunks, chunkBlock, collectPoints } from "../metric-series.js";
import type { Sql } from "./db.js";
import {
  chunkAtOrAfter,
  chunkAtOrBefore,
  chunkBlocksOverlapping,
  chunksOverlapping,
  loadChunks,
  loadChunkViews,
  summarizeChunksInside,
} from "./metric-chunks.js";

/** Summary of the points of one metric within [from, to], from chunk aggregates plus at most two partly covered chunks. */
export async function summarizePiece(sql: Sql, metricId: number, from: number, to: number): Promise<MetricSummaryState> {
  const piece = { metricId, from, to };
  const boundary = boundaryChunks(piece, await chunkAtOrAfter(sql, metricId, from), await chunkAtOrBefore(sql, metricId, to));
  return addBoundaryPoints(await summarizeChunksInside(sql, metricId, from, to), await loadChunks(sql, boundary), from, to);
}

/** Reads the points of the segments within [from, to], ascending, stopping after `limit`. */
export async function readSegments(sql: Sql, segments: Segment[], from: number, to: number, limit = Infinity): Promise<Point[]> {
  const points: Point[] = [];
  for (const piece of piecesOf(segments, from, to)) {
    const chunks = await chunksOverlapping(sql, piece.metricId, piece.from, piece.to);
    // Points are fetched a few chunks per round trip, and no further than `limit` needs.
    for (let i = 0; i < chunks.length; i += READ_AHEAD) {
      for (const columns of await loadChunks(sql, chunks.slice(i, i + READ_AHEAD))) {
        if (!collectPoints(columns, piece, points, limit)) return points;
      }
    }
  }
  return points;
}

/** Chunks fetched per round trip when reading points in order. */
const READ_AHEAD = 32;

/** Chunks fetched per round trip when sampling (~16 KiB each). */
const SAMPLE_FETCH = 256;

/**
 * Stands in for a block whose points are not fetched yet: as many points as it holds, spread over
 * its step range, valued at its minimum. Only the trial runs of sampleSegments see it.
 */
function standIn(block: PointBlock): PointReader {
  const span = block.endStep - block.startStep;
  const value = block.min ?? 0;
  return {
    count: block.count,
    stepAt: (i) => (block.count === 1 ? block.startStep : block.startStep + Math.floor((i * span) / (block.count - 1))),
    valueAt: () => value,
    timeAt: () => 0,
  };
}

/**
 * The deterministic sample of domain/sampling.ts over the segments' stored chunks within [from, to].
 * The sampler reads a chunk's points synchronously, only when its aggregates are not enough (the
 * chunks straddling a bucket edge, a few hundred of ~10,000 for a 5M-point series); here each read
 * is a round trip. So the sampler runs as a trial first, on the points fetched so far and a stand-in
 * for the others, noting every chunk it reads; those are fetched, a few hundred per query, and it
 * runs again, until a run reads only fetched points: that run's sample is exactly the SQLite
 * store's. The stand-ins only steer the trial runs, so two or three runs suffice (a run costs far
 * less than a round trip). The sampler used to stop at the first missing chunk and fetch it and the
 * next chunks in order: one round trip per chunk it needed, ~250 for the 5M-point series.
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
  const ids = new Map<PointBlock, { id: number; point_count: number }>();
  const blocks: PointBlock[] = [];
  for (const piece of piecesOf(segments, from, to)) {
    for (const row of await chunkBlocksOverlapping(sql, piece.metricId, piece.from, piece.to)) {
      const block = chunkBlock(row, piece);
      blocks.push(block);
      ids.set(block, { id: row[0], point_count: block.count });
    }
  }
  const fetched = new Map<number, PointReader>();
  for (;;) {
    const missing = new Map<number, { id: number; point_count: number }>();
    const points = samplePoints(
      {
        blocks,
        read(block) {
          const chunk = ids.get(block)!;
          const reader = fetched.get(chunk.id);
          if (reader) return reader;
          missing.set(chunk.id, chunk);
          return standIn(block);
        },
      },
      limit,
    );
    if (missing.size === 0) return points;
    const wanted = [...missing.values()];
    for (let i = 0; i < wanted.length; i += SAMPLE_FETCH) {
      for (const [id, view] of await loadChunkViews(sql, wanted.slice(i, i + SAMPLE_FETCH))) fetched.set(id, view);
    }
    if (wanted.some((chunk) => !fetched.has(chunk.id))) return undefined;
  }
}
