import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../test/helpers/ingest.js";
import {
  arraySeries,
  bucketEdgesOf,
  likelyReads,
  lowerBound,
  sampleFetched,
  samplePoints,
  sampleSeries,
  type BlockSeries,
  type Point,
  type PointBlock,
  type PointReader,
} from "./sampling.js";

/** A stored point as a sample shows it. */
const shown = ({ step, value, time }: Point) => ({ step, value, time });

const series = (values: number[], stepOf = (i: number) => i): Point[] =>
  values.map((value, i) => ({ step: stepOf(i), value, time: 1000 + i, writtenAt: 0 }));

/** A point's identity: its step and time (no two points of these series share both). */
const keyOf = (p: { step: number; time: number }) => `${p.step}@${p.time}`;

/** What a bucket must keep, computed directly from its points: first, last, min, max (first on ties), first of each non-finite kind. */
function requiredPoints(points: Point[]): string[] {
  if (points.length === 0) return [];
  const finite = points.filter((p) => Number.isFinite(p.value));
  const kept = [points[0]!, points.at(-1)!];
  if (finite.length) {
    const min = Math.min(...finite.map((p) => p.value));
    const max = Math.max(...finite.map((p) => p.value));
    kept.push(finite.find((p) => p.value === min)!, finite.find((p) => p.value === max)!);
  }
  for (const kind of [(v: number) => Number.isNaN(v), (v: number) => v === Infinity, (v: number) => v === -Infinity]) {
    const found = points.find((p) => kind(p.value));
    if (found) kept.push(found);
  }
  return kept.map(keyOf);
}

