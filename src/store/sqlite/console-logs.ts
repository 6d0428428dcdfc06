import type { ConsoleLine, ConsoleLineQuery } from "../store.js";
import type { Statements } from "./db.js";
import { runExists, touchHeartbeat } from "./run-attributes.js";

/** Must run inside a write transaction. A re-sent line replaces the stored one (same run, type and number). */
export function appendConsoleLines(s: Statements, orgId: string, runId: number, lines: ConsoleLine[], now: number): number | undefined {
  if (!runExists(s, orgId, runId)) return undefined;
  const upsert = s.get(
    `INSERT INTO console_logs (run_id, log_type, line_number, time, message, step) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, log_type, line_number) DO UPDATE SET time = excluded.time, message = excluded.message, step = excluded.step`,
  );
  for (const line of lines) upsert.run(runId, line.logType, line.lineNumber, line.time, line.message, line.step);
  touchHeartbeat(s, runId, now);
  return lines.length;
}

export function listConsoleLines(s: Statements, orgId: string, runId: number, query: ConsoleLineQuery): { lines: ConsoleLine[]; total: number } {
  if (!runExists(s, orgId, runId)) return { lines: [], total: 0 };
  const type = query.logType ?? null;
  const rows = s
    .get(
      `SELECT time, message, line_number, log_type, step FROM console_logs WHERE run_id = ? AND (? IS NULL OR log_type = ?)
       ORDER BY line_number, time LIMIT ? OFFSET ?`,
    )
    .all(runId, type, type, query.limit, query.offset) as { time: number; message: string; line_number: number; log_type: ConsoleLine["logType"]; step: number | null }[];
  const { total } = s.get("SELECT count(*) AS total FROM console_logs WHERE run_id = ? AND (? IS NULL OR log_type = ?)").get(runId, type, type) as { total: number };
  return {
    lines: rows.map((row) => ({ time: row.time, message: row.message, lineNumber: row.line_number, logType: row.log_type, step: row.step })),
    total,
  };
}
