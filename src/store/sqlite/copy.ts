import { checkCopyKey, checkCopyRow, copyTable, type CopyRow, type CopyValue } from "../copy-tables.js";
import type { Statements } from "./statements.js";

export function exportRows(s: Statements, name: string, after: CopyValue[] | null, limit: number): CopyRow[] {
  const table = copyTable(name);
  const columns = table.columns.map(([column]) => column).join(", ");
  const key = table.key.join(", ");
  checkCopyKey(table, after);
  // A row value comparison walks the primary key index from the last row of the previous batch.
  const where = after === null ? "" : `WHERE (${key}) > (${table.key.map(() => "?").join(", ")})`;
  const statement = s.get(`SELECT ${columns} FROM ${table.name} ${where} ORDER BY ${key} LIMIT ?`).raw(true);
  return statement.all(...(after ?? []).map(toSqlite), limit) as CopyRow[];
}

export function importRows(s: Statements, name: string, rows: CopyRow[]): number {
  const table = copyTable(name);
  const insert = s.get(
    `INSERT INTO ${table.name} (${table.columns.map(([column]) => column).join(", ")})
     VALUES (${table.columns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
  );
  let inserted = 0;
  for (const row of rows) {
    checkCopyRow(table, row);
    inserted += insert.run(...row.map(toSqlite)).changes;
  }
  // INTEGER PRIMARY KEY columns continue from the largest ID, AUTOINCREMENT ones (runs) from
  // sqlite_sequence, which SQLite raises on explicit inserts too: new IDs follow the imported ones.
  return inserted;
}

export function countRows(s: Statements, name: string): number {
  const table = copyTable(name);
  return (s.get(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n;
}

/** better-sqlite3 binds bytes only as a Buffer. */
function toSqlite(value: CopyValue): string | number | Buffer | null {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
}
