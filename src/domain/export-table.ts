/**
 * How exported tables are spelled (docs/import.md, Export): the column types a run table's
 * columns get from their values, and CSV's quoting and numbers, written so pandas and DuckDB read
 * them back as they were: NaN as `nan`, ±Infinity as `inf` / `-inf`, every finite double in the
 * shortest text that reads back to the same bits.
 */

export type ColumnType = "int64" | "double" | "string" | "boolean" | "timestamp";

export interface Column {
  name: string;
  type: ColumnType;
}

/** A value of a cell: null is empty. Timestamps are epoch milliseconds. */
export type Cell = string | number | boolean | null;

/** A double as CSV text pandas and DuckDB read back exactly. */
export function csvNumber(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Number.POSITIVE_INFINITY) return "inf";
  if (value === Number.NEGATIVE_INFINITY) return "-inf";
  // -0 keeps its sign (String(-0) is "0").
  return Object.is(value, -0) ? "-0" : String(value);
}

/** A text field, quoted (RFC 4180: in double quotes, quotes doubled) when it holds a comma, quote, line break or edge space. */
export function csvText(value: string): string {
  if (!/[",\r\n]|^\s|\s$/.test(value) && value !== "") return value;
  return `"${value.replaceAll('"', '""')}"`;
}

/** One cell as CSV text: null is an empty field, an empty string a quoted one (so they stay apart). */
export function csvCell(value: Cell, type: ColumnType): string {
  if (value === null) return "";
  if (type === "timestamp" && typeof value === "number") return new Date(value).toISOString();
  if (typeof value === "number") return csvNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return csvText(value);
}

/**
 * The type of a column of values of any kind (a config key across runs): numbers → double,
 * booleans → boolean, anything mixed or text → string (non-strings as their JSON text). Null
 * values do not count; an all-null column is a string column.
 */
export function inferColumnType(values: Iterable<unknown>): ColumnType {
  let numbers = 0;
  let booleans = 0;
  let others = 0;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (typeof value === "number") numbers++;
    else if (typeof value === "boolean") booleans++;
    else others++;
  }
  if (others === 0 && booleans === 0 && numbers > 0) return "double";
  if (others === 0 && numbers === 0 && booleans > 0) return "boolean";
  return "string";
}

/** A value in a column of `type` (inferColumnType's): a string column takes non-strings as JSON text. */
export function cellOf(value: unknown, type: ColumnType): Cell {
  if (value === null || value === undefined) return null;
  if (type === "string") return typeof value === "string" ? value : JSON.stringify(value);
  return value as Cell;
}
