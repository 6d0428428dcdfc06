import type { ConsoleLogType } from "../../domain/console-logs.js";
import { type Page, type PageRequest, takePage } from "../../domain/paging.js";
import type { ConsoleLineKey, ConsoleLineRow } from "../rows.js";
import { consoleLineSize } from "../workflows/run-reads.js";
import type { Statements } from "./statements.js";

// The read order of src/domain/console-logs.ts. Each text walks an index in that order (or its
// reverse) without sorting; the key look-ups read the index only.
const ALL_TYPES = {
  total: "SELECT coalesce(sum(lines), 0) AS total FROM console_log_counts WHERE run_id = ?",
  keyFromStart: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = ?
                 ORDER BY time, line_number, log_type LIMIT 1 OFFSET ?`,
  keyFromEnd: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = ?
               ORDER BY time DESC, line_number DESC, log_type DESC LIMIT 1 OFFSET ?`,
  page: `SELECT time, message, line_number, log_type, step FROM console_logs
         WHERE run_id = ? AND (time, line_number, log_type) >= (?, ?, ?)
         ORDER BY time, line_number, log_type LIMIT ?`,
};
const ONE_TYPE = {
  total: "SELECT coalesce(sum(lines), 0) AS total FROM console_log_counts WHERE run_id = ? AND log_type = ?",
  keyFromStart: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = ? AND log_type = ?
                 ORDER BY time, line_number LIMIT 1 OFFSET ?`,
  keyFromEnd: `SELECT time, line_number, log_type FROM console_logs WHERE run_id = ? AND log_type = ?
               ORDER BY time DESC, line_number DESC LIMIT 1 OFFSET ?`,
  page: `SELECT time, message, line_number, log_type, step FROM console_logs
         WHERE run_id = ? AND log_type = ? AND (time, line_number) >= (?, ?)
         ORDER BY time, line_number LIMIT ?`,
};

const textsOf = (logType: ConsoleLogType | undefined) => (logType === undefined ? ALL_TYPES : ONE_TYPE);
const matchOf = (runId: number, logType: ConsoleLogType | undefined) => (logType === undefined ? [runId] : [runId, logType]);

export function consoleLineTotal(s: Statements, runId: number, logType: ConsoleLogType | undefined): number {
  return (s.get(textsOf(logType).total).get(...matchOf(runId, logType)) as { total: number }).total;
}

export function consoleLineKey(
  s: Statements,
  runId: number,
  logType: ConsoleLogType | undefined,
  skip: number,
  fromEnd: boolean,
): ConsoleLineKey {
  const texts = textsOf(logType);
  return s.get(fromEnd ? texts.keyFromEnd : texts.keyFromStart).get(...matchOf(runId, logType), skip) as ConsoleLineKey;
}

/** Rows are read one by one until the page is full (takePage), never `limit` of them at once. */
export function consoleLinePage(
  s: Statements,
  runId: number,
  logType: ConsoleLogType | undefined,
  first: ConsoleLineKey,
  page: PageRequest,
): Page<ConsoleLineRow> {
  const from = logType === undefined ? [first.time, first.line_number, first.log_type] : [first.time, first.line_number];
  const rows = s
    .get(textsOf(logType).page)
    .iterate(...matchOf(runId, logType), ...from, page.limit + 1) as IterableIterator<ConsoleLineRow>;
  return takePage(rows, page, consoleLineSize);
}
