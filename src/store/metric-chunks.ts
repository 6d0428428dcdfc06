import { blockExtremes, type BlockExtremes, type PointReader } from "../domain/sampling.js";
import { comparePoints, type PointRule } from "../domain/metric-points.js";
import { momentsOf, type Moments } from "../domain/summaries.js";

/**
 * Metric points are stored in chunks: the points of one metric over a step range, as four
 * little-endian float64 columns (step, value, client time, server write time). One SQL row per
 * chunk instead of per point is what lets a single SQLite writer take hundreds of thousands of
 * points per second, and lets a 5M-point series be read as ~50k rows. Non-finite values are
 * stored as IEEE NaN/±Infinity. A chunk's points, and the chunks of a metric, follow the point order
 * (domain/metric-points.ts): by step, then client time, then value. A step holding many points
 * (MLflow's rule keeps them all) may span several chunks, so neighbouring chunks may share their
 * boundary step; chunks are ordered by end step, then ID (metric-series.ts, "Chunk order").
 */
export interface PointColumns {
  steps: Float64Array;
  values: Float64Array;
  times: Float64Array;
  writtenAt: Float64Array;
}

/**
 * Above this a chunk is split. 512 points (16 KiB) keeps a sampled read of a long series cheap:
 * it loads one chunk per sample target, so bytes read grow with the chunk size.
 */
export const MAX_CHUNK_POINTS = 512;
/** Appends smaller than this are merged into the last chunk, so slow loggers do not make one row per point. */
export const SMALL_CHUNK_POINTS = 128;

/**
 * What a chunk row records about its points: finite values only in count/mean/stddev/min/max/last;
 * the client time of the extremes and the first step of each non-finite kind, so sampling can show
 * them without reading the points.
 */
export interface ChunkAggregates extends Moments, BlockExtremes {
  lastValue: number | null;
  lastValueStep: number | null;
}

/** Aggregates of points [from, to); on ties the minimum and maximum keep their lowest step. */
export function aggregateChunk(columns: PointColumns, from = 0, to = columns.steps.length): ChunkAggregates {
  let last = to - 1;
  while (last >= from && !Number.isFinite(columns.values[last]!)) last--;
  return {
    ...momentsOf(columns.values, from, to),
    ...blockExtremes(columns.steps, columns.values, columns.times, from, to),
    lastValue: last >= from ? columns.values[last]! : null,
    lastValueStep: last >= from ? columns.steps[last]! : null,
  };
}

/** The aggregate columns of a chunk row, in the order aggregateValues lists their values; both backends write them so. */
export const CHUNK_AGGREGATE_COLUMNS = [
  "finite_count",
  "mean",
  "stddev",
  "min",
  "min_step",
  "min_time",
  "max",
  "max_step",
  "max_time",
  "last_value",
  "last_value_step",
  "nan_step",
  "inf_step",
  "neg_inf_step",
] as const;

/** A chunk's aggregates as the values of CHUNK_AGGREGATE_COLUMNS, in that order. */
export function aggregateValues(a: ChunkAggregates): (number | null)[] {
  return [
    a.count,
    a.mean,
    a.stddev,
    a.min,
    a.minStep,
    a.minTime,
    a.max,
    a.maxStep,
    a.maxTime,
    a.lastValue,
    a.lastValueStep,
    a.nanStep,
    a.infStep,
    a.negInfStep,
  ];
}

