import { isStorableText } from "../domain/text.js";
import { COPY_TABLES, type CopyRow, type CopyTable, type CopyValue } from "../store/copy-tables.js";
import type { Store } from "../store/store.js";

/** Rows per batch: a chunk's points are at most 16 KiB, so a batch holds at most ~8 MiB whatever the store's size. */
export const COPY_BATCH_ROWS = 500;

/** A copy that cannot go on: names the table and the row (by its key) where it stopped, and why. */
export class CopyError extends Error {}

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
      for (const row of rows) checkCopyable(table, row, keyAt);
      try {
        inserted += await target.importRows(table.name, rows);
      } catch (error) {
        throw new CopyError(
          `table ${table.name}: the target refused the rows from ${describeKey(table, rows[0]!, keyAt)} to ${describeKey(table, rows.at(-1)!, keyAt)}: ${(error as Error).message}. Rows copied before them are kept; running copy again skips them`,
        );
      }
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

/**
 * A text value no store accepts from a client any more (U+0000 or an unpaired surrogate, refused at
 * the edge since; an older SQLite store may hold one), which PostgreSQL cannot store: the copy stops
 * at that row, named, before writing its batch.
 */
function checkCopyable(table: CopyTable, row: CopyRow, keyAt: number[]): void {
  table.columns.forEach(([column], i) => {
    const value = row[i];
    if (typeof value === "string" && !isStorableText(value))
      throw new CopyError(
        `table ${table.name}, row ${describeKey(table, row, keyAt)}: column ${column} holds U+0000 (NUL) or an unpaired surrogate, which PostgreSQL cannot store. Change or delete that value in the source, then run copy again (rows copied so far are kept and skipped)`,
      );
  });
}

function describeKey(table: CopyTable, row: CopyRow, keyAt: number[]): string {
  return table.key.map((column, i) => `${column}=${JSON.stringify(row[keyAt[i]!])}`).join(", ");
}

function keyPositions(table: CopyTable): number[] {
  return table.key.map((column) => table.columns.findIndex(([name]) => name === column));
}
