import { invalidInput } from "../domain/errors.js";
import { MAX_EPOCH_MS } from "../domain/time.js";
import { CONSOLE_LOG_TYPES, type ConsoleLogType } from "../domain/console-logs.js";
import type { ConsoleLine, DataRow, MetricSeries } from "../store/store.js";
import { parseNdjson } from "./ndjson.js";

/** A run can log thousands of metrics per step (per-layer norms); beyond this a line is a mistake. */
export const MAX_METRICS_PER_LINE = 10_000;
export const MAX_LOG_NAME_LENGTH = 255;

export interface MetricBatch {
  series: MetricSeries[];
  pointCount: number;
}

/** The only spellings of a non-finite metric value; a Map, so a name like "constructor" finds nothing. */
const NON_FINITE = new Map<string, number>([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

/** Decodes and validates a whole `/ingest/metrics` body; throws on the first bad line, naming it. */
export async function decodeMetrics(body: string): Promise<MetricBatch> {
  const byName = new Map<string, MetricSeries>();
  await parseNdjson(body, (line, n) => {
    const time = epochMs(line.time, n);
    const step = exactCount(line.step, "step", n);
    const data = line.data;
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw invalidInput(`line ${n}: data must be an object`);
    let keys = 0;
    for (const logName in data) {
      if (++keys > MAX_METRICS_PER_LINE) throw invalidInput(`line ${n}: more than ${MAX_METRICS_PER_LINE} metrics`);
      const raw = (data as Record<string, unknown>)[logName];
      if (raw === null) continue;
      // A number literal JSON.parse reads as ±Infinity overflowed (1e400): refused like the string "1e400";
      // infinity is sent as the token or string Infinity.
      const value =
        typeof raw === "number" ? (Number.isFinite(raw) ? raw : undefined) : typeof raw === "string" ? NON_FINITE.get(raw) : undefined;
      if (value === undefined)
        throw invalidInput(`line ${n}: data.${logName} must be a number within the double range, null, NaN, Infinity or -Infinity`);
      let series = byName.get(logName);
      if (!series) {
        checkLogName(logName, n);
        series = { logName, steps: [], values: [], times: [] };
        byName.set(logName, series);
      }
      series.steps.push(step);
      series.values.push(value);
      series.times.push(time);
    }
  });
  let pointCount = 0;
  const series = [...byName.values()].map((s) => {
    const ordered = orderByStep(s);
    pointCount += ordered.steps.length;
    return ordered;
  });
  return { series, pointCount };
}

/** Sorts by step and keeps the last point sent for each step. Lines usually arrive in order: then nothing is copied. */
export function orderByStep(series: MetricSeries): MetricSeries {
  const { steps } = series;
  let ordered = true;
  for (let i = 1; i < steps.length && ordered; i++) ordered = steps[i]! > steps[i - 1]!;
  if (ordered) return series;
  // A stable sort keeps later duplicates after earlier ones, so the last write wins below.
  const index = steps.map((_, i) => i).sort((a, b) => steps[a]! - steps[b]! || a - b);
  const out: MetricSeries = { logName: series.logName, steps: [], values: [], times: [] };
  for (let k = 0; k < index.length; k++) {
    const i = index[k]!;
    const next = index[k + 1];
    if (next !== undefined && steps[next] === steps[i]) continue;
    out.steps.push(steps[i]!);
    out.values.push(series.values[i]!);
    out.times.push(series.times[i]!);
  }
  return out;
}

function checkLogName(logName: string, n: number): void {
  if (logName === "" || logName.length > MAX_LOG_NAME_LENGTH) {
    throw invalidInput(`line ${n}: metric names must have 1 to ${MAX_LOG_NAME_LENGTH} characters`);
  }
}

/**
 * A step or line number: an integer from 0 to 2^53 − 1. Beyond that a double cannot tell neighbouring
 * integers apart (JSON.parse reads 9007199254740993 as …992, which is no longer a safe integer), so two
 * different lines or steps would be stored as one.
 */
function exactCount(value: unknown, field: string, n: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidInput(`line ${n}: ${field} must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
  }
  return value;
}

function epochMs(value: unknown, n: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_EPOCH_MS) {
    throw invalidInput(`line ${n}: time must be epoch milliseconds ≥ 0`);
  }
  return Math.round(value);
}

/** Console lines are kept verbatim (`\r`, tabs, Unicode); 1 MiB per message keeps a runaway print bounded. */
const MAX_MESSAGE_LENGTH = 1024 * 1024;

export async function decodeConsoleLines(body: string): Promise<ConsoleLine[]> {
  const lines: ConsoleLine[] = [];
  await parseNdjson(body, (line, n) => {
    const { message, logType, step } = line;
    if (typeof message !== "string" || message.length > MAX_MESSAGE_LENGTH)
      throw invalidInput(`line ${n}: message must be a string of at most ${MAX_MESSAGE_LENGTH} characters`);
    const lineNumber = exactCount(line.lineNumber, "lineNumber", n);
    if (typeof logType !== "string" || !(CONSOLE_LOG_TYPES as readonly string[]).includes(logType)) {
      throw invalidInput(`line ${n}: logType must be one of ${CONSOLE_LOG_TYPES.join(", ")}`);
    }
    lines.push({
      time: epochMs(line.time, n),
      message,
      lineNumber,
      logType: logType as ConsoleLogType,
      step: step == null ? null : exactCount(step, "step", n),
    });
  });
  return lines;
}

const MAX_DATA_LENGTH = 16 * 1024 * 1024;

export async function decodeDataRows(body: string): Promise<DataRow[]> {
  const rows: DataRow[] = [];
  await parseNdjson(body, (line, n) => {
    const { logName, dataType, data } = line;
    const step = exactCount(line.step, "step", n);
    if (typeof logName !== "string") throw invalidInput(`line ${n}: logName must be a string`);
    checkLogName(logName, n);
    if (typeof dataType !== "string" || dataType === "" || dataType.length > 64)
      throw invalidInput(`line ${n}: dataType must be a non-empty string`);
    if (typeof data !== "string" || data.length > MAX_DATA_LENGTH)
      throw invalidInput(`line ${n}: data must be a string of at most ${MAX_DATA_LENGTH} characters`);
    rows.push({ time: epochMs(line.time, n), step, logName, dataType, data });
  });
  return rows;
}
