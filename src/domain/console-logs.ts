export const CONSOLE_LOG_TYPES = ["INFO", "ERROR", "WARNING", "DEBUG", "PRINT"] as const;
export type ConsoleLogType = (typeof CONSOLE_LOG_TYPES)[number];

const BY_UPPER_CASE = new Map<string, ConsoleLogType>(CONSOLE_LOG_TYPES.map((type) => [type, type]));

/**
 * A log type as a read filter names it, in any case: the client's documentation writes `"error"`,
 * `"info"`, ... (stored lines keep the upper-case type ingest checks). Undefined for any other string.
 */
export function consoleLogTypeOf(name: string): ConsoleLogType | undefined {
  return BY_UPPER_CASE.get(name.toUpperCase());
}

/**
 * The identity and order of console lines (docs/api.md, "Console lines").
 *
 * Clients number lines per process and start again at 1 in a resumed process and on every node of
 * a multi-node run, so a line number alone does not name a line. A line is (run, logType,
 * lineNumber, time): a retry carries the same time and collapses into the stored line (the last
 * message sent wins), while another process's line with the same number is kept beside it.
 * Lines are read by time, then lineNumber, then logType, which orders every kept line of a run.
 */
export interface ConsoleLineKey {
  time: number;
  lineNumber: number;
  logType: string;
}

/** Read order: time, then lineNumber, then logType. Zero exactly when two lines are the same line. */
export function compareConsoleLines(a: ConsoleLineKey, b: ConsoleLineKey): number {
  return a.time - b.time || a.lineNumber - b.lineNumber || (a.logType < b.logType ? -1 : a.logType > b.logType ? 1 : 0);
}
