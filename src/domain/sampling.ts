import { comparePoints, samePoint } from "./metric-points.js";
import {
  type BlockSeries,
  blockExtremes,
  indexRange,
  inRange,
  isWhole,
  lowerBound,
  type Point,
  type PointBlock,
  type PointReader,
  pointAt,
  type SampledPoint,
} from "./point-blocks.js";
import { fillFraction, fillToLimit, WindowPoints } from "./sample-fill.js";

export { blockExtremes, lowerBound };
export type { BlockExtremes, BlockSeries, Point, PointBlock, PointReader, SampledPoint } from "./point-blocks.js";

/**
 * A point a bucket keeps: its block and step, and its time when known (a point read, or an extreme
 * the block's aggregates give), else where it is in its block: its first or last point, or the
 * first of the value's kind at its step (a non-finite one), read when the sample is resolved.
 */
interface Pick {
  block: PointBlock;
  step: number;
  value: number;
  time?: number;
  index?: number;
}

/** What one bucket keeps, in the order the points are given up when even one bucket is over the limit. */
const KEPT = ["first", "last", "min", "max", "nan", "inf", "negInf"] as const;
type Bucket = Partial<Record<(typeof KEPT)[number], Pick>>;

/**
 * Deterministic downsampling (docs/semantics.md, Metrics: sampling): when the window holds more than `limit`
 * points, its step range is divided into equal buckets, and each bucket keeps its first and last
 * point, its finite minimum and maximum (lowest step on ties) and its first point of each
 * non-finite kind (NaN, +Inf, −Inf), so a local spike or a divergence shows at any zoom. A bucket
 * keeps 4 points as a rule, so there are limit/4 buckets; when non-finite points push the total
 * past `limit`, fewer and wider buckets are used (down to limit/7, where it cannot be exceeded;
 * below a limit of 7 one bucket gives up points in the order of KEPT). A window whose points all
 * sit at one step is divided by position instead (sampleOneStep). The buckets' points, often fewer
 * than `limit` (a bucket's first point may be its maximum), are then filled to exactly `limit` with
 * points spread evenly over the window (domain/sample-fill.ts). Same data, same request → same
 * points, in the point order (domain/metric-points.ts), whatever the block layout. Reads from block
 * aggregates, plus the points of blocks that straddle a bucket edge or hold a fill point, so a long
 * series is never read whole.
 */
export function sampleSeries(series: BlockSeries, limit: number): { points: SampledPoint[]; bucketEdges: number[] } {
  const readers = new Map<PointBlock, PointReader>();
  const read = (block: PointBlock) => {
    let reader = readers.get(block);
    if (!reader) readers.set(block, (reader = series.read(block)));
    return reader;
  };
  const blocks = series.blocks.filter(inRange);
  if (countPoints(blocks, read) <= limit) return { points: readAllPoints(blocks, read), bucketEdges: [] };

  const window = new WindowPoints(blocks, read);
  const lo = firstStepIn(blocks[0]!, read);
  const hi = lastStepIn(blocks[blocks.length - 1]!, read);
  if (lo === hi) {
    const total = countPoints(blocks, read);
    const { picks } = fitBuckets(limit, (count) => sampleOneStep(blocks, read, count, limit, lo));
    return { points: fillToLimit(window, picks, limit, (fraction) => window.atPosition(Math.floor(fraction * total))), bucketEdges: [] };
  }
  const { picks, bucketCount } = fitBuckets(limit, (count) =>
    distinctPicks(bucketsOf(blocks, bucketEdgesOf(lo, hi, count), read), limit, read),
  );
  const points = fillToLimit(window, picks, limit, (fraction) => window.atStep(fillStep(lo, hi, fraction)));
  return { points, bucketEdges: bucketEdgesOf(lo, hi, bucketCount) };
}

/**
 * The points of `limit`/4 buckets, as a rule 4 each; when they come to more than `limit` (non-finite
 * points), of fewer and wider buckets: an estimate of how many fit, then limit/7, which always fits.
 */
function fitBuckets(limit: number, pointsOf: (bucketCount: number) => SampledPoint[]): { picks: SampledPoint[]; bucketCount: number } {
  const widest = Math.max(1, Math.floor(limit / KEPT.length));
  let bucketCount = Math.max(1, Math.floor(limit / 4));
  let picks = pointsOf(bucketCount);
  if (picks.length > limit && bucketCount > widest) {
    bucketCount = Math.max(widest, Math.floor((bucketCount * limit) / picks.length));
    picks = pointsOf(bucketCount);
    if (picks.length > limit && bucketCount > widest) {
      bucketCount = widest;
      picks = pointsOf(bucketCount);
    }
  }
  return { picks, bucketCount };
}