describe("sampleSeries", () => {
  it("returns every point when there are no more than the limit", () => {
    const points = series([3, 1, 2]);
    assert.deepEqual(samplePoints(arraySeries(points), 3), points.map(shown));
  });

  it("keeps a local spike and an infinity that a larger value elsewhere would hide", () => {
    const values = Array.from({ length: 100_000 }, (_, i) => Math.sin(i / 500));
    values[10] = 1e9; // the global maximum
    values[50_123] = 5; // a local spike, far below it
    values[70_001] = Infinity;
    values[80_002] = NaN;
    values[90_003] = -Infinity;
    const sample = samplePoints(arraySeries(series(values), 512), 1000);
    assert.ok(sample.length <= 1000);
    const steps = new Set(sample.map((p) => p.step));
    for (const step of [0, 10, 50_123, 70_001, 80_002, 90_003, 99_999]) assert.ok(steps.has(step), `step ${step} is kept`);
    assert.equal(sample.find((p) => p.step === 70_001)!.value, Infinity);
  });

  it("keeps every bucket's extremes and non-finite kinds, never exceeds the limit, whatever the block layout", () => {
    const random = seededRandom(3);
    for (let round = 0; round < 60; round++) {
      let step = 0;
      let walk = 0;
      // Every third round, steps hold several points (MLflow's rule), ordered by time.
      const repeats = round % 3 === 2 ? random() : 0;
      const points = Array.from({ length: 300 + Math.floor(random() * 4000) }, (_, i): Point => {
        step += random() < repeats ? 0 : 1 + Math.floor(random() * (random() < 0.05 ? 300 : 3));
        walk += random() - 0.5;
        const r = random();
        const value =
          r < 0.01 ? NaN : r < 0.02 ? Infinity : r < 0.03 ? -Infinity : r < 0.05 ? walk + (random() < 0.5 ? -1 : 1) * 1e6 * random() : walk;
        return { step, value, time: i, writtenAt: 0 };
      });
      const last = points.at(-1)!.step;
      const low = random() < 0.5 ? -Infinity : Math.floor(random() * last * 0.5);
      const high = random() < 0.5 ? Infinity : low + Math.floor(random() * last);
      const inWindow = points.filter((p) => p.step >= low && p.step <= high);
      for (const limit of [1, 3, 7, 20, 100, 1000]) {
        const label = `round ${round}, window ${low}..${high}, limit ${limit}`;
        const { points: sample, bucketEdges } = sampleSeries(arraySeries(points, 1 + Math.floor(random() * 600), low, high), limit);
        assert.deepEqual(sample, sampleSeries(arraySeries(points, 1 + Math.floor(random() * 600), low, high), limit).points, label);
        assert.equal(sample.length, Math.min(limit, inWindow.length), `${label}: as many points as asked, or all`);
        const stored = new Map(inWindow.map((p) => [keyOf(p), p]));
        for (const [i, p] of sample.entries()) {
          assert.deepEqual(p, shown(stored.get(keyOf(p))!), `${label}: a stored point`);
          const before = sample[i - 1];
          if (before)
            assert.ok(p.step > before.step || (p.step === before.step && p.time > before.time), `${label}: in the point order, once`);
        }
        if (bucketEdges.length === 0) {
          assert.deepEqual(sample, inWindow.map(shown), label);
          continue;
        }
        if (limit < 7) continue; // a single bucket then gives up points by rank
        const kept = new Set(sample.map(keyOf));
        for (let k = 0; k + 1 < bucketEdges.length; k++) {
          const bucket = inWindow.filter((p) => p.step >= bucketEdges[k]! && p.step < bucketEdges[k + 1]!);
          for (const required of requiredPoints(bucket)) assert.ok(kept.has(required), `${label}: bucket ${k} keeps ${required}`);
        }
      }
    }
  });

  it("fills the sample to the limit with points spread over the window, the buckets' picks kept", () => {
    // A smooth training curve: a bucket's first point is its maximum and its last its minimum, so
    // the buckets alone keep about half of what is asked.
    const curve = series(Array.from({ length: 2100 }, (_, i) => 2 * Math.exp(-i / 300) + 0.1));
    for (const limit of [7, 50, 100, 1000, 10_000]) {
      const { points, bucketEdges } = sampleSeries(arraySeries(curve, 512), limit);
      assert.equal(points.length, Math.min(limit, 2100), `limit ${limit}`);
      assert.deepEqual(points, samplePoints(arraySeries(curve, 33), limit), `limit ${limit}: whatever the block layout`);
      if (limit >= 2100) continue;
      // Spread: no gap between consecutive points wider than two buckets.
      const widest = 2 * (bucketEdges[1]! - bucketEdges[0]!);
      for (let i = 1; i < points.length; i++)
        assert.ok(points[i]!.step - points[i - 1]!.step <= widest, `limit ${limit}: a gap at ${points[i]!.step}`);
    }
    const noisy = seededRandom(7);
    const walk = series(Array.from({ length: 2100 }, () => noisy()));
    for (const limit of [7, 50, 100, 1000, 10_000]) assert.equal(samplePoints(arraySeries(walk, 512), limit).length, Math.min(limit, 2100));
  });

  it("fills a window at one step by position", () => {
    const points = series(
      Array.from({ length: 3000 }, (_, i) => i),
      () => 0,
    );
    const sample = samplePoints(arraySeries(points, 100), 300);
    assert.equal(sample.length, 300);
    for (let i = 1; i < sample.length; i++) assert.ok(sample[i]!.time > sample[i - 1]!.time, "in time order, once");
  });

  it("uses fewer, wider buckets when non-finite points would push it past the limit", () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i % 3 === 0 ? NaN : i % 3 === 1 ? Infinity : -Infinity));
    for (let i = 0; i < values.length; i += 7) values[i] = Math.sin(i);
    const { points, bucketEdges } = sampleSeries(arraySeries(series(values)), 700);
    assert.equal(points.length, 700);
    assert.ok(bucketEdges.length - 1 < 175 && bucketEdges.length - 1 >= 100, `${bucketEdges.length - 1} buckets`);
  });

  it("divides the points of a window at one step by position, in time order", () => {
    // log_metric without a step: 10,000 points at step 0, a spike at the 6,000th.
    const values = Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 100));
    values[6000] = 50;
    const points = series(values, () => 0);
    const sample = samplePoints(arraySeries(points, 512), 400);
    assert.equal(sample.length, 400);
    assert.deepEqual(sample[0], shown(points[0]!));
    assert.deepEqual(sample.at(-1), shown(points.at(-1)!));
    assert.ok(sample.some((p) => p.value === 50));
    for (let i = 1; i < sample.length; i++) assert.ok(sample[i]!.time > sample[i - 1]!.time);
    assert.deepEqual(sample, samplePoints(arraySeries(points, 77), 400), "whatever the block layout");
  });

  it("divides steps, not points, into buckets", () => {
    assert.deepEqual(bucketEdgesOf(0, 9, 3), [0, 3, 6, 10]);
    // 1,000 points crowded in steps 0..999, then 10 points spread over 1,000..100,000.
    const steps = [...Array.from({ length: 1000 }, (_, i) => i), ...Array.from({ length: 10 }, (_, i) => 10_000 * (i + 1))];
    const sample = samplePoints(
      arraySeries(
        series(
          steps.map(() => 1),
          (i) => steps[i]!,
        ),
      ),
      50,
    );
    assert.equal(sample.filter((p) => p.step >= 1000).length, 10);
  });
});

