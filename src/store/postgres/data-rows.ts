import { logGroupOf, logTypeOfData } from "../../domain/log-names.js";
import { type Page, takePage } from "../../domain/paging.js";
import type { DataRow, DataRowQuery, StoredDataRow } from "../store.js";
import { pageRows, rows, run, type Sql } from "./db.js";
import { insertLogNames, runExists, touchHeartbeat } from "./run-attributes.js";

/**
 * Must run inside a transaction. One row per (run, logName, step); a re-sent row replaces it, and
 * within one batch the last row of a (logName, step) wins, as if the rows were written in order.
 */
export async function appendDataRows(
  sql: Sql,
  orgId: string,
  runId: number,
  dataRows: DataRow[],
  now: number,
): Promise<number | undefined> {
  if (!(await runExists(sql, orgId, runId))) return undefined;
  const byKey = new Map<string, DataRow>();
  for (const dataRow of dataRows) byKey.set(`${dataRow.step}\u0000${dataRow.logName}`, dataRow);
  const distinct = [...byKey.values()];
  if (distinct.length > 0) {
    await run(
      sql,
      `INSERT INTO data_rows (run_id, log_name, step, data_type, time, data)
       SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[])
       ON CONFLICT (run_id, log_name, step) DO UPDATE SET data_type = excluded.data_type, time = excluded.time, data = excluded.data`,
      [
        runId,
        distinct.map((r) => r.logName),
        distinct.map((r) => r.step),
        distinct.map((r) => r.dataType),
        distinct.map((r) => r.time),
        distinct.map((r) => r.data),
      ],
    );
  }
  // A name keeps the type of its first row, in the order sent.
  await insertLogNames(
    sql,
    runId,
    dataRows.map((r) => ({ logName: r.logName, logType: logTypeOfData(r.dataType) })),
    now,
  );
  await touchHeartbeat(sql, runId, now);
  return dataRows.length;
}

interface DataRowRow {
  log_name: string;
  step: number;
  data_type: string;
  time: number;
  data: string;
}

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
    items: page.items.map((row) => ({
      logName: row.log_name,
      logGroup: logGroupOf(row.log_name),
      step: row.step,
      dataType: row.data_type,
      time: row.time,
      data: row.data,
    })),
    nextOffset: page.nextOffset,
  };
}
