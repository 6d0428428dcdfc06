import { comparePoints } from "./metric-points.js";
import { indexRange, isWhole, lowerBound, type PointBlock, type PointReader, pointAt, type SampledPoint } from "./point-blocks.js";

/**
 * Where the i-th fill point goes (i from 1), as a fraction of the window: the base-2 van der Corput
 * sequence 1/2, 1/4, 3/4, 1/8, 5/8, … Every prefix of it is spread evenly over the window, so the
 * places of the first r fill points do not depend on r: a prediction made for more of them
 * (likelyReads) names a superset of the blocks a smaller fill reads.
 */
export function fillFraction(i: number): number {
  let fraction = 0;
  let weight = 1;
  for (let n = i; n > 0; n >>>= 1) {
    weight /= 2;
    if (n & 1) fraction += weight;
  }
  return fraction;
}

/** A point of the window: its block's index and its index in the block's reader. */
interface Place {
  block: number;
  index: number;
}

/** The points of a window's blocks (ascending, never overlapping) as one sequence in the point order. */
export class WindowPoints {
  private readonly ranges = new Map<number, [number, number]>();
  private positions: number[] | undefined;

  constructor(
    private readonly blocks: PointBlock[],
    private readonly read: (block: PointBlock) => PointReader,
  ) {}

  /** The first point at or after `step`; undefined past the last. */
  atStep(step: number): Place | undefined {
    const b = lowerBound(this.blocks.length, (i) => Math.min(this.blocks[i]!.endStep, this.blocks[i]!.highStep), step);
    if (b === this.blocks.length) return undefined;
    const reader = this.read(this.blocks[b]!);
    const [i, j] = this.range(b);
    const index = Math.max(i, lowerBound(reader.count, reader.stepAt, step));
    return index < j ? { block: b, index } : this.next({ block: b, index: j - 1 });
  }

  /** The point at `position` (0-based) in the window. */
  atPosition(position: number): Place | undefined {
    if (!this.positions) {
      this.positions = [0];
      for (const [b, block] of this.blocks.entries()) {
        const [i, j] = isWhole(block) ? [0, block.count] : this.range(b);
        this.positions.push(this.positions[b]! + j - i);
      }
    }
    const b = lowerBound(this.blocks.length, (k) => this.positions![k + 1]!, position + 1);
    if (b === this.blocks.length) return undefined;
    return { block: b, index: this.range(b)[0] + position - this.positions[b]! };
  }

  next(place: Place): Place | undefined {
    if (place.index + 1 < this.range(place.block)[1]) return { block: place.block, index: place.index + 1 };
    for (let b = place.block + 1; b < this.blocks.length; b++) {
      const [i, j] = this.range(b);
      if (i < j) return { block: b, index: i };
    }
    return undefined;
  }

  previous(place: Place): Place | undefined {
    if (place.index > this.range(place.block)[0]) return { block: place.block, index: place.index - 1 };
    for (let b = place.block - 1; b >= 0; b--) {
      const [i, j] = this.range(b);
      if (i < j) return { block: b, index: j - 1 };
    }
    return undefined;
  }

  point(place: Place): SampledPoint {
    return pointAt(this.read(this.blocks[place.block]!), place.index);
  }

  private range(b: number): [number, number] {
    let range = this.ranges.get(b);
    if (!range) this.ranges.set(b, (range = indexRange(this.read(this.blocks[b]!), this.blocks[b]!)));
    return range;
  }
}

const compare = (a: SampledPoint, b: SampledPoint) => comparePoints(a.step, a.time, a.value, b.step, b.time, b.value);

/** A point's identity (domain/metric-points.ts samePoint: NaN is NaN, −0 is not 0). */
const keyOf = (p: SampledPoint) => `${p.step}|${p.time}|${Object.is(p.value, -0) ? "-0" : p.value}`;

/** Whether `points` (in the point order) hold `point`, by binary search. */
function holds(points: SampledPoint[], point: SampledPoint): boolean {
  const i = lowerBound(points.length, (k) => (compare(points[k]!, point) < 0 ? -1 : 0), 0);
  return i < points.length && compare(points[i]!, point) === 0;
}

/**
 * A sample of a window holding more than `limit` points, filled to exactly `limit` (docs/semantics.md,
 * Metrics: sampling). The buckets' picks (in the point order) come first and all stay; the rest are
 * points not picked, the i-th at the first point from fillFraction(i) of the window onwards
 * (`placeOf`: by step, or by position in a window at one step) that is not taken yet, else the last
 * before it. Defined by the points alone, so the same whatever the block layout; each reads at most
 * the block it falls in (and, rarely, its neighbours).
 */
export function fillToLimit(
  window: WindowPoints,
  picks: SampledPoint[],
  limit: number,
  placeOf: (fraction: number) => Place | undefined,
): SampledPoint[] {
  const wanted = limit - picks.length;
  if (wanted <= 0) return picks;
  const extras: SampledPoint[] = [];
  const extraKeys = new Set<string>();
  const taken = (point: SampledPoint) => holds(picks, point) || extraKeys.has(keyOf(point));
  const untaken = (from: Place | undefined, step: (place: Place) => Place | undefined) => {
    for (let place = from; place; place = step(place)) {
      const point = window.point(place);
      if (!taken(point)) return point;
    }
    return undefined;
  };
  for (let i = 1; extras.length < wanted; i++) {
    const start = placeOf(fillFraction(i));
    const found = start
      ? (untaken(start, (place) => window.next(place)) ?? untaken(window.previous(start), (place) => window.previous(place)))
      : undefined;
    if (!found) break; // every point of the window is taken: it held no more than `limit`
    extras.push(found);
    extraKeys.add(keyOf(found));
  }
  return mergeSorted(picks, extras.sort(compare));
}

function mergeSorted(a: SampledPoint[], b: SampledPoint[]): SampledPoint[] {
  const merged: SampledPoint[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) merged.push(j === b.length || (i < a.length && compare(a[i]!, b[j]!) < 0) ? a[i++]! : b[j++]!);
  return merged;
}