export function encodeChunk(columns: PointColumns, from = 0, to = columns.steps.length): Buffer {
  const n = to - from;
  const out = new Float64Array(n * 4);
  out.set(columns.steps.subarray(from, to), 0);
  out.set(columns.values.subarray(from, to), n);
  out.set(columns.times.subarray(from, to), 2 * n);
  out.set(columns.writtenAt.subarray(from, to), 3 * n);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** The first `doubles` float64s of a chunk in a fresh buffer: Float64Array views need 8-byte alignment, which a blob may lack. */
function alignedCopy(blob: Uint8Array, doubles: number): Float64Array {
  const all = new Float64Array(doubles);
  new Uint8Array(all.buffer).set(blob.subarray(0, doubles * 8));
  return all;
}

export function decodeChunk(blob: Uint8Array, count: number): PointColumns {
  const all = alignedCopy(blob, count * 4);
  return {
    steps: all.subarray(0, count),
    values: all.subarray(count, 2 * count),
    times: all.subarray(2 * count, 3 * count),
    writtenAt: all.subarray(3 * count, 4 * count),
  };
}

/**
 * Bytes per point of the leading part of an encoded chunk that sampling reads: steps, values and
 * client times come first, so a reader that needs no server write times can fetch only
 * `count * SAMPLED_BYTES_PER_POINT` bytes of a chunk (a quarter less to move from a database server).
 */
export const SAMPLED_BYTES_PER_POINT = 24;

/**
 * Reads the points of an encoded chunk in place, without copying it into four columns
 * (decodeChunk): sampling reads a few points of many chunks. The blob is a whole chunk or its
 * first `count * SAMPLED_BYTES_PER_POINT` bytes. It is viewed as float64s directly when it is
 * 8-byte aligned (better-sqlite3 gives each blob of this size its own allocation), else copied once.
 */
export type ChunkView = PointReader;

export function viewChunk(blob: Buffer, count: number): ChunkView {
  const sampled = (count * SAMPLED_BYTES_PER_POINT) / 8;
  const doubles = blob.byteOffset % 8 === 0 ? new Float64Array(blob.buffer, blob.byteOffset, sampled) : alignedCopy(blob, sampled);
  return {
    count,
    stepAt: (i) => doubles[i]!,
    valueAt: (i) => doubles[count + i]!,
    timeAt: (i) => doubles[2 * count + i]!,
  };
}

export function columnsOf(steps: ArrayLike<number>, values: ArrayLike<number>, times: ArrayLike<number>, writtenAt: number): PointColumns {
  const written = new Float64Array(steps.length);
  written.fill(writtenAt);
  // Columns already float64 (the SQLite writer thread's) are used as they are: nothing writes into them.
  const column = (of: ArrayLike<number>) => (of instanceof Float64Array ? of : Float64Array.from(of));
  return { steps: column(steps), values: column(values), times: column(times), writtenAt: written };
}

export function concatColumns(parts: PointColumns[]): PointColumns {
  const n = parts.reduce((sum, part) => sum + part.steps.length, 0);
  const out: PointColumns = {
    steps: new Float64Array(n),
    values: new Float64Array(n),
    times: new Float64Array(n),
    writtenAt: new Float64Array(n),
  };
  let offset = 0;
  for (const part of parts) {
    out.steps.set(part.steps, offset);
    out.values.set(part.values, offset);
    out.times.set(part.times, offset);
    out.writtenAt.set(part.writtenAt, offset);
    offset += part.steps.length;
  }
  return out;
}

/** Points that changed a summary: what a merge took out and what it put in. */
export interface PointDelta {
  steps: number[];
  values: number[];
}

/**
 * Merges stored points with incoming ones, both in the point order (domain/metric-points.ts), by
 * the write's rule. "replace-step": each incoming point (one per step) replaces every stored point
 * at its step; a step re-sent with the one value it holds (a client retry) appears in neither
 * delta, so retries cost the summary nothing. "keep-every-point": the union, a point identical to
 * a stored one kept once (the stored one, with its write time).
 */
export function mergeColumns(
  stored: PointColumns,
  incoming: PointColumns,
  rule: PointRule = "replace-step",
): { merged: PointColumns; removed: PointDelta; added: PointDelta } {
  const n = stored.steps.length + incoming.steps.length;
  const merged: PointColumns = {
    steps: new Float64Array(n),
    values: new Float64Array(n),
    times: new Float64Array(n),
    writtenAt: new Float64Array(n),
  };
  const removed: PointDelta = { steps: [], values: [] };
  const added: PointDelta = { steps: [], values: [] };
  let size = 0;
  const take = (c: PointColumns, k: number) => {
    merged.steps[size] = c.steps[k]!;
    merged.values[size] = c.values[k]!;
    merged.times[size] = c.times[k]!;
    merged.writtenAt[size] = c.writtenAt[k]!;
    size++;
  };
  const note = (delta: PointDelta, c: PointColumns, k: number) => {
    delta.steps.push(c.steps[k]!);
    delta.values.push(c.values[k]!);
  };
  let i = 0;
  let j = 0;
  while (i < stored.steps.length || j < incoming.steps.length) {
    if (j === incoming.steps.length) {
      take(stored, i++);
      continue;
    }
    if (i === stored.steps.length) {
      note(added, incoming, j);
      take(incoming, j++);
      continue;
    }
    const [a, b] = [stored.steps[i]!, incoming.steps[j]!];
    if (rule === "keep-every-point") {
      const order = comparePoints(a, stored.times[i]!, stored.values[i]!, b, incoming.times[j]!, incoming.values[j]!);
      if (order <= 0) take(stored, i++);
      if (order === 0) j++;
      else if (order > 0) {
        note(added, incoming, j);
        take(incoming, j++);
      }
      continue;
    }
    if (a < b) {
      take(stored, i++);
      continue;
    }
    // Every stored point at the incoming step goes, unless it is the one point there, with this value.
    let end = i;
    while (end < stored.steps.length && stored.steps[end] === b) end++;
    const retry = end === i + 1 && Object.is(stored.values[i], incoming.values[j]);
    if (!retry) {
      for (let k = i; k < end; k++) note(removed, stored, k);
      note(added, incoming, j);
    }
    i = end;
    take(incoming, j++);
  }
  return {
    merged: {
      steps: merged.steps.subarray(0, size),
      values: merged.values.subarray(0, size),
      times: merged.times.subarray(0, size),
      writtenAt: merged.writtenAt.subarray(0, size),
    },
    removed,
    added,
  };
}

/** A chunk row's own columns (after metric_id): its step range, point count and aggregates. */
export const CHUNK_ROW_COLUMNS = ["start_step", "end_step", "point_count", ...CHUNK_AGGREGATE_COLUMNS];

/** A chunk row's values for points [from, to), in CHUNK_ROW_COLUMNS order; both backends write chunk rows so. */
export function chunkRowValues(columns: PointColumns, from: number, to: number): (number | null)[] {
  return [columns.steps[from]!, columns.steps[to - 1]!, to - from, ...aggregateValues(aggregateChunk(columns, from, to))];
}
