// A chart's data as CSV (RFC 4180): one row per point drawn, names quoted where they need it and
// made safe for spreadsheets, non-finite values written as NaN, Inf and -Inf.

/**
 * A text cell: a name starting with = + - @ (or a tab or carriage return) would be run as a formula
 * by a spreadsheet (OWASP's "CSV injection"), so it gets a leading apostrophe, which spreadsheets
 * show as text; a cell holding a comma, quote or line break (or space at either end) is quoted,
 * its quotes doubled.
 */
export function textCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A value cell: a finite number as JavaScript writes it (all digits kept), else NaN, Inf or -Inf. */
export function valueCell(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

export interface CsvPoint {
  runName: string;
  runId: number;
  metric: string;
  step: number;
  /** Epoch milliseconds, written as ISO 8601 in UTC. */
  time: number;
  /** NaN, Infinity or -Infinity for a non-finite point. */
  value: number;
}

export const CSV_HEADER = ["run_name", "run_id", "metric", "step", "time", "value"] as const;

/** The points as CSV text with a header row, lines ending in CRLF as RFC 4180 has them. */
export function pointsCsv(points: readonly CsvPoint[]): string {
  const lines = [CSV_HEADER.join(",")];
  for (const point of points)
    lines.push(
      [
        textCell(point.runName),
        String(point.runId),
        textCell(point.metric),
        String(point.step),
        new Date(point.time).toISOString(),
        valueCell(point.value),
      ].join(","),
    );
  return `${lines.join("\r\n")}\r\n`;
}

/** A file name from a panel's title: letters, digits, dots, dashes and underscores, the rest as "_". */
export function fileNameOf(title: string, extension: string): string {
  const base = title.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^_+|_+$/g, "") || "chart";
  return `${base.slice(0, 100)}.${extension}`;
}