/**
 * A window whose points all sit at one step `step` (MLflow's rule keeps every point logged at a
 * step, so `log_metric` without a step puts a whole series at step 0): one step cannot be divided,
 * so the buckets hold equal numbers of points in the point order (by time) instead. The points are
 * streamed block by block (every block is read, none is kept whole in memory); a pick's `step` is
 * its position in the window until the sample is made.
 */
function sampleOneStep(
  blocks: PointBlock[],
  read: (block: PointBlock) => PointReader,
  bucketCount: number,
  limit: number,
  step: number,
): SampledPoint[] {
  const total = countPoints(blocks, read);
  const buckets: Bucket[] = Array.from({ length: bucketCount }, () => ({}));
  let position = 0;
  for (const block of blocks) {
    const reader = read(block);
    const [i, j] = indexRange(reader, block);
    for (let k = i; k < j; k++, position++) {
      const bucket = buckets[Math.floor((position * bucketCount) / total)]!;
      addPoint(bucket, { block, step: position, value: reader.valueAt(k), time: reader.timeAt(k) });
    }
  }
  const byPosition = new Map<number, Pick>();
  for (const bucket of buckets) {
    const kept = KEPT.map((name) => bucket[name]).filter((pick): pick is Pick => pick !== undefined);
    for (const pick of bucketCount === 1 ? kept.slice(0, limit) : kept) byPosition.set(pick.step, pick);
  }
  return [...byPosition.values()].sort((a, b) => a.step - b.step).map((pick) => ({ step, value: pick.value, time: pick.time! }));
}

export function samplePoints(series: BlockSeries, limit: number): SampledPoint[] {
  return sampleSeries(series, limit).points;
}

/**
 * The blocks sampleSeries will likely read, from their aggregates alone, for a store whose reads of
 * points are round trips (docs/decisions.md, "Sampling over a database server"): fetched first, they
 * usually leave sampleFetched nothing more to ask for. Every block when the series may hold no more
 * than `limit` points (then at most that many points and the partly covered blocks). Else, for the
 * buckets of 4 points each that sampleSeries tries first: the blocks it reads point by point
 * (partly covered, or spanning a bucket edge), and the blocks holding a pick it shows without a
 * time. In a bucket of whole blocks only, those are found as the sampler finds them; in a bucket
 * sharing a block read point by point, its first and last whole blocks are taken when they hold the
 * bucket's first or last point. A guess where the step range is off (sparse steps at a window edge)
 * or where non-finite points make the buckets wider: sampleFetched then names the rest.
 */
export function likelyReads(blocks: PointBlock[], limit: number): PointBlock[] {
  const candidates = blocks.filter(inRange);
  const wholePoints = candidates.reduce((sum, block) => sum + (isWhole(block) ? block.count : 0), 0);
  if (wholePoints <= limit) return candidates;
  const first = (block: PointBlock) => Math.max(block.startStep, block.lowStep);
  const last = (block: PointBlock) => Math.min(block.endStep, block.highStep);
  const edges = bucketEdgesOf(first(candidates[0]!), last(candidates[candidates.length - 1]!), Math.max(1, Math.floor(limit / 4)));
  let k = 0;
  const bucketAt = (step: number) => {
    while (step >= edges[k + 1]!) k++;
    return k;
  };
  const spans = candidates.map((block) => [bucketAt(first(block)), bucketAt(last(block))] as const);
  const reads = new Set<PointBlock>();
  const buckets: Bucket[] = Array.from({ length: edges.length - 1 }, () => ({}));
  const sharesARead = new Map<number, { min: number; max: number }>();
  for (const [i, block] of candidates.entries()) {
    const [from, to] = spans[i]!;
    if (isWhole(block) && from === to) {
      addBlock(buckets[from]!, block);
      continue;
    }
    reads.add(block);
    for (let bucket = from; bucket <= to; bucket++) {
      const shared = sharesARead.get(bucket) ?? { min: Infinity, max: -Infinity };
      sharesARead.set(bucket, { min: Math.min(shared.min, block.min ?? Infinity), max: Math.max(shared.max, block.max ?? -Infinity) });
    }
  }
  for (const [i, block] of candidates.entries()) {
    const [from, to] = spans[i]!;
    if (reads.has(block) || !sharesARead.has(from)) continue;
    const firstInBucket = i === 0 || spans[i - 1]![1] !== from;
    const lastInBucket = i === candidates.length - 1 || spans[i + 1]![0] !== to;
    if (firstInBucket || lastInBucket) reads.add(block);
  }
  for (const [index, bucket] of buckets.entries()) {
    if (sharesARead.has(index)) continue;
    for (const name of KEPT) {
      const pick = bucket[name];
      if (pick && pick.time === undefined) reads.add(pick.block);
    }
  }
  // The fill's blocks: those its first points fall in, for as many as the buckets may leave to fill.
  const atLeast = buckets.reduce((sum, bucket, index) => sum + picksAtLeast(bucket, sharesARead.get(index)), 0);
  const lo = first(candidates[0]!);
  const hi = last(candidates[candidates.length - 1]!);
  for (let i = 1; i <= limit - atLeast; i++) {
    const step = fillStep(lo, hi, fillFraction(i));
    reads.add(
      candidates[
        Math.min(
          candidates.length - 1,
          lowerBound(candidates.length, (b) => last(candidates[b]!), step),
        )
      ]!,
    );
  }
  return candidates.filter((block) => reads.has(block));
}

