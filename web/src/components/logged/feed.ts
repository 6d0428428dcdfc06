// Bounded reads of a log name's data rows and of text files. A series of 100,000 histograms is
// not read whole: its first rows, and past them a sample of chunks spread to its last row (found
// by probing offsets), so a heatmap spans the whole series and the newest step is always there.

import { api, type RunRef } from "../../api.ts";
import type { DataRow } from "../../types.ts";

export interface RowRead {
  rows: DataRow[];
  /** How many rows the log name has. */
  total: number;
  /** Whether `rows` is a sample (the series had more than the first read held). */
  sampled: boolean;
}

/** Rows read first; a longer series is sampled in `chunks` chunks of `chunkRows` rows. */
export interface ReadBounds {
  head: number;
  chunks: number;
  chunkRows: number;
}

/** The run page: up to 1,000 steps whole, past that 20 chunks of 25 across the series. */
export const RUN_PAGE_BOUNDS: ReadBounds = { head: 1000, chunks: 20, chunkRows: 25 };
/** A workspace panel wants each run's newest entry: a short head, then the last row alone. */
export const LATEST_BOUNDS: ReadBounds = { head: 50, chunks: 1, chunkRows: 1 };

/** Up to `limit` rows from `offset` (fewer when the server ends a page by size); `end` when none follow. */
async function readFrom(run: RunRef, logName: string, offset: number, limit: number): Promise<{ rows: DataRow[]; end: boolean }> {
  const page = await api.data(run, { logName, offset, limit });
  return { rows: page.rows, end: page.nextOffset === null };
}

/** The number of rows, knowing row `known` exists: offsets doubled until one is past the end, then halved in between. */
async function countRows(run: RunRef, logName: string, known: number): Promise<number> {
  const exists = async (offset: number) => (await readFrom(run, logName, offset, 1)).rows.length > 0;
  let low = known;
  let high = Math.max(1, known) * 2;
  while (await exists(high)) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await exists(middle)) low = middle;
    else high = middle;
  }
  return low + 1;
}

/** A log name's rows of one run, bounded (see ReadBounds); rows in step order. */
export async function readRows(run: RunRef, logName: string, bounds: ReadBounds): Promise<RowRead> {
  const rows: DataRow[] = [];
  for (;;) {
    const page = await readFrom(run, logName, rows.length, bounds.head - rows.length);
    rows.push(...page.rows);
    if (page.end || page.rows.length === 0) return { rows, total: rows.length, sampled: false };
    if (rows.length >= bounds.head) break;
  }
  const total = await countRows(run, logName, rows.length - 1);
  // Spread over the rows the head did not hold, the last chunk ending at the last row.
  const last = total - bounds.chunkRows;
  const starts =
    bounds.chunks === 1
      ? [last]
      : Array.from({ length: bounds.chunks }, (_, i) => rows.length + Math.round((i * (last - rows.length)) / (bounds.chunks - 1)));
  const chunks = await Promise.all(starts.map((start) => readFrom(run, logName, Math.max(0, start), bounds.chunkRows)));
  // The head, then the chunks past it (a chunk may overlap the head or another: each step once).
  const byStep = new Map<number, DataRow>();
  for (const row of [...(bounds.chunks === 1 ? [] : rows), ...chunks.flatMap((chunk) => chunk.rows)]) byStep.set(row.step, row);
  return { rows: [...byStep.values()].sort((a, b) => a.step - b.step), total, sampled: true };
}

/** The start of a text file, at most `maxBytes`, read from its signed URL; `cut` when the file is longer. */
export async function readTextStart(url: string, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`${response.status} ${response.statusText}`);
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
    if (size >= maxBytes) {
      cut = size > maxBytes || !(await reader.read()).done;
      await reader.cancel();
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { text: new TextDecoder().decode(bytes.subarray(0, maxBytes)), cut };
}
