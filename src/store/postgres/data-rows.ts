import { type DataRowRow, toStoredDataRow } from "../rows.js";
import { type Page, takePage } from "../../domain/paging.js";
import type { DataRowQuery, StoredDataRow } from "../store.js";
import { pageRows, rows, type Sql } from "./db.js";

const ALL_NAMES = `SELECT d.log_name, d.step, d.data_type, d.time, d.data FROM data_rows d JOIN runs r ON r.id = d.run_id
  WHERE r.org_id = $1 AND d.run_id = $2 ORDER BY d.log_name, d.step LIMIT $3 OFFSET $4`;
const ONE_NAME = `SELECT d.log_name, d.step, d.data_type, d.time, d.data FROM data_rows d JOIN runs r ON r.id = d.run_id
  WHERE r.org_id = $1 AND d.run_id = $2 AND d.log_name = $3 ORDER BY d.step LIMIT $4 OFFSET $5`;

export async function listDataRows(sql: Sql, orgId: string, runId: number, query: DataRowQuery): Promise<Page<StoredDataRow>> {
  const match: unknown[] = query.logName === undefined ? [orgId, runId] : [orgId, runId, query.logName];
  const size = (row: DataRowRow) => Buffer.byteLength(row.data, "utf8");
  const text = query.logName === undefined ? ALL_NAMES : ONE_NAME;
  const found = await pageRows(query, size, (limit, skip) => rows<DataRowRow>(sql, text, [...match, limit, query.offset + skip]));
  const page = takePage(found, query, size);
  return {
    items: page.items.map(toStoredDataRow),
    nextOffset: page.nextOffset,
  };
}
