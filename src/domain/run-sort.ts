import { invalidInput } from "./errors.js";

/** Sorts the store does itself, on columns. */
export const COLUMN_SORTS = ["createdAt", "updatedAt", "name", "status"] as const;
export type ColumnSort = (typeof COLUMN_SORTS)[number];

/**
 * The `sort` parameter of `/list` (docs/api.md, Run list): a column, or a config, system-metadata or summary
 * metric key, each optionally prefixed with `-` for descending.
 */
export type RunSort =
  | { kind: "column"; field: ColumnSort; descending: boolean }
  | { kind: "duration"; descending: boolean }
  | { kind: "config" | "systemMetadata" | "summaryMetrics"; key: string; descending: boolean };

const KEY_SORT_PREFIXES: [string, "config" | "systemMetadata" | "summaryMetrics"][] = [
  ["config.", "config"],
  ["systemMetadata.", "systemMetadata"],
  ["summary_metrics.", "summaryMetrics"],
  ["summaryMetrics.", "summaryMetrics"],
];

/** The sort a name (without its `-`) asks for, or undefined when the run list cannot sort by it. */
export function runSortOf(name: string, descending = false): RunSort | undefined {
  if ((COLUMN_SORTS as readonly string[]).includes(name)) return { kind: "column", field: name as ColumnSort, descending };
  if (name === "duration") return { kind: "duration", descending };
  for (const [prefix, kind] of KEY_SORT_PREFIXES) {
    if (name.startsWith(prefix) && name.length > prefix.length) return { kind, key: name.slice(prefix.length), descending };
  }
  return undefined;
}

export function parseRunSort(raw: string | undefined): RunSort {
  const text = (raw ?? "-createdAt").trim();
  const descending = text.startsWith("-");
  const sort = runSortOf(descending ? text.slice(1) : text, descending);
  if (sort) return sort;
  throw invalidInput(
    `sort: '${raw}' is not one of createdAt, updatedAt, name, status, duration, config.<key>, systemMetadata.<key> or summary_metrics.<name> (prefix - for descending)`,
  );
}