/**
 * How many distinct points a bucket keeps at least, from the aggregates of its whole blocks: those
 * picks' distinct steps; in a bucket sharing a block read point by point (`shared`, the read blocks'
 * extremes), its first and last point, and the whole blocks' minimum and maximum where no read block
 * can hold a lower or higher value and they lie strictly between the whole blocks' first and last step.
 */
function picksAtLeast(bucket: Bucket, shared: { min: number; max: number } | undefined): number {
  if (!bucket.first || !bucket.last) return 0;
  if (!shared) return new Set(KEPT.map((name) => bucket[name]?.step).filter((step) => step !== undefined)).size;
  const inside = (pick: Pick | undefined) => pick !== undefined && pick.step > bucket.first!.step && pick.step < bucket.last!.step;
  const min = inside(bucket.min) && bucket.min!.value < shared.min;
  const max = inside(bucket.max) && bucket.max!.value > shared.max && bucket.max!.step !== bucket.min?.step;
  return (bucket.last.step > bucket.first.step ? 2 : 1) + (min ? 1 : 0) + (max ? 1 : 0);
}

/**
 * sampleSeries over blocks whose points are fetched ahead (`fetched` gives those it has): the
 * sample, exactly sampleSeries', when every block it read was there; else the blocks it lacked, to
 * fetch before calling again. A lacking block stands in as its count of points spread over its step
 * range at its minimum, so that one run names every block it lacks, not only the first.
 */
export function sampleFetched(
  blocks: PointBlock[],
  limit: number,
  fetched: (block: PointBlock) => PointReader | undefined,
): { points: SampledPoint[] } | { missing: PointBlock[] } {
  const missing = new Set<PointBlock>();
  const read = (block: PointBlock) => {
    const reader = fetched(block);
    if (reader) return reader;
    missing.add(block);
    return standIn(block);
  };
  const { points } = sampleSeries({ blocks, read }, limit);
  return missing.size === 0 ? { points } : { missing: [...missing] };
}

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

function countPoints(blocks: PointBlock[], read: (block: PointBlock) => PointReader): number {
  let count = 0;
  for (const block of blocks) {
    if (isWhole(block)) count += block.count;
    else {
      const [i, j] = indexRange(read(block), block);
      count += j - i;
    }
  }
  return count;
}

function readAllPoints(blocks: PointBlock[], read: (block: PointBlock) => PointReader): SampledPoint[] {
  const points: SampledPoint[] = [];
  for (const block of blocks) {
    const reader = read(block);
    const [i, j] = indexRange(reader, block);
    for (let k = i; k < j; k++) points.push(pointAt(reader, k));
  }
  return points;
}

function firstStepIn(block: PointBlock, read: (block: PointBlock) => PointReader): number {
  if (block.startStep >= block.lowStep) return block.startStep;
  const reader = read(block);
  return reader.stepAt(indexRange(reader, block)[0]);
}

function lastStepIn(block: PointBlock, read: (block: PointBlock) => PointReader): number {
  if (block.endStep <= block.highStep) return block.endStep;
  const reader = read(block);
  return reader.stepAt(indexRange(reader, block)[1] - 1);
}

/** The step a fill point starts from: `fraction` of the way through the window's steps [lo, hi]. */
const fillStep = (lo: number, hi: number, fraction: number) => lo + Math.floor(fraction * (hi - lo + 1));

/**
 * count + 1 edges: bucket k holds steps [edges[k], edges[k + 1]). Steps are integers, and there
 * are more points than buckets, so no bucket is narrower than one step.
 */
export function bucketEdgesOf(lo: number, hi: number, count: number): number[] {
  const span = hi - lo + 1;
  const edges = Array.from({ length: count }, (_, k) => lo + Math.floor((k / count) * span));
  edges.push(hi + 1);
  return edges;
}

