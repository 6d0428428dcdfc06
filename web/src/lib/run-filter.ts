// The runs table's filter builder: rows of (field, operator, value) → the API's JSON run filter.
// The operators and field names are the server's grammar (RUN_FILTER_GRAMMAR).

import type { LeafOperator, RUN_FILTER_GRAMMAR } from "../../../src/domain/shared-with-ui.ts";

export type FilterOperator = LeafOperator;

/** A label for every operator of the grammar (a new one fails the type check until it has one), in the order offered. */
export const OPERATOR_LABELS: Record<FilterOperator, string> = {
  $eq: "=",
  $ne: "≠",
  $gt: ">",
  $gte: "≥",
  $lt: "<",
  $lte: "≤",
  $regex: "matches",
  $in: "any of",
  $nin: "none of",
};
export const FILTER_OPERATORS = Object.keys(OPERATOR_LABELS) as FilterOperator[];

/** The field names the builder suggests: the grammar's canonical spellings (`createdAt`, not `created_at`). */
type GrammarName = (typeof RUN_FILTER_GRAMMAR.fields)[number] | (typeof RUN_FILTER_GRAMMAR.fieldPrefixes)[number];
export const FIELD_HINTS = [
  "name",
  "status",
  "tags",
  "createdAt",
  "config.",
  "systemMetadata.",
  "summaryMetrics.",
] as const satisfies readonly GrammarName[];

export interface FilterRow {
  /** name, status, tags, createdAt, config.<key>, systemMetadata.<key> or summaryMetrics.<name> */
  field: string;
  operator: FilterOperator;
  value: string;
}

/** A typed value as the user meant it: numbers and booleans for config keys, text otherwise. */
export function parseOperand(text: string): string | number | boolean | null {
  const trimmed = text.trim();
  if (trimmed === "true") return true;
  if (trimmed === "false") return false;
  if (trimmed === "null") return null;
  if (trimmed !== "" && Number.isFinite(Number(trimmed))) return Number(trimmed);
  return text;
}

function condition(row: FilterRow): unknown {
  if (row.operator === "$in" || row.operator === "$nin") {
    const items = row.value
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    return { [row.operator]: row.field === "tags" || row.field === "status" ? items : items.map(parseOperand) };
  }
  if (row.operator === "$regex") return { $regex: row.value, $options: "i" };
  const text = row.field === "name" || row.field === "tags" || row.field === "status" || row.field === "createdAt";
  return { [row.operator]: text ? row.value : parseOperand(row.value) };
}

/** The filter JSON text for /api/runs/list, or "" when no row is complete. All rows must hold. */
export function buildRunFilter(rows: readonly FilterRow[]): string {
  const complete = rows.filter(
    (row) => row.field.trim() !== "" && (row.value.trim() !== "" || row.operator === "$eq" || row.operator === "$ne"),
  );
  if (complete.length === 0) return "";
  const terms = complete.map((row) => ({ [row.field.trim()]: condition(row) }));
  return JSON.stringify(terms.length === 1 ? terms[0] : { $and: terms });
}
