import { invalidInput } from "./errors.js";

/** The group of a log name: the part before its last `/`, or "" when there is none (docs/semantics.md, Metrics: points). */
export function logGroupOf(logName: string): string {
  const slash = logName.lastIndexOf("/");
  return slash === -1 ? "" : logName.slice(0, slash);
}

/** The log type a data row's name is listed under in the run's log names. */
export function logTypeOfData(dataType: string): "HISTOGRAM" | "TABLE" | "TEXT" | "DATA" {
  const type = dataType.toUpperCase();
  if (type === "HISTOGRAM" || type === "TABLE" || type === "TEXT") return type;
  if (type === "STRING-SERIES" || type === "STRING") return "TEXT";
  return "DATA";
}

/**
 * The most metrics one run may have (docs/api.md, "Limits on every request"). Every whole-run read
 * (statistics, details, MLflow's runs/get) answers each of a run's metrics, so without a bound one
 * run of 300,000 names made a 54 MB statistics answer that held the server for seconds. Per-layer
 * and per-expert metrics of large models stay well within it.
 */
export const MAX_METRICS_PER_RUN = 20_000;

/** Throws INVALID_INPUT when a run that had `before` metrics would have `after`, past MAX_METRICS_PER_RUN. */
export function checkMetricCount(before: number, after: number): void {
  if (after > MAX_METRICS_PER_RUN)
    throw invalidInput(
      `a run may have at most ${MAX_METRICS_PER_RUN} metrics: this one has ${before}, and this batch names ${after - before} new ones`,
    );
}