/** Sweeps the blocks once, ascending: whole blocks within one bucket by their aggregates, other blocks point by point. */
function bucketsOf(blocks: PointBlock[], edges: number[], read: (block: PointBlock) => PointReader): Bucket[] {
  const buckets: Bucket[] = Array.from({ length: edges.length - 1 }, () => ({}));
  let k = 0;
  const bucketAt = (step: number) => {
    while (step >= edges[k + 1]!) k++;
    return buckets[k]!;
  };
  for (const block of blocks) {
    if (isWhole(block)) {
      const bucket = bucketAt(block.startStep);
      if (block.endStep < edges[k + 1]!) {
        addBlock(bucket, block);
        continue;
      }
    }
    const reader = read(block);
    const [i, j] = indexRange(reader, block);
    for (let p = i; p < j; p++) {
      const step = reader.stepAt(p);
      addPoint(bucketAt(step), { block, step, value: reader.valueAt(p), time: reader.timeAt(p), index: p });
    }
  }
  return buckets;
}

function addPoint(bucket: Bucket, pick: Pick): void {
  bucket.first ??= pick;
  bucket.last = pick;
  const value = pick.value;
  if (Number.isNaN(value)) bucket.nan ??= pick;
  else if (value === Infinity) bucket.inf ??= pick;
  else if (value === -Infinity) bucket.negInf ??= pick;
  else {
    // Points arrive in the point order, so a strict comparison keeps the first on ties.
    if (!bucket.min || value < bucket.min.value) bucket.min = pick;
    if (!bucket.max || value > bucket.max.value) bucket.max = pick;
  }
}

function addBlock(bucket: Bucket, block: PointBlock): void {
  // Only minimum and maximum compare values; the first and last points are the block's own.
  bucket.first ??= { block, step: block.startStep, value: Number.NaN, index: 0 };
  bucket.last = { block, step: block.endStep, value: Number.NaN, index: block.count - 1 };
  if (block.nanStep !== null) bucket.nan ??= { block, step: block.nanStep, value: Number.NaN };
  if (block.infStep !== null) bucket.inf ??= { block, step: block.infStep, value: Infinity };
  if (block.negInfStep !== null) bucket.negInf ??= { block, step: block.negInfStep, value: -Infinity };
  if (block.min !== null && (!bucket.min || block.min < bucket.min.value)) {
    bucket.min = { block, step: block.minStep!, value: block.min, time: block.minTime! };
  }
  if (block.max !== null && (!bucket.max || block.max > bucket.max.value)) {
    bucket.max = { block, step: block.maxStep!, value: block.max, time: block.maxTime! };
  }
}

/**
 * The points the buckets keep, each once (a point may be both a bucket's first and its minimum), in
 * the point order; a single bucket over the limit keeps the first of KEPT.
 */
function distinctPicks(buckets: Bucket[], limit: number, read: (block: PointBlock) => PointReader): SampledPoint[] {
  const points: SampledPoint[] = [];
  for (const bucket of buckets) {
    const kept = KEPT.map((name) => bucket[name]).filter((pick): pick is Pick => pick !== undefined);
    for (const pick of buckets.length === 1 ? kept.slice(0, limit) : kept) points.push(resolve(pick, read));
  }
  points.sort((a, b) => comparePoints(a.step, a.time, a.value, b.step, b.time, b.value));
  return points.filter(
    (p, i) => i === 0 || !samePoint(points[i - 1]!.step, points[i - 1]!.time, points[i - 1]!.value, p.step, p.time, p.value),
  );
}

/** A pick as the point it names, its block read when the pick does not carry its time. */
function resolve(pick: Pick, read: (block: PointBlock) => PointReader): SampledPoint {
  if (pick.time !== undefined) return { step: pick.step, value: pick.value, time: pick.time };
  const reader = read(pick.block);
  if (pick.index !== undefined) return pointAt(reader, pick.index);
  const kind = (value: number) => Object.is(value, pick.value) || (Number.isNaN(value) && Number.isNaN(pick.value));
  let i = lowerBound(reader.count, reader.stepAt, pick.step);
  while (i < reader.count - 1 && !kind(reader.valueAt(i))) i++;
  return pointAt(reader, i);
}

/**
 * BlockSeries over points already in memory (ascending by step), in blocks of `blockSize` points,
 * restricted to steps in [lowStep, highStep].
 */
export function arraySeries(points: Point[], blockSize = 64, lowStep = -Infinity, highStep = Infinity): BlockSeries {
  const readers = new Map<PointBlock, PointReader>();
  const blocks: PointBlock[] = [];
  for (let from = 0; from < points.length; from += blockSize) {
    const part = points.slice(from, from + blockSize);
    const steps = part.map((p) => p.step);
    const block: PointBlock = {
      startStep: steps[0]!,
      endStep: steps[steps.length - 1]!,
      count: part.length,
      lowStep,
      highStep,
      ...blockExtremes(
        steps,
        part.map((p) => p.value),
        part.map((p) => p.time),
      ),
    };
    blocks.push(block);
    readers.set(block, {
      count: part.length,
      stepAt: (i) => part[i]!.step,
      valueAt: (i) => part[i]!.value,
      timeAt: (i) => part[i]!.time,
    });
  }
  return { blocks, read: (block) => readers.get(block)! };
}
