import { type Page, takePage } from "../../domain/paging.js";
import type { ConsoleLine, ConsoleLineQuery } from "../store.js";
import type { Statements } from "./statements.js";
import { runExists } from "./run-attributes.js";

interface ConsoleLineRow {
  time: number;
  message: string;
  line_number: number;
  log_type: ConsoleLine["logType"];
  step: number | null;
}

type LineKey = Pick<ConsoleLineRow, "time" | "line_number" | "log_type">;

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

/**
 * A page by offset without reading the lines before it: the line at `offset` is found by walking
 * the index from the nearer end (the count is known), then the page is read from that line on.
 * So the newest page of a long log, which a live view reloads, costs as little as the first.
 */
export function listConsoleLines(
  s: Statements,
  orgId: string,
  runId: number,
  query: ConsoleLineQuery,
): Page<ConsoleLine> & { total: number } {
  if (!runExists(s, orgId, runId)) return { items: [], nextOffset: null, total: 0 };
  const sql = query.logType === undefined ? ALL_TYPES : ONE_TYPE;
  const match = query.logType === undefined ? [runId] : [runId, query.logType];
  const { total } = s.get(sql.total).get(...match) as { total: number };
  if (query.offset >= total) return { items: [], nextOffset: null, total };
  const first = (
    query.offset <= (total - 1) / 2
      ? s.get(sql.keyFromStart).get(...match, query.offset)
      : s.get(sql.keyFromEnd).get(...match, total - 1 - query.offset)
  ) as LineKey;
  const from = query.logType === undefined ? [first.time, first.line_number, first.log_type] : [first.time, first.line_number];
  const rows = s.get(sql.page).iterate(...match, ...from, query.limit + 1) as IterableIterator<ConsoleLineRow>;
  const page = takePage(rows, query, (row) => Buffer.byteLength(row.message, "utf8"));
  return {
    items: page.items.map((row) => ({
      time: row.time,
      message: row.message,
      lineNumber: row.line_number,
      logType: row.log_type,
      step: row.step,
    })),
    nextOffset: page.nextOffset,
    total,
  };
}
