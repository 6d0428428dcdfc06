// Parameter importance for a sweep (issue 23, item 1; method in docs/decisions.md, "Web UI: sweep
// analysis"): for each config key, how strongly the chosen metric follows it — a correlation, and
// the key's share of a random forest's variance reduction, as W&B reports. Config values of any type
// are kept: a key whose values are all numbers (or all booleans) is numeric, any other mix is
// categorical (its values' JSON text as levels), and a missing value is counted, never dropped
// silently. Pure and deterministic (a seeded generator), computed in the browser over the runs read.

import { formatValue } from "./format.ts";
/** One config key's values across the runs, as the sweep read gives them (undefined: the run lacks it). */
export type Values = readonly unknown[];

export type FeatureKind = "numeric" | "categorical";

export interface Feature {
  key: string;
  kind: FeatureKind;
  /** Numeric: the number (booleans 0/1); categorical: the level's index in `levels`; NaN where missing. */
  codes: Float64Array;
  /** Categorical levels, as shown (JSON text of each distinct value), sorted. */
  levels: string[];
  missing: number;
}

/** A key's values as a feature: numeric when every present value is a finite number, or every one a boolean. */
export function featureOf(key: string, values: Values): Feature {
  const present = values.filter((value) => value !== undefined && value !== null);
  const numeric = present.length > 0 && present.every((value) => typeof value === "number" && Number.isFinite(value));
  const boolean = present.length > 0 && present.every((value) => typeof value === "boolean");
  const codes = new Float64Array(values.length).fill(Number.NaN);
  let missing = 0;
  if (numeric || boolean) {
    for (const [i, value] of values.entries()) {
      if (value === undefined || value === null) missing++;
      else codes[i] = boolean ? Number(value) : (value as number);
    }
    return { key, kind: "numeric", codes, levels: boolean ? ["false", "true"] : [], missing };
  }
  // Levels are told apart by their JSON ("1" and 1 differ), shown as the table shows values.
  const identities = [...new Set(present.map((value) => JSON.stringify(value)))].sort();
  const index = new Map(identities.map((identity, i) => [identity, i]));
  for (const [i, value] of values.entries()) {
    if (value === undefined || value === null) missing++;
    else codes[i] = index.get(JSON.stringify(value))!;
  }
  return { key, kind: "categorical", codes, levels: identities.map((identity) => formatValue(JSON.parse(identity))), missing };
}

/** Pearson's r of the pairs where both are finite; null with fewer than 3 pairs or no spread. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < x.length; i++)
    if (Number.isFinite(x[i]) && Number.isFinite(y[i])) {
      n++;
      sx += x[i]!;
      sy += y[i]!;
    }
  if (n < 3) return null;
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++)
    if (Number.isFinite(x[i]) && Number.isFinite(y[i])) {
      sxy += (x[i]! - mx) * (y[i]! - my);
      sxx += (x[i]! - mx) ** 2;
      syy += (y[i]! - my) ** 2;
    }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

/**
 * The correlation ratio η of a categorical feature (missing as its own level) with y: the share of
 * y's spread the levels explain, square-rooted, 0 to 1 (unsigned: levels have no order).
 */
export function correlationRatio(codes: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const groups = new Map<number, { n: number; sum: number }>();
  let n = 0;
  let sum = 0;
  for (let i = 0; i < codes.length; i++) {
    if (!Number.isFinite(y[i])) continue;
    const level = Number.isNaN(codes[i]) ? -1 : codes[i]!;
    const group = groups.get(level) ?? { n: 0, sum: 0 };
    group.n++;
    group.sum += y[i]!;
    groups.set(level, group);
    n++;
    sum += y[i]!;
  }
  if (n < 3 || groups.size < 2) return null;
  const mean = sum / n;
  let total = 0;
  for (let i = 0; i < codes.length; i++) if (Number.isFinite(y[i])) total += (y[i]! - mean) ** 2;
  if (total === 0) return null;
  let between = 0;
  for (const group of groups.values()) between += group.n * (group.sum / group.n - mean) ** 2;
  return Math.sqrt(between / total);
}

/** A small seeded generator (mulberry32): the same runs give the same importances. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ForestOptions {
  trees: number;
  maxDepth: number;
  minLeaf: number;
  seed: number;
}
export const FOREST: ForestOptions = { trees: 50, maxDepth: 8, minLeaf: 2, seed: 1 };

/**
 * Each feature's share of the variance reduction of a random forest of regression trees on y
 * (bootstrap samples, every feature tried at each split, as scikit-learn's RandomForestRegressor
 * does by default: drawing a third of them made a node split on a key that explains nothing when
 * that was all it drew), summing to 1 (all 0 when no split helps). Trees grow level by level over features sorted once:
 * each level scans every feature's order one time, so the cost is trees × depth × features × runs.
 * A categorical feature's levels are ordered by their mean y first (the order in which a split of a
 * regression tree over levels is best); a missing value sorts first (below every number, or as its
 * own level).
 */
