// The runs table's filter builder: rows of (field, operator, value) → the API's JSON run filter.

export const FILTER_OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$regex", "$in", "$nin"] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

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
