import { lowerBound, type Point, type SeriesAccess } from "../../domain/sampling.js";
import { addPoints, type MetricSummaryState } from "../../domain/summaries.js";
import type { ChunkView, PointColumns } from "../metric-chunks.js";
import type { Statements } from "./db.js";
import {
  aggregateInside, chunkAtOrAfter, chunkAtOrBefore, chunksOverlapping, extremeInside, lastValueInside, loadChunk, loadChunkView, type ChunkMeta,
} from "./metric-chunks.js";

/**
 * One run's stored points of a metric that belong to a (possibly inherited) series: the points
 * with step ≤ maxStep. A forked run's series is its lineage's segments, ascending and disjoint.
 */
export interface Segment {
  runId: number;
  metricId: number;
  maxStep: number;
}

interface Piece {
  metricId: number;
  from: number;
  to: number;
}

function piecesOf(segments: Segment[], from: number, to: number): Piece[] {
  return segments.map((seg) => ({ metricId: seg.metricId, from, to: Math.min(to, seg.maxStep) })).filter((piece) => piece.from <= piece.to);
}

/** The chunks of a piece that stick out of it on either side (at most two), which range aggregates cannot cover. */
function boundaryChunks(s: Statements, piece: Piece): ChunkMeta[] {
  const low = chunkAtOrAfter(s, piece.metricId, piece.from);
  const high = chunkAtOrBefore(s, piece.metricId, piece.to);
  const out: ChunkMeta[] = [];
  if (low && low.start_step <= piece.to && (low.start_step < piece.from || low.end_step > piece.to)) out.push(low);
  if (high && high.id !== low?.id && high.end_step >= piece.from && (high.start_step < piece.from || high.end_step > piece.to)) out.push(high);
  return out;
}

function pointAt(columns: PointColumns, i: number): Point {
  return { step: columns.steps[i]!, value: columns.values[i]!, time: columns.times[i]!, writtenAt: columns.writtenAt[i]! };
}

function countWithin(view: ChunkView, piece: Piece): number {
  return lowerBound(view.count, view.stepAt, piece.to + 1) - lowerBound(view.count, view.stepAt, piece.from);
}

function viewPoint(view: ChunkView, i: number): Point {
  return { step: view.stepAt(i), value: view.valueAt(i), time: view.timeAt(i), writtenAt: view.writtenAt(i) };
}

/** Summary of the points of one piece, from chunk aggregates plus at most two partly covered chunks. */
export function summarizePiece(s: Statements, metricId: number, from: number, to: number): MetricSummaryState {
  const inside = aggregateInside(s, metricId, from, to);
  const last = lastValueInside(s, metricId, from, to);
  let summary: MetricSummaryState = {
    count: inside.finite_count,
    nonFiniteCount: inside.point_count - inside.finite_count,
    min: inside.min,
    max: inside.max,
    sum: inside.sum,
    sumSq: inside.sum_sq,
    firstStep: inside.first_step,
    lastStep: inside.last_step,
    lastValue: last?.value ?? null,
    lastValueStep: last?.step ?? null,
  };
  for (const chunk of boundaryChunks(s, { metricId, from, to })) {
    const columns = loadChunk(s, chunk);
    const i = lowerBound(columns.steps.length, (k) => columns.steps[k]!, from);
    const j = lowerBound(columns.steps.length, (k) => columns.steps[k]!, to + 1);
    summary = addPoints(summary, columns.steps.subarray(i, j), columns.values.subarray(i, j));
  }
  return summary;
}

/** Reads the points of the segments within [from, to], ascending, stopping after `limit`. */
export function readSegments(s: Statements, segments: Segment[], from: number, to: number, limit = Infinity): Point[] {
  const points: Point[] = [];
  for (const piece of piecesOf(segments, from, to)) {
    for (const chunk of chunksOverlapping(s, piece.metricId, piece.from, piece.to)) {
      const columns = loadChunk(s, chunk);
      for (let i = 0; i < columns.steps.length; i++) {
        const step = columns.steps[i]!;
        if (step < piece.from || step > piece.to) continue;
        points.push(pointAt(columns, i));
        if (points.length >= limit) return points;
      }
    }
  }
  return points;
}

/**
 * SeriesAccess over stored chunks: counts and extremes come from chunk aggregates and step
 * look-ups from the chunk index, so sampling loads only the chunks its targets fall in.
 */
export function storedSeries(s: Statements, segments: Segment[], from: number, to: number): SeriesAccess {
  const pieces = piecesOf(segments, from, to);
  const loaded = new Map<number, ChunkView>();
  const load = (chunk: ChunkMeta) => {
    let view = loaded.get(chunk.id);
    if (!view) loaded.set(chunk.id, (view = loadChunkView(s, chunk)));
    return view;
  };
  const firstIn = (piece: Piece, step: number): Point | undefined => {
    const target = Math.max(step, piece.from);
    if (target > piece.to) return undefined;
    const chunk = chunkAtOrAfter(s, piece.metricId, target);
    if (!chunk || chunk.start_step > piece.to) return undefined;
    const view = load(chunk);
    const i = lowerBound(view.count, view.stepAt, target);
    return i < view.count && view.stepAt(i) <= piece.to ? viewPoint(view, i) : undefined;
  };
  const better = (a: Point | undefined, b: Point | undefined, sign: 1 | -1) =>
    !a ? b : !b ? a : sign * (b.value - a.value) < 0 || (b.value === a.value && b.step < a.step) ? b : a;

  return {
    countUpTo: (cap) => {
      let count = 0;
      for (const piece of pieces) {
        // Every chunk holds at least one point, so cap + 1 chunks always decide.
        for (const chunk of chunksOverlapping(s, piece.metricId, piece.from, piece.to, cap + 1)) {
          count += chunk.start_step >= piece.from && chunk.end_step <= piece.to ? chunk.point_count : countWithin(load(chunk), piece);
          if (count > cap) return count;
        }
      }
      return count;
    },
    readAll: () => readSegments(s, segments, from, to),
    first: () => {
      for (const piece of pieces) {
        const point = firstIn(piece, piece.from);
        if (point) return point;
      }
      return undefined;
    },
    last: () => {
      for (const piece of [...pieces].reverse()) {
        const chunk = chunkAtOrBefore(s, piece.metricId, piece.to);
        if (!chunk || chunk.end_step < piece.from) continue;
        const view = load(chunk);
        const i = lowerBound(view.count, view.stepAt, piece.to + 1) - 1;
        if (i >= 0 && view.stepAt(i) >= piece.from) return viewPoint(view, i);
      }
      return undefined;
    },
    extremes: () => {
      let min: Point | undefined;
      let max: Point | undefined;
      for (const piece of pieces) {
        for (const [which, sign] of [["min", 1], ["max", -1]] as const) {
          const inside = extremeInside(s, piece.metricId, piece.from, piece.to, which);
          const candidate = inside ? firstIn(piece, inside.step) : undefined;
          if (which === "min") min = better(min, candidate, sign);
          else max = better(max, candidate, sign);
        }
        for (const chunk of boundaryChunks(s, piece)) {
          const view = load(chunk);
          for (let i = 0; i < view.count; i++) {
            const step = view.stepAt(i);
            if (step < piece.from || step > piece.to || !Number.isFinite(view.valueAt(i))) continue;
            min = better(min, viewPoint(view, i), 1);
            max = better(max, viewPoint(view, i), -1);
          }
        }
      }
      return { min, max };
    },
    firstAtOrAfter: (step) => {
      for (const piece of pieces) {
        const point = firstIn(piece, step);
        if (point) return point;
      }
      return undefined;
    },
  };
}