export function forestImportance(features: readonly Feature[], y: ArrayLike<number>, options: ForestOptions = FOREST): number[] {
  const rows = Array.from({ length: y.length }, (_, i) => i).filter((i) => Number.isFinite(y[i]));
  const p = features.length;
  const importance = new Array<number>(p).fill(0);
  if (rows.length < 2 * options.minLeaf || p === 0) return importance;
  const n = rows.length;
  const target = Float64Array.from(rows, (i) => y[i]!);
  const x = features.map((feature) => orderedCodes(feature, rows, target));
  const sorted = x.map((column) => Array.from({ length: n }, (_, i) => i).sort((a, b) => column[a]! - column[b]!));
  const next = random(options.seed);
  const weight = new Float64Array(n);
  const nodeOf = new Int32Array(n);
  for (let tree = 0; tree < options.trees; tree++) {
    weight.fill(0);
    for (let k = 0; k < n; k++) weight[Math.floor(next() * n)]! += 1;
    nodeOf.fill(0);
    // Nodes of the level being split: their totals, and the features each may split on.
    let nodes = totals(weight, target, nodeOf, 1);
    for (let depth = 0; depth < options.maxDepth && nodes.w.length > 0; depth++) {
      const count = nodes.w.length;
      const best = Array.from({ length: count }, () => ({ gain: 1e-12, feature: -1, threshold: 0 }));
      // Per node, the weight and weighted sum of y left of the scan, and the last value seen.
      const leftW = new Float64Array(count);
      const leftS = new Float64Array(count);
      const last = new Float64Array(count);
      for (let f = 0; f < p; f++) {
        const column = x[f]!;
        leftW.fill(0);
        leftS.fill(0);
        last.fill(Number.NaN);
        for (const i of sorted[f]!) {
          const w = weight[i]!;
          const node = nodeOf[i]!;
          if (w === 0 || node < 0) continue;
          const value = column[i]!;
          const lw = leftW[node]!;
          const tw = nodes.w[node]!;
          if (lw >= options.minLeaf && tw - lw >= options.minLeaf && value !== last[node]) {
            const ls = leftS[node]!;
            const ts = nodes.s[node]!;
            const gain = (ls * ls) / lw + ((ts - ls) * (ts - ls)) / (tw - lw) - (ts * ts) / tw;
            if (gain > best[node]!.gain) best[node] = { gain, feature: f, threshold: (last[node]! + value) / 2 };
          }
          leftW[node] = lw + w;
          leftS[node] = leftS[node]! + w * target[i]!;
          last[node] = value;
        }
      }
      // Split the nodes that gained; the others become leaves (their rows leave the tree).
      const children = new Map<number, number>();
      let childCount = 0;
      for (const [node, split] of best.entries()) {
        if (split.feature < 0) continue;
        importance[split.feature]! += split.gain;
        children.set(node, childCount);
        childCount += 2;
      }
      for (let i = 0; i < n; i++) {
        const node = nodeOf[i]!;
        const child = node < 0 ? undefined : children.get(node);
        if (child === undefined) nodeOf[i] = -1;
        else {
          const split = best[node]!;
          nodeOf[i] = child + (x[split.feature]![i]! <= split.threshold ? 0 : 1);
        }
      }
      nodes = totals(weight, target, nodeOf, childCount);
    }
  }
  const sum = importance.reduce((a, b) => a + b, 0);
  return sum > 0 ? importance.map((value) => value / sum) : importance;
}

/** Per node, its bootstrap weight and weighted sum of y. */
function totals(weight: Float64Array, target: Float64Array, nodeOf: Int32Array, count: number): { w: Float64Array; s: Float64Array } {
  const nodes = { w: new Float64Array(count), s: new Float64Array(count) };
  for (let i = 0; i < nodeOf.length; i++) {
    const node = nodeOf[i]!;
    if (node < 0) continue;
    nodes.w[node]! += weight[i]!;
    nodes.s[node]! += weight[i]! * target[i]!;
  }
  return nodes;
}

/** A feature's codes over `rows` as numbers a tree can split: missing lowest, categorical levels by mean y. */
function orderedCodes(feature: Feature, rows: readonly number[], target: Float64Array): Float64Array {
  const codes = Float64Array.from(rows, (i) => feature.codes[i]!);
  if (feature.kind === "numeric") {
    let min = Number.POSITIVE_INFINITY;
    for (const code of codes) if (!Number.isNaN(code)) min = Math.min(min, code);
    const below = Number.isFinite(min) ? min - 1 - Math.abs(min) : 0;
    return codes.map((code) => (Number.isNaN(code) ? below : code));
  }
  const sums = new Map<number, { n: number; s: number }>();
  for (const [k, code] of codes.entries()) {
    const level = Number.isNaN(code) ? -1 : code;
    const entry = sums.get(level) ?? { n: 0, s: 0 };
    entry.n++;
    entry.s += target[k]!;
    sums.set(level, entry);
  }
  const rank = new Map([...sums.entries()].sort(([, a], [, b]) => a.s / a.n - b.s / b.n).map(([level], i) => [level, i]));
  return codes.map((code) => rank.get(Number.isNaN(code) ? -1 : code)!);
}

export interface Importance {
  key: string;
  kind: FeatureKind;
  /** Numeric: Pearson's r (signed); categorical: the correlation ratio η (0 to 1). */
  correlation: number | null;
  /** Share of the forest's variance reduction, 0 to 1. */
  importance: number;
  levels: number;
  missing: number;
}

/** Every key's importance for y, most important first (then by key). */
export function importances(keys: readonly string[], values: (key: string) => Values, y: ArrayLike<number>): Importance[] {
  const features = keys.map((key) => featureOf(key, values(key)));
  const forest = forestImportance(features, y);
  return features
    .map((feature, f) => ({
      key: feature.key,
      kind: feature.kind,
      correlation: feature.kind === "numeric" ? pearson(feature.codes, y) : correlationRatio(feature.codes, y),
      importance: forest[f]!,
      levels: feature.levels.length,
      missing: feature.missing,
    }))
    .sort((a, b) => b.importance - a.importance || a.key.localeCompare(b.key));
}
