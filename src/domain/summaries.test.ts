import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../test/helpers/ingest.js";
import {
  addPoints,
  combineSummaries,
  mayEndNonFinite,
  EMPTY_SUMMARY,
  meanAndVariance,
  mergeMoments,
  momentsOf,
  removePoints,
  type MetricSummaryState,
} from "./summaries.js";

// Exact reference: every finite double is an integer multiple of 2^-1074, so x·2^1074 is an exact
// BigInt, and sums and sums of squares of those are exact too.
const SCALE_BITS = 1074n;

function scaledExactly(x: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const scaled = mantissa << BigInt(Math.max(exponent, 1) - 1);
  return bits >> 63n ? -scaled : scaled;
}

const bitLength = (n: bigint) => (n === 0n ? 0 : n.toString(2).length);

/** num/den as the nearest double (to within an ulp), for den > 0. */
function ratioToNumber(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const negative = num < 0n;
  const magnitude = negative ? -num : num;
  let shift = bitLength(den) - bitLength(magnitude) + 64;
  const quotient = shift >= 0 ? (magnitude << BigInt(shift)) / den : magnitude / (den << BigInt(-shift));
  let x = Number(quotient);
  for (; shift > 1000; shift -= 1000) x *= 2 ** -1000;
  for (; shift < -1000; shift += 1000) x *= 2 ** 1000;
  x *= 2 ** -shift;
  return negative ? -x : x;
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((bitLength(n) >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Mean and population standard deviation of finite values, exactly, then rounded once. */
function exactMoments(values: number[]): { mean: number; stddev: number } {
  const finite = values.filter(Number.isFinite);
  const n = BigInt(finite.length);
  let sum = 0n;
  let squares = 0n;
  for (const x of finite) {
    const scaled = scaledExactly(x);
    sum += scaled;
    squares += scaled * scaled;
  }
  // n²·variance·2^2148 = n·Σx² − (Σx)²; stddev = sqrt(that) / (n·2^1074).
  const spread = n * squares - sum * sum;
  const extra = 128n;
  return {
    mean: ratioToNumber(sum, n << SCALE_BITS),
    stddev: ratioToNumber(isqrt(spread << (2n * extra)), (n << SCALE_BITS) << extra),
  };
}

/** Values of random magnitude between 1e-300 and 1e308, of one sign or mixed, sometimes nearly equal. */
function randomValues(random: () => number, length: number): number[] {
  const mode = Math.floor(random() * 5);
  const magnitude = () => 10 ** (-300 + random() * 608.2);
  const base = magnitude();
  return Array.from({ length }, () => {
    switch (mode) {
      case 0:
        return magnitude();
      case 1:
        return -magnitude();
      case 2:
        return (random() < 0.5 ? -1 : 1) * magnitude();
      case 3:
        return base * (1 + (random() - 0.5) * 1e-9); // a huge mean, a tiny spread
      default:
        return random() < 0.1 ? (random() < 0.5 ? -1.7e308 : 1.7976931348623157e308) : (random() - 0.5) * 10 ** (random() * 20);
    }
  });
}

/** The summary built the way the store builds it: batches added, then some parts merged as lineage segments are. */
function summaryInPieces(random: () => number, values: number[]): MetricSummaryState {
  const parts: MetricSummaryState[] = [];
  let state = EMPTY_SUMMARY;
  for (let i = 0; i < values.length; ) {
    const size = 1 + Math.floor(random() * 20);
    const batch = values.slice(i, i + size);
    const steps = batch.map((_, k) => i + k);
    if (random() < 0.3) {
      parts.push(state);
      state = addPoints(EMPTY_SUMMARY, steps, batch);
    } else state = addPoints(state, steps, batch);
    i += size;
  }
  return parts.reduce((total, part) => combineSummaries(part, total), state);
}

describe("metric summaries", () => {
  it("counts finite values only and tracks steps over all points", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [2, NaN, 4, Infinity]);
    assert.deepEqual(s, {
      count: 2,
      nonFiniteCount: 2,
      min: 2,
      max: 4,
      mean: 3,
      stddev: 1,
      firstStep: 0,
      lastStep: 3,
      lastValue: 4,
      lastValueStep: 2,
    });
  });

  it("takes non-finite points out in place and asks for a rescan when a finite value is taken out", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [5, NaN, 1, 3]);
    assert.equal(removePoints(s, [5]).rescan, true);
    assert.equal(removePoints(s, [3]).rescan, true);
    const { state, rescan } = removePoints(s, [NaN]);
    assert.equal(rescan, false);
    assert.equal(state.nonFiniteCount, 0);
    assert.equal(state.count, 3);
  });

  it("computes the population variance", () => {
    const s = addPoints(EMPTY_SUMMARY, [0, 1, 2, 3], [1, 2, 3, 4]);
    const { mean, variance } = meanAndVariance(s);
    assert.equal(mean, 2.5);
    assert.ok(Math.abs(variance! - 1.25) < 1e-15, `variance ${variance}`);
    assert.deepEqual(meanAndVariance(EMPTY_SUMMARY), { mean: null, variance: null });
    assert.equal(meanAndVariance(addPoints(EMPTY_SUMMARY, [0, 1, 2], [0.1, 0.1, 0.1])).variance, 0);
  });

  it("stays finite where sums of values and squares overflow", () => {
    const one = addPoints(EMPTY_SUMMARY, [0, 1], [1e155, 0]);
    assert.equal(one.mean, 5e154);
    assert.equal(one.stddev, 5e154);
    // The true variance, 2.5e309, is beyond the float range: it saturates at the largest double.
    assert.equal(meanAndVariance(one).variance, Number.MAX_VALUE);
    const top = addPoints(EMPTY_SUMMARY, [0, 1], [1.7e308, 1.7e308]);
    assert.deepEqual([top.mean, top.stddev], [1.7e308, 0]);
    const wide = addPoints(EMPTY_SUMMARY, [0, 1], [-Number.MAX_VALUE, Number.MAX_VALUE]);
    assert.deepEqual([wide.mean, wide.stddev], [0, Number.MAX_VALUE]);
    const merged = mergeMoments(momentsOf([Number.MAX_VALUE]), momentsOf([-Number.MAX_VALUE]));
    assert.deepEqual([merged.mean, merged.stddev], [0, Number.MAX_VALUE]);
  });

  it("matches an exact reference over values from 1e-300 to 1e308, negative and mixed, added and merged in pieces", () => {
    const random = seededRandom(11);
    for (let round = 0; round < 300; round++) {
      const values = randomValues(random, 1 + Math.floor(random() * 120));
      const largest = Math.max(...values.map(Math.abs));
      const exact = exactMoments(values);
      for (const got of [momentsOf(values), summaryInPieces(random, values)]) {
        const label = `round ${round}: ${values.length} values up to ${largest}`;
        assert.ok(Number.isFinite(got.mean) && Number.isFinite(got.stddev), label);
        // Rounding error of double arithmetic is relative to the largest magnitude involved.
        assert.ok(
          Math.abs(got.mean - exact.mean) <= 1e-12 * Math.abs(exact.mean) + 1e-13 * largest,
          `${label}: mean ${got.mean} vs ${exact.mean}`,
        );
        assert.ok(
          Math.abs(got.stddev - exact.stddev) <= 1e-12 * exact.stddev + 1e-13 * largest,
          `${label}: stddev ${got.stddev} vs ${exact.stddev}`,
        );
        const { variance } = meanAndVariance(got);
        assert.ok(variance !== null && Number.isFinite(variance), label);
      }
    }
  });
});

it("a series ends non-finite exactly when its highest step holds NaN or ±Inf", () => {
  const steps = (n: number) => Array.from({ length: n }, (_, i) => i);
  assert.equal(mayEndNonFinite(EMPTY_SUMMARY), false);
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, steps(3), [1, 2, 3])), false);
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, steps(3), [1, NaN, 2])), true);
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, steps(3), [1, 2, NaN])), true);
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, steps(2), [-Infinity, Infinity])), true);
  // Steps need not arrive in order: the highest one decides.
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, [5, 2], [NaN, 1])), true);
  assert.equal(mayEndNonFinite(addPoints(EMPTY_SUMMARY, [2, 5], [NaN, 1])), true);
});
