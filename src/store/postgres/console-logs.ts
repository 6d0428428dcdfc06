import { type Page, takePage } from "../../domain/paging.js";
import type { ConsoleLine, ConsoleLineQuery } from "../store.js";
import { pageRows, row, rows, type Sql } from "./db.js";
import { runExists } from "./run-attributes.js";

interface ConsoleLineRow {
  time: number;
  message: string;
  line_number: number;
  log_type: ConsoleLine["logType"];
  step: number | null;
}

type LineKey = Pick<ConsoleLineRow, "time" | "line_number" | "log_type">;

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

/**
 * A page by offset without reading the lines before it: the line at `offset` is found by walking
 * the index from the nearer end (the count is known), then the page is read from that line on.
 */
export async function listConsoleLines(
  sql: Sql,
  orgId: string,
  runId: number,
  query: ConsoleLineQuery,
): Promise<Page<ConsoleLine> & { total: number }> {
  if (!(await runExists(sql, orgId, runId))) return { items: [], nextOffset: null, total: 0 };
  const texts = query.logType === undefined ? ALL_TYPES : ONE_TYPE;
  const match: unknown[] = query.logType === undefined ? [runId] : [runId, query.logType];
  const { total } = (await row<{ total: number }>(sql, texts.total, match))!;
  if (query.offset >= total) return { items: [], nextOffset: null, total };
  const first = (
    query.offset <= (total - 1) / 2
      ? await row<LineKey>(sql, texts.keyFromStart, [...match, query.offset])
      : await row<LineKey>(sql, texts.keyFromEnd, [...match, total - 1 - query.offset])
  )!;
  const from = query.logType === undefined ? [first.time, first.line_number, first.log_type] : [first.time, first.line_number];
  const size = (row: ConsoleLineRow) => Buffer.byteLength(row.message, "utf8");
  const found = await pageRows(query, size, (limit, skip) => rows<ConsoleLineRow>(sql, texts.page, [...match, ...from, limit, skip]));
  const page = takePage(found, query, size);
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
