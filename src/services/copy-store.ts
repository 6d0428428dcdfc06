import { COPY_TABLES, type CopyTable, type CopyValue } from "../store/copy-tables.js";
import type { Store } from "../store/store.js";

/** Rows per batch: a chunk's points are at most 16 KiB, so a batch holds at most ~8 MiB whatever the store's size. */
export const COPY_BATCH_ROWS = 500;

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

/** Tables of the store that hold rows (an empty store has none). */
export async function nonEmptyTables(store: Store): Promise<string[]> {
  const counts = await Promise.all(COPY_TABLES.map(async (table) => [table.name, await store.countRows(table.name)] as const));
  return counts.filter(([, count]) => count > 0).map(([name]) => name);
}

/**
 * Copies every table of COPY_TABLES from `source` to `target`, in dependency order, batch by batch
 * (never a whole table in memory), each batch one transaction of the target. Rows the target has
 * already (same key or unique values) are skipped, so an interrupted copy can be run again.
 * Calls `onTable` as each table is done; returns the row count of each table in both stores
 * afterwards, which the caller compares.
 */
export async function copyStore(
  source: Store,
  target: Store,
  options: { batchRows?: number; onTable?: (table: string, read: number, inserted: number) => void } = {},
): Promise<TableCount[]> {
  const batchRows = options.batchRows ?? COPY_BATCH_ROWS;
  for (const table of COPY_TABLES) {
    const keyAt = keyPositions(table);
    let after: CopyValue[] | null = null;
    let read = 0;
    let inserted = 0;
    for (;;) {
      const rows = await source.exportRows(table.name, after, batchRows);
      if (rows.length === 0) break;
      read += rows.length;
      inserted += await target.importRows(table.name, rows);
      const last = rows[rows.length - 1]!;
      after = keyAt.map((position) => last[position]!);
      if (rows.length < batchRows) break;
    }
    options.onTable?.(table.name, read, inserted);
  }
  const counts: TableCount[] = [];
  for (const table of COPY_TABLES) {
    counts.push({ table: table.name, source: await source.countRows(table.name), target: await target.countRows(table.name) });
  }
  return counts;
}

function keyPositions(table: CopyTable): number[] {
  return table.key.map((column) => table.columns.findIndex(([name]) => name === column));
}
