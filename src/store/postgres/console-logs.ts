import type { ConsoleLogType } from "../../domain/console-logs.js";
import { type Page, type PageRequest, takePage } from "../../domain/paging.js";
import type { ConsoleLineKey, ConsoleLineRow } from "../rows.js";
import { consoleLineSize } from "../workflows/run-reads.js";
import { pageRows, row, rows, type Sql } from "./db.js";

// The read order of src/domain/console-logs.ts; each text walks an index in that order (or its reverse).
const ALL_TYPES = {
  total: "SELECT coalesce(sum(lines), 0) AS total FROM console_log_counts WHERE run_id = $1",
  keyFromStart: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = $1
                 ORDER BY time, line_number, log_type LIMIT 1 OFFSET $2`,
  keyFromEnd: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = $1
               ORDER BY time DESC, line_number DESC, log_type DESC LIMIT 1 OFFSET $2`,
  page: `SELECT time, message, line_number, log_type, step FROM console_logs
         WHERE run_id = $1 AND (time, line_number, log_type) >= ($2, $3, $4)
         ORDER BY time, line_number, log_type LIMIT $5 OFFSET $6`,
};
const ONE_TYPE = {
  total: "SELECT coalesce(sum(lines), 0) AS total FROM console_log_counts WHERE run_id = $1 AND log_type = $2",
  keyFromStart: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = $1 AND log_type = $2
                 ORDER BY time, line_number LIMIT 1 OFFSET $3`,
  keyFromEnd: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = $1 AND log_type = $2
               ORDER BY time DESC, line_number DESC LIMIT 1 OFFSET $3`,
  page: `SELECT time, message, line_number, log_type, step FROM console_logs
         WHERE run_id = $1 AND log_type = $2 AND (time, line_number) >= ($3, $4)
         ORDER BY time, line_number LIMIT $5 OFFSET $6`,
};

const textsOf = (logType: ConsoleLogType | undefined) => (logType === undefined ? ALL_TYPES : ONE_TYPE);
const matchOf = (runId: number, logType: ConsoleLogType | undefined): unknown[] => (logType === undefined ? [runId] : [runId, logType]);

export async function consoleLineTotal(sql: Sql, runId: number, logType: ConsoleLogType | undefined): Promise<number> {
  return (await row<{ total: number }>(sql, textsOf(logType).total, matchOf(runId, logType)))!.total;
}

export async function consoleLineKey(
  sql: Sql,
  runId: number,
  logType: ConsoleLogType | undefined,
  skip: number,
  fromEnd: boolean,
): Promise<ConsoleLineKey> {
  const texts = textsOf(logType);
  return (await row<ConsoleLineKey>(sql, fromEnd ? texts.keyFromEnd : texts.keyFromStart, [...matchOf(runId, logType), skip]))!;
}

/** Rows are fetched a slice at a time until the page is full (pageRows), never `limit` of them at once. */
export async function consoleLinePage(
  sql: Sql,
  runId: number,
  logType: ConsoleLogType | undefined,
  first: ConsoleLineKey,
  page: PageRequest,
): Promise<Page<ConsoleLineRow>> {
  const from = logType === undefined ? [first.time, first.line_number, first.log_type] : [first.time, first.line_number];
  const match = matchOf(runId, logType);
  const found = await pageRows(page, consoleLineSize, (limit, skip) =>
    rows<ConsoleLineRow>(sql, textsOf(logType).page, [...match, ...from, limit, skip]),
  );
  return takePage(found, page, consoleLineSize);
}
