import { type DataRowRow, toStoredDataRow } from "../rows.js";
import { type Page, takePage } from "../../domain/paging.js";
import type { DataRowQuery, StoredDataRow } from "../store.js";
import type { Statements } from "./statements.js";

const ALL_NAMES = `SELECT d.log_name, d.step, d.data_type, d.time, d.data FROM data_rows d JOIN runs r ON r.id = d.run_id
  WHERE r.org_id = ? AND d.run_id = ? ORDER BY d.log_name, d.step LIMIT ? OFFSET ?`;
const ONE_NAME = `SELECT d.log_name, d.step, d.data_type, d.time, d.data FROM data_rows d JOIN runs r ON r.id = d.run_id
  WHERE r.org_id = ? AND d.run_id = ? AND d.log_name = ? ORDER BY d.step LIMIT ? OFFSET ?`;

export function listDataRows(s: Statements, orgId: string, runId: number, query: DataRowQuery): Page<StoredDataRow> {
  const match = query.logName === undefined ? [orgId, runId] : [orgId, runId, query.logName];
  const rows = s
    .get(query.logName === undefined ? ALL_NAMES : ONE_NAME)
    .iterate(...match, query.limit + 1, query.offset) as IterableIterator<DataRowRow>;
  const page = takePage(rows, query, (row) => Buffer.byteLength(row.data, "utf8"));
  return {
    items: page.items.map(toStoredDataRow),
    nextOffset: page.nextOffset,
  };
}
