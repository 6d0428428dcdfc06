import { copyTable, type CopyRow, type CopyTable, type CopyValue } from "../copy-tables.js";
import type { Statements } from "./statements.js";

// SQL is built only from the fixed table list in copy-tables.ts (copyTable checks the name), so the
// set of statement texts stays small and no caller's string ever becomes SQL.
function tableNamed(name: string): CopyTable {
  const table = copyTable(name);
  if (!table) throw new Error(`no copyable table '${name}'`);
  return table;
}

export function exportRows(s: Statements, name: string, after: CopyValue[] | null, limit: number): CopyRow[] {
  const table = tableNamed(name);
  const columns = table.columns.map(([column]) => column).join(", ");
  const key = table.key.join(", ");
  if (after !== null && after.length !== table.key.length) throw new Error(`${name}: a key has ${table.key.length} values`);
  // A row value comparison walks the primary key index from the last row of the previous batch.
  const where = after === null ? "" : `WHERE (${key}) > (${table.key.map(() => "?").join(", ")})`;
  const statement = s.get(`SELECT ${columns} FROM ${table.name} ${where} ORDER BY ${key} LIMIT ?`).raw(true);
  return statement.all(...(after ?? []).map(toSqlite), limit) as CopyRow[];
}

export function importRows(s: Statements, name: string, rows: CopyRow[]): number {
  const table = tableNamed(name);
  const insert = s.get(
    `INSERT INTO ${table.name} (${table.columns.map(([column]) => column).join(", ")})
     VALUES (${table.columns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
  );
  let inserted = 0;
  for (const row of rows) {
    if (row.length !== table.columns.length) throw new Error(`${name}: a row has ${table.columns.length} values, got ${row.length}`);
    inserted += insert.run(...row.map(toSqlite)).changes;
  }
  // INTEGER PRIMARY KEY columns continue from the largest ID, AUTOINCREMENT ones (runs) from
  // sqlite_sequence, which SQLite raises on explicit inserts too: new IDs follow the imported ones.
  return inserted;
}

export function countRows(s: Statements, name: string): number {
  const table = tableNamed(name);
  return (s.get(`SELECT count(*) AS n FROM ${table.name}`).get() as { n: number }).n;
}

/** better-sqlite3 binds bytes only as a Buffer. */
function toSqlite(value: CopyValue): string | number | Buffer | null {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
}
