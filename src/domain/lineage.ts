/**
 * A forked run's metric series is read through its lineage: its own points, then its parent's up
 * to the fork step, and so on (docs/semantics.md, Metrics). These rules decide which stored points
 * of which run belong to the series; the stores only fetch them.
 */

/** Deeper lineages are refused at fork time; this bounds the walk even if data were corrupt. */
export const MAX_LINEAGE_DEPTH = 100;

/** Read up to here when nothing cuts a segment. */
export const ALL_STEPS = Number.MAX_SAFE_INTEGER;

/** One run of a lineage chain: the run, then its parent, grandparent, ... */
export interface LineageLink {
  id: number;
  forkedFromRunId: number | null;
  forkStep: number | null;
}

/** A run's stored metric of one name: its ID in the store and its first step (null when it has no points). */
export interface StoredMetricRef {
  id: number;
  firstStep: number | null;
}

/**
 * One run's stored points of a metric that belong to a (possibly inherited) series: the points
 * with step ≤ maxStep. A forked run's series is its lineage's segments, ascending and disjoint.
 */
export interface Segment {
  runId: number;
  metricId: number;
  maxStep: number;
}

/**
 * The segments of a metric's series for a lineage chain (the run first), oldest first. A parent
 * counts only up to the child's fork step, and only below the child's own first point of that
 * metric: where both have points, the child's own win.
 */
export function lineageSegments(chain: LineageLink[], metricOf: (runId: number) => StoredMetricRef | undefined): Segment[] {
  const segments: Segment[] = [];
  let cutoff = ALL_STEPS;
  for (const link of chain) {
    const metric = metricOf(link.id);
    const firstStep = metric?.firstStep ?? null;
    if (metric && firstStep !== null && firstStep <= cutoff) segments.unshift({ runId: link.id, metricId: metric.id, maxStep: cutoff });
    if (link.forkedFromRunId === null) break;
    cutoff = Math.min(cutoff, link.forkStep ?? 0, firstStep === null ? ALL_STEPS : firstStep - 1);
    if (cutoff < 0) break;
  }
  return segments;
}

/** A segment's part of a read window [from, to]. */
export interface Piece {
  metricId: number;
  from: number;
  to: number;
}

/** The non-empty parts of the segments inside [from, to], in segment order. */
export function piecesOf(segments: Segment[], from: number, to: number): Piece[] {
  return segments.map((seg) => ({ metricId: seg.metricId, from, to: Math.min(to, seg.maxStep) })).filter((piece) => piece.from <= piece.to);
}
