import { meanAndVariance, type MetricSummaryState } from "./summaries.js";

export const AGGREGATIONS = ["MIN", "MAX", "AVG", "LAST", "VARIANCE"] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];
export const DIRECTIONS = ["ASC", "DESC"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** A run's place on a leaderboard: the value reported, and the key it is ordered by. */
export interface LeaderboardEntry {
  runId: number;
  value: number;
  /** Equal to value except for a variance beyond the float range, which is ordered by its standard deviation. */
  order: number;
}

/** What a run is ranked by; undefined when the run has no finite value of the metric. */
export function leaderboardEntry(runId: number, summary: MetricSummaryState, aggregation: Aggregation): LeaderboardEntry | undefined {
  if (summary.count === 0) return undefined;
  switch (aggregation) {
    case "MIN":
      return { runId, value: summary.min!, order: summary.min! };
    case "MAX":
      return { runId, value: summary.max!, order: summary.max! };
    case "AVG":
      return { runId, value: summary.mean, order: summary.mean };
    case "VARIANCE":
      return { runId, value: meanAndVariance(summary).variance!, order: summary.stddev };
    case "LAST":
      return { runId, value: summary.lastValue!, order: summary.lastValue! };
  }
}

/** Ranks runs by value (docs/semantics.md, Metrics: leaderboard): ties go to the lower run ID in both directions. */
export function rankRuns(entries: LeaderboardEntry[], direction: Direction): LeaderboardEntry[] {
  const sign = direction === "ASC" ? 1 : -1;
  return entries.sort((a, b) => sign * (a.order - b.order) || a.runId - b.runId);
}
