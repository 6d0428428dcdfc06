import { type Page, takePage } from "../../domain/paging.js";
import type { ConsoleLine, ConsoleLineQuery } from "../store.js";
import { pageRows, row, rows, run, type Sql } from "./db.js";
import { runExists, touchHeartbeat } from "./run-attributes.js";

/** The last line of each (logType, lineNumber, time) in the batch: a line re-sent within one batch replaces the earlier one. */
function lastOfEach(lines: ConsoleLine[]): ConsoleLine[] {
  const byKey = new Map<string, ConsoleLine>();
  for (const line of lines) byKey.set(`${line.logType}\u0000${line.lineNumber}\u0000${line.time}`, line);
  return [...byKey.values()];
}

/**
 * Must run inside a transaction. A line is (run, logType, lineNumber, time)
 * (src/domain/console-logs.ts): a re-sent line replaces the stored one, another process's line is
 * added. One upsert writes the batch and tells which lines were new (xmax = 0 on an inserted row);
 * those are added to console_log_counts by an atomic increment.
 */
export async function appendConsoleLines(
  sql: Sql,
  orgId: string,
  runId: number,
  lines: ConsoleLine[],
  now: number,
): Promise<number | undefined> {
  if (!(await runExists(sql, orgId, runId))) return undefined;
  const distinct = lastOfEach(lines);
  if (distinct.length > 0) {
    const written = await rows<{ log_type: string; inserted: boolean }>(
      sql,
      `INSERT INTO console_logs (run_id, log_type, line_number, time, message, step)
       SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[])
       ON CONFLICT (run_id, time, line_number, log_type) DO UPDATE SET message = excluded.message, step = excluded.step
       RETURNING log_type, (xmax = 0) AS inserted`,
      [
        runId,
        distinct.map((line) => line.logType),
        distinct.map((line) => line.lineNumber),
        distinct.map((line) => line.time),
        distinct.map((line) => line.message),
        distinct.map((line) => line.step),
      ],
    );
    const added = new Map<string, number>();
    for (const line of written) if (line.inserted) added.set(line.log_type, (added.get(line.log_type) ?? 0) + 1);
    for (const [logType, n] of [...added].sort()) {
      await run(
        sql,
        `INSERT INTO console_log_counts (run_id, log_type, lines) VALUES ($1, $2, $3)
         ON CONFLICT (run_id, log_type) DO UPDATE SET lines = console_log_counts.lines + excluded.lines`,
        [runId, logType, n],
      );
    }
  }
  await touchHeartbeat(sql, runId, now);
  return lines.length;
}

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
