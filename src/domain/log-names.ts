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

/** A log name as a run records it: its type is the first one sent (a known name keeps its type). */
export interface LogNameEntry {
  logName: string;
  logType: string;
  /** logGroupOf the name; null when it has none. */
  logGroup: string | null;
}

/** The entries a batch records, in the order sent: the store adds the names a run does not know yet, the first of each winning. */
export function logNameEntries<T>(items: readonly T[], nameOf: (item: T) => string, typeOf: (item: T) => string): LogNameEntry[] {
  return items.map((item) => {
    const logName = nameOf(item);
    return { logName, logType: typeOf(item), logGroup: logGroupOf(logName) || null };
  });
}

/**
 * The last item of each key in a batch, in first-seen order: an item re-sent within one batch
 * replaces the earlier one, as if the items were written one after another (console lines by
 * (logType, lineNumber, time), data rows by (logName, step)).
 */
export function lastOfEachKey<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(keyOf(item), item);
  return [...byKey.values()];
}
