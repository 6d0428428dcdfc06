import { meanAndVariance, type MetricSummaryState } from "./summaries.js";

export const AGGREGATIONS = ["MIN", "MAX", "AVG", "LAST", "VARIANCE"] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];
export const DIRECTIONS = ["ASC", "DESC"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The value a run is ranked by; null when the run has no finite value of the metric. */
export function aggregateValue(summary: MetricSummaryState, aggregation: Aggregation): number | null {
  switch (aggregation) {
    case "MIN":
      return summary.min;
    case "MAX":
      return summary.max;
    case "AVG":
      return meanAndVariance(summary).mean;
    case "VARIANCE":
      return meanAndVariance(summary).variance;
    case "LAST":
      return summary.lastValue;
  }
}

/** Ranks runs by value (decisions §8): runs without a value are left out; ties go to the lower run ID in both directions. */
export function rankRuns<T extends { runId: number; value: number | null }>(entries: T[], direction: Direction): (T & { value: number })[] {
  const sign = direction === "ASC" ? 1 : -1;
  return entries
    .filter((entry): entry is T & { value: number } => entry.value !== null)
    .sort((a, b) => sign * (a.value - b.value) || a.runId - b.runId);
}
