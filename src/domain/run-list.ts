import { invalidInput } from "./errors.js";
import { checkClientJson } from "./json-text.js";
import { flatten, setOwn, type Json } from "./merge.js";
import { ownValue, type FilterableRun } from "./run-view.js";
import type { RunSort } from "./run-sort.js";
import { RUN_STATUSES, STATUS_ALIASES, type RunStatus } from "./status.js";

// The sort grammar and the duration rule live in modules of their own, which the web UI shares (shared-with-ui.ts).
export { runDuration } from "./run-duration.js";
export { COLUMN_SORTS, type ColumnSort, parseRunSort, type RunSort } from "./run-sort.js";

/** The `status` parameter: a comma list of status names (any case) or the aliases finished, crashed, killed. */
export function parseStatusList(raw: string | undefined): RunStatus[] | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  return [
    ...new Set(
      raw.split(",").map((part) => {
        const name = part.trim();
        const status = STATUS_ALIASES.get(name.toLowerCase()) ?? RUN_STATUSES.find((s) => s === name.toUpperCase());
        if (!status) throw invalidInput(`status: '${name}' is not one of ${RUN_STATUSES.join(", ")}`);
        return status;
      }),
    ),
  ];
}

/** The `tags` parameter: comma-separated, blanks ignored. */
export function parseTagList(raw: string | undefined): string[] | undefined {
  const tags = (raw ?? "")
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
  return tags.length === 0 ? undefined : [...new Set(tags)];
}

export interface FieldSelection {
  source: "config" | "systemMetadata";
  key: string;
}

/** The field selection (`visibleColumns`): a JSON array of {source, key}. */
export function parseFieldSelection(raw: string | undefined): FieldSelection[] | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseJsonParameter("visibleColumns", raw);
  if (!Array.isArray(parsed)) throw invalidInput("visibleColumns: must be a JSON array of {source, key}");
  return parsed.map((entry, index) => {
    const { source, key } = (entry ?? {}) as { source?: unknown; key?: unknown };
    if (source !== "config" && source !== "systemMetadata")
      throw invalidInput(`visibleColumns[${index}].source: must be config or systemMetadata`);
    if (typeof key !== "string" || key === "") throw invalidInput(`visibleColumns[${index}].key: must be a non-empty string`);
    return { source, key };
  });
}

export function parseJsonParameter(name: string, raw: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw invalidInput(`${name}: malformed JSON (${(error as Error).message})`);
  }
  checkClientJson(raw, value, name);
  return value;
}

/** `_flatConfig` / `_flatSystemMetadata` of one source, restricted to the selected keys when a selection is given. */
export function fieldValues(
  flat: Record<string, Json>,
  source: FieldSelection["source"],
  selection: FieldSelection[] | undefined,
): Record<string, Json> {
  if (selection === undefined) return flat;
  const picked: Record<string, Json> = {};
  for (const { key } of selection.filter((entry) => entry.source === source)) {
    const value = ownValue(flat, key);
    if (value !== undefined) setOwn(picked, key, value);
  }
  return picked;
}

/** The value a key sort orders by; undefined when the run lacks it. */
export function sortValue(
  run: FilterableRun,
  sort: Extract<RunSort, { kind: "config" | "systemMetadata" | "summaryMetrics" }>,
): Json | undefined {
  return ownValue<Json>(run[sort.kind], sort.key);
}

// Values of different types order as MongoDB orders them: null, numbers, strings, objects, arrays, booleans.
const TYPE_RANK = (value: Json) =>
  value === null
    ? 0
    : typeof value === "number"
      ? 1
      : typeof value === "string"
        ? 2
        : Array.isArray(value)
          ? 4
          : typeof value === "object"
            ? 3
            : 5;

/**
 * Compares two sort values for the requested direction. Runs without the value come last in both
 * directions, so sorting by a metric never hides the runs that have it behind those that lack it.
 */
export function compareSortValues(a: Json | undefined, b: Json | undefined, descending: boolean): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const byType = TYPE_RANK(a) - TYPE_RANK(b);
  const text = (value: Json) => (typeof value === "string" ? value : JSON.stringify(value));
  let order: number;
  if (byType !== 0) order = byType;
  else if (typeof a === "number" || typeof a === "boolean") order = Number(a) - Number(b);
  else order = text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0;
  return descending ? -order : order;
}

/** A run as the filters see it: flattened config and metadata, and the summary values it needs. */
export function toFilterableRun(
  run: {
    name: string;
    status: RunStatus;
    tags: string[];
    createdAt: number;
    updatedAt: number;
    heartbeatAt: number | null;
    config: Json | null;
    systemMetadata: Json | null;
  },
  summaryMetrics: Record<string, number | null>,
): FilterableRun {
  return {
    name: run.name,
    status: run.status,
    tags: run.tags,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    heartbeatAt: run.heartbeatAt,
    config: flatten(run.config ?? undefined),
    systemMetadata: flatten(run.systemMetadata ?? undefined),
    summaryMetrics,
  };
}