/** The blocks sampleSeries reads. */
function readsOf(series: BlockSeries, limit: number): Set<PointBlock> {
  const reads = new Set<PointBlock>();
  const read = (block: PointBlock) => {
    reads.add(block);
    return series.read(block);
  };
  sampleSeries({ blocks: series.blocks, read }, limit);
  return reads;
}

/** A series of consecutive steps from `first`, smooth (a rise and fall over thousands of steps) or noisy. */
function denseSeries(random: () => number, first: number, length: number): Point[] {
  const smooth = random() < 0.5;
  return Array.from({ length }, (_, i): Point => {
    const step = first + i;
    const value = smooth ? Math.exp(-step / 1e5) + Math.sin(step / 1000) * 0.1 : random();
    return { step, value, time: step * 10, writtenAt: 0 };
  });
}

describe("likelyReads", () => {
  it("names every block sampleSeries reads over consecutive steps, and not many more, wherever bucket edges fall", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 30; round++) {
      const points = denseSeries(random, Math.floor(random() * 1000), 20_000 + Math.floor(random() * 30_000));
      const first = points[0]!.step;
      const low = random() < 0.3 ? -Infinity : first + Math.floor(random() * 5000);
      const high = random() < 0.3 ? Infinity : low + 2000 + Math.floor(random() * 20_000);
      for (const blockSize of [100, 300, 500, 512]) {
        const series = arraySeries(points, blockSize, low, high);
        for (const limit of [40, 400, 1000]) {
          const label = `round ${round}, window ${low}..${high}, blocks of ${blockSize}, limit ${limit}`;
          const read = readsOf(series, limit);
          const likely = new Set(likelyReads(series.blocks, limit));
          for (const block of read) assert.ok(likely.has(block), `${label}: block ${block.startStep}..${block.endStep} is named`);
          assert.ok(likely.size <= 2 * read.size + 2, `${label}: ${likely.size} named, ${read.size} read`);
        }
      }
    }
  });

  it("names every block in the window when the window holds no more than the limit", () => {
    const { blocks } = arraySeries(series(Array.from({ length: 1000 }, (_, i) => i)), 64, 100, 299);
    assert.deepEqual(
      likelyReads(blocks, 200).map((block) => block.startStep),
      [64, 128, 192, 256],
    );
  });
});

describe("sampleFetched", () => {
  it("gives sampleSeries' sample once the blocks it names are fetched, in a round or two, whatever the series", () => {
    const random = seededRandom(5);
    for (let round = 0; round < 40; round++) {
      let step = 0;
      const points = Array.from({ length: 500 + Math.floor(random() * 8000) }, (_, i): Point => {
        step += 1 + Math.floor(random() * (random() < 0.05 ? 300 : 3));
        const r = random();
        return { step, value: r < 0.02 ? NaN : r < 0.03 ? Infinity : r < 0.04 ? -Infinity : Math.sin(i / 50), time: i, writtenAt: 0 };
      });
      const last = points.at(-1)!.step;
      const low = random() < 0.5 ? -Infinity : Math.floor(random() * last * 0.5);
      const high = random() < 0.5 ? Infinity : low + Math.floor(random() * last);
      const series = arraySeries(points, 1 + Math.floor(random() * 600), low, high);
      for (const limit of [1, 7, 100, 1000]) {
        const label = `round ${round}, window ${low}..${high}, limit ${limit}`;
        const fetched = new Map<PointBlock, PointReader>();
        let wanted = likelyReads(series.blocks, limit);
        for (let fetches = 1; ; fetches++) {
          for (const block of wanted) fetched.set(block, series.read(block));
          const sample = sampleFetched(series.blocks, limit, (block) => fetched.get(block));
          if ("points" in sample) {
            assert.deepEqual(sample.points, samplePoints(series, limit), label);
            break;
          }
          assert.ok(
            sample.missing.length > 0 && sample.missing.every((block) => !fetched.has(block)),
            `${label}: names blocks not fetched`,
          );
          assert.ok(fetches < 3, `${label}: still missing ${sample.missing.length} blocks after ${fetches} fetches`);
          wanted = sample.missing;
        }
      }
    }
  });
});

describe("lowerBound", () => {
  it("finds the first key at or above the target", () => {
    const keys = [1, 3, 3, 7];
    assert.deepEqual(
      [0, 1, 3, 4, 8].map((t) => lowerBound(keys.length, (i) => keys[i]!, t)),
      [0, 0, 1, 3, 4],
    );
  });
});
