// The runs table's extra columns: config and system-metadata keys, and summary metrics (a metric's
// last finite value, its minimum or its maximum). Until the user chooses columns, the table shows
// the sweep's: the config keys whose values differ between the runs of the selection, then the main
// metrics (lib/metric-choice.ts).

import { mainMetrics } from "./metric-choice.ts";
import { differingKeys } from "./tree.ts";

export type Aggregate = "last" | "min" | "max";
export const AGGREGATES: readonly Aggregate[] = ["last", "min", "max"];

export interface Column {
  source: "config" | "systemMetadata" | "summary";
  key: string;
  /** A summary column's value: the last finite one (the default), the minimum or the maximum. */
  aggregate?: Aggregate;
}

/** Config keys a default table shows at most: a sweep varies a few; a config that differs everywhere would crowd out the metrics. */
const DEFAULT_CONFIG_COLUMNS = 6;

/** The default columns for runs with these flattened configs, in a project with these metrics. */
export function defaultColumns(flatConfigs: readonly Record<string, unknown>[], metricNames: readonly string[]): Column[] {
  const differing = flatConfigs.length > 1 ? differingKeys(flatConfigs).slice(0, DEFAULT_CONFIG_COLUMNS) : [];
  return [
    ...differing.map((key) => ({ source: "config" as const, key })),
    ...mainMetrics(metricNames).map((key) => ({ source: "summary" as const, key })),
  ];
}

/** A column's identity in the table (the same key with another aggregate is another column). */
export const columnId = (column: Column) =>
  column.source === "summary" && column.aggregate && column.aggregate !== "last"
    ? `summary.${column.key}.${column.aggregate}`
    : `${column.source}.${column.key}`;

const SOURCES = new Set<Column["source"]>(["config", "systemMetadata", "summary"]);

/** Stored columns: null when none were ever chosen (the defaults apply), else the well-formed ones. */
export function parseColumns(stored: unknown): Column[] | null {
  if (!Array.isArray(stored)) return null;
  const seen = new Set<string>();
  return stored.flatMap((item): Column[] => {
    if (typeof item !== "object" || item === null) return [];
    const { source, key, aggregate } = item as Record<string, unknown>;
    if (typeof key !== "string" || !SOURCES.has(source as Column["source"])) return [];
    const kept = AGGREGATES.find((choice) => choice === aggregate);
    const column: Column = {
      source: source as Column["source"],
      key,
      ...(source === "summary" && kept && kept !== "last" ? { aggregate: kept } : {}),
    };
    // Each column once (a stored list written by hand, or by an older page, may repeat one).
    if (seen.has(columnId(column))) return [];
    seen.add(columnId(column));
    return [column];
  });
}

/** Where a project's chosen columns are kept in this browser. */
export const columnsStorageKey = (projectName: string) => `stepwise.columns.${projectName}`;

/** Stored columns as text: null when none were ever chosen (or the text is not JSON). */
export function parseColumnsText(text: string | null): Column[] | null {
  try {
    return text === null ? null : parseColumns(JSON.parse(text));
  } catch {
    return null;
  }
}
