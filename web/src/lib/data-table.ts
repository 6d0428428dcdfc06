// Table data rows as the pluto-ml client sends them (its `Table.to_dict()`, JSON text in a data
// row's `data`): `{"table": [[cell, ...], ...], "col": [{"name", "dtype"}], "row": [{"name", "dtype"}]}`,
// `col` and `row` optional. Also read: `{"columns": [...], "data": [[...]]}` (a DataFrame's
// `to_dict(orient="split")`, as other clients write it). Checked like any text from the server: a
// payload that does not hold is an error for that entry.

import { type Parsed, parseJsonObject } from "./histogram.ts";

export interface DataTable {
  columns: string[];
  /** Each row as long as `columns`; cells are any JSON. */
  rows: unknown[][];
  /** The row labels (a DataFrame's index), when the table has them. */
  rowNames?: string[];
}

/** A table bigger than a browser grid shows at once: rows past it are counted, not drawn. */
export const MAX_TABLE_CELLS = 200_000;

const namesOf = (list: unknown): string[] | undefined =>
  Array.isArray(list)
    ? list.map((entry) =>
        typeof entry === "object" && entry !== null && "name" in entry ? String((entry as { name: unknown }).name) : String(entry),
      )
    : undefined;

/** Reads one table data row's text. */
export function parseTable(text: string): Parsed<DataTable> {
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return parsed;
  const fields = parsed.value as { table?: unknown; data?: unknown; col?: unknown; columns?: unknown; row?: unknown; index?: unknown };
  const body = fields.table ?? fields.data;
  if (!Array.isArray(body)) return { ok: false, error: "table is not a list of rows" };
  if (!body.every(Array.isArray)) return { ok: false, error: "a row of table is not a list" };
  const rows = body as unknown[][];
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (rows.length * width > MAX_TABLE_CELLS) return { ok: false, error: `${rows.length} × ${width} cells, more than ${MAX_TABLE_CELLS}` };
  const named = namesOf(fields.col ?? fields.columns);
  // Columns without a name are numbered; a short row is padded with empty cells.
  const columns = Array.from({ length: Math.max(width, named?.length ?? 0) }, (_, i) => named?.[i] ?? String(i));
  const rowNames = namesOf(fields.row ?? fields.index);
  return {
    ok: true,
    value: {
      columns,
      rows: rows.map((row) => (row.length < columns.length ? [...row, ...Array(columns.length - row.length).fill(null)] : row)),
      ...(rowNames && rowNames.length === rows.length ? { rowNames } : {}),
    },
  };
}

/** The order of a cell's kind: numbers, then booleans, then text, then anything else (lists, objects), then empty cells. */
const rankOf = (value: unknown) => {
  if (typeof value === "number") return 0;
  if (typeof value === "boolean") return 1;
  if (typeof value === "string") return 2;
  if (value === null || value === undefined) return 4;
  return 3;
};

/**
 * Orders two cells of a column that may hold several kinds: numbers by value (NaN last among
 * them), text by natural order (`run2` before `run10`), kinds apart in a fixed order; empty cells
 * always last, whichever the direction.
 */
export function compareCells(a: unknown, b: unknown): number {
  const [ra, rb] = [rankOf(a), rankOf(b)];
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number(Number.isNaN(a)) - Number(Number.isNaN(b));
    return a - b;
  }
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (typeof a === "string" && typeof b === "string") return collator.compare(a, b);
  return collator.compare(JSON.stringify(a) ?? "", JSON.stringify(b) ?? "");
}
const collator = new Intl.Collator("en", { numeric: true });

/** Row indices in the order of `column` (stable: equal cells keep the table's order); empty cells last either way. */
export function sortedRowOrder(rows: readonly unknown[][], column: number, direction: "asc" | "desc"): number[] {
  const order = rows.map((_, i) => i);
  const sign = direction === "asc" ? 1 : -1;
  const empty = (value: unknown) => value === null || value === undefined;
  return order.sort((i, j) => {
    const [a, b] = [rows[i]![column], rows[j]![column]];
    if (empty(a) !== empty(b)) return empty(a) ? 1 : -1;
    return sign * compareCells(a, b) || i - j;
  });
}
