/**
 * Metric points are stored in chunks: the points of one metric over a step range, as four
 * little-endian float64 columns (step, value, client time, server write time). One SQL row per
 * chunk instead of per point is what lets a single SQLite writer take hundreds of thousands of
 * points per second, and lets a 5M-point series be read as ~50k rows. Non-finite values are
 * stored as IEEE NaN/±Infinity. Chunks of one metric never overlap in steps.
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

/** What a chunk row records about its points (finite values only in count/sum/min/max/last). */
export interface ChunkAggregates {
  finiteCount: number;
  sum: number;
  sumSq: number;
  min: number | null;
  minStep: number | null;
  max: number | null;
  maxStep: number | null;
  lastValue: number | null;
  lastValueStep: number | null;
}

/** Aggregates of points [from, to); on ties the minimum and maximum keep their lowest step. */
export function aggregateChunk(columns: PointColumns, from = 0, to = columns.steps.length): ChunkAggregates {
  const a: ChunkAggregates = { finiteCount: 0, sum: 0, sumSq: 0, min: null, minStep: null, max: null, maxStep: null, lastValue: null, lastValueStep: null };
  for (let i = from; i < to; i++) {
    const value = columns.values[i]!;
    if (!Number.isFinite(value)) continue;
    const step = columns.steps[i]!;
    a.finiteCount++;
    a.sum += value;
    a.sumSq += value * value;
    if (a.min === null || value < a.min) [a.min, a.minStep] = [value, step];
    if (a.max === null || value > a.max) [a.max, a.maxStep] = [value, step];
    [a.lastValue, a.lastValueStep] = [value, step];
  }
  return a;
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

export function decodeChunk(blob: Uint8Array, count: number): PointColumns {
  // Copied into a fresh buffer: SQLite blobs are not 8-byte aligned, which Float64Array views need.
  const all = new Float64Array(count * 4);
  new Uint8Array(all.buffer).set(blob.subarray(0, count * 32));
  return {
    steps: all.subarray(0, count),
    values: all.subarray(count, 2 * count),
    times: all.subarray(2 * count, 3 * count),
    writtenAt: all.subarray(3 * count, 4 * count),
  };
}

/**
 * Reads single points of an encoded chunk in place. Sampling touches a few points of many chunks,
 * so copying each chunk into aligned arrays (decodeChunk) would cost more than the look-ups.
 */
export interface ChunkView {
  count: number;
  stepAt(i: number): number;
  valueAt(i: number): number;
  timeAt(i: number): number;
  writtenAt(i: number): number;
}

export function viewChunk(blob: Buffer, count: number): ChunkView {
  return {
    count,
    stepAt: (i) => blob.readDoubleLE(i * 8),
    valueAt: (i) => blob.readDoubleLE((count + i) * 8),
    timeAt: (i) => blob.readDoubleLE((2 * count + i) * 8),
    writtenAt: (i) => blob.readDoubleLE((3 * count + i) * 8),
  };
}

export function columnsOf(steps: number[], values: number[], times: number[], writtenAt: number): PointColumns {
  const written = new Float64Array(steps.length);
  written.fill(writtenAt);
  return { steps: Float64Array.from(steps), values: Float64Array.from(values), times: Float64Array.from(times), writtenAt: written };
}

export function concatColumns(parts: PointColumns[]): PointColumns {
  const n = parts.reduce((sum, part) => sum + part.steps.length, 0);
  const out: PointColumns = { steps: new Float64Array(n), values: new Float64Array(n), times: new Float64Array(n), writtenAt: new Float64Array(n) };
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
 * Merges stored points with incoming ones (both ascending by step); an incoming point replaces
 * a stored one at the same step. A point re-sent with the same value (a client retry) appears in
 * neither delta, so retries cost the summary nothing.
 */
export function mergeColumns(stored: PointColumns, incoming: PointColumns): { merged: PointColumns; removed: PointDelta; added: PointDelta } {
  const n = stored.steps.length + incoming.steps.length;
  const merged: PointColumns = { steps: new Float64Array(n), values: new Float64Array(n), times: new Float64Array(n), writtenAt: new Float64Array(n) };
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
  let i = 0;
  let j = 0;
  while (i < stored.steps.length || j < incoming.steps.length) {
    const a = i < stored.steps.length ? stored.steps[i]! : Infinity;
    const b = j < incoming.steps.length ? incoming.steps[j]! : Infinity;
    if (a < b) {
      take(stored, i++);
      continue;
    }
    const value = incoming.values[j]!;
    if (a === b && !Object.is(stored.values[i], value)) {
      removed.steps.push(a);
      removed.values.push(stored.values[i]!);
    }
    if (a !== b || !Object.is(stored.values[i], value)) {
      added.steps.push(b);
      added.values.push(value);
    }
    if (a === b) i++;
    take(incoming, j++);
  }
  return {
    merged: { steps: merged.steps.subarray(0, size), values: merged.values.subarray(0, size), times: merged.times.subarray(0, size), writtenAt: merged.writtenAt.subarray(0, size) },
    removed,
    added,
  };
}
