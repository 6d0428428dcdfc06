import { checkCopyKey, copyTable, type CopyRow, type CopyValue } from "../copy-tables.js";
import { arrays, row, run, type Sql } from "./db.js";

/**
 * The copy format keeps chunk points in a table of their own (`metric_chunk_points`, as SQLite
 * does); this store keeps them in the chunk row. So that table is read from and written into the
 * `points` column of `metric_chunks`: a chunk imported before its points holds empty points until
 * its `metric_chunk_points` row arrives.
 */
const POINTS_TABLE = "metric_chunk_points";

export async function exportRows(sql: Sql, name: string, after: CopyValue[] | null, limit: number): Promise<CopyRow[]> {
  const table = copyTable(name);
  checkCopyKey(table, after);
  const source =
    table.name === POINTS_TABLE
      ? { columns: "id AS chunk_id, points", from: "metric_chunks", key: "id" }
      : { columns: table.columns.map(([column]) => column).join(", "), from: table.name, key: table.key.join(", ") };
  // A row value comparison walks the primary key index from the last row of the previous batch.
  const where = after === null ? "" : `WHERE (${source.key}) > (${after.map((_, i) => `$${i + 1}`).join(", ")})`;
  const values = [...(after ?? []).map(toPg), limit];
  return arrays<CopyRow>(
    sql,
    `SELECT ${source.columns} FROM ${source.from} ${where} ORDER BY ${source.key} LIMIT $${values.length}`,
    values,
  );
}

export async function importRows(sql: Sql, name: string, rows: CopyRow[]): Promise<number> {
  const table = copyTable(name);
  const columns = table.columns.map(([column]) => column);
  const text =
    table.name === POINTS_TABLE
      ? "UPDATE metric_chunks SET points = $2 WHERE id = $1 AND octet_length(points) = 0"
      : table.name === "metric_chunks"
        ? `INSERT INTO metric_chunks (${columns.join(", ")}, points) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}, '')
           ON CONFLICT DO NOTHING`
        : `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT DO NOTHING`;
  let inserted = 0;
  for (const values of rows) {
    if (values.length !== columns.length) throw new Error(`${name}: a row has ${columns.length} values, got ${values.length}`);
    inserted += await run(sql, text, values.map(toPg));
  }
  // Identities continue past the largest imported ID, so IDs the store generates later never collide.
  const identity = table.key.length === 1 && (table.key[0] === "id" || table.key[0] === "seq") ? table.key[0] : undefined;
  if (identity && columns.includes(identity) && table.columns[0]![1] === "integer") {
    await row(
      sql,
      `SELECT setval(pg_get_serial_sequence('${table.name}', '${identity}'), coalesce(max(${identity}), 0) + 1, false) FROM ${table.name}`,
    );
  }
  return inserted;
}

export async function countRows(sql: Sql, name: string): Promise<number> {
  const table = copyTable(name);
  const text =
    table.name === POINTS_TABLE
      ? "SELECT count(*) AS n FROM metric_chunks WHERE octet_length(points) > 0"
      : `SELECT count(*) AS n FROM ${table.name}`;
  return (await row<{ n: number }>(sql, text))!.n;
}

/** pg binds bytes as a Buffer. */
function toPg(value: CopyValue): string | number | Buffer | null {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
}
