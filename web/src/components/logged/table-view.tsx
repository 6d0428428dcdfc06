// Tables: a grid sortable by any column (a click on its header, again to reverse), cells formatted
// as the rest of the UI writes values, long text cut with an ellipsis and whole on hover; a step
// picker for a table logged at several steps.

import { useMemo, useState } from "preact/hooks";
import { type DataTable, parseTable, sortedRowOrder } from "../../lib/data-table.ts";
import { formatNumber, formatValue } from "../../lib/format.ts";
import type { DataRow } from "../../types.ts";
import { StepPicker } from "../common.tsx";
import { SampledNote } from "./step-picker.tsx";

/** Rows a grid draws (a 200,000-cell table is readable, not as DOM): the rest are counted below it. */
const SHOWN_ROWS = 500;

export function TableGrid({ table, label }: { table: DataTable; label: string }) {
  const [sort, setSort] = useState<{ column: number; direction: "asc" | "desc" } | undefined>(undefined);
  const order = useMemo(
    () => (sort ? sortedRowOrder(table.rows, sort.column, sort.direction) : table.rows.map((_, i) => i)),
    [table, sort],
  );
  const click = (column: number) =>
    setSort(sort?.column === column ? { column, direction: sort.direction === "asc" ? "desc" : "asc" } : { column, direction: "asc" });
  const ariaSort = (column: number) => (sort?.column !== column ? "none" : sort.direction === "asc" ? "ascending" : "descending");
  return (
    <div class="logged-table-scroll">
      <table class="data-table logged-table" data-testid="logged-table" aria-label={label}>
        <thead>
          <tr>
            {table.rowNames && <th scope="col" class="muted" />}
            {table.columns.map((name, column) => (
              <th key={column} scope="col" aria-sort={ariaSort(column)}>
                <button type="button" class="link sort-header" onClick={() => click(column)} title={name}>
                  {name}
                  {sort?.column === column ? (sort.direction === "asc" ? " ▲" : " ▼") : ""}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {order.slice(0, SHOWN_ROWS).map((index) => (
            <tr key={index}>
              {table.rowNames && <th scope="row">{table.rowNames[index]}</th>}
              {table.rows[index]!.map((cell, column) => {
                const text = formatValue(cell);
                return (
                  <td key={column} class={typeof cell === "number" ? "number" : "cell-text"} title={text}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {table.rows.length > SHOWN_ROWS && (
        <p class="muted">
          The first {formatNumber(SHOWN_ROWS)} of {formatNumber(table.rows.length)} rows in this order; sort to bring others up.
        </p>
      )}
      {table.rows.length === 0 && <p class="muted">The table has no rows.</p>}
    </div>
  );
}

/** One table row's text as a grid, or why it cannot be read. */
export function TableOfRow({ row, label }: { row: DataRow; label: string }) {
  const parsed = useMemo(() => parseTable(row.data), [row]);
  if (!parsed.ok)
    return (
      <p class="error" role="alert" data-testid="invalid-entries">
        The table at step {formatNumber(row.step)} could not be read: {parsed.error}.
      </p>
    );
  return <TableGrid table={parsed.value} label={label} />;
}

/** A table log name of one run: the table at a picked step (the last first). */
export function TableSeries({ logName, rows, total, sampled }: { logName: string; rows: DataRow[]; total: number; sampled: boolean }) {
  const [index, setIndex] = useState<number | undefined>(undefined);
  const current = Math.min(index ?? rows.length - 1, rows.length - 1);
  const row = rows[current];
  if (!row) return null;
  return (
    <>
      {sampled && <SampledNote shown={rows.length} total={total} />}
      <StepPicker steps={rows.map((entry) => entry.step)} index={current} onIndex={setIndex} label={logName} />
      {/* One grid across steps: the chosen sort stays as the step changes. */}
      <TableOfRow row={row} label={`${logName} at step ${row.step}`} />
    </>
  );
}
