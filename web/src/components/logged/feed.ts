// Bounded reads of a log name's data rows and of text files. A series of 100,000 histograms is
// not read whole: its first rows, and past them a sample of chunks spread to its last row (found
// by probing offsets; lib/sample-plan.ts), so a heatmap spans the whole series and the newest step
// is always there; a byte budget bounds series of large rows too.

import { api, type RunRef } from "../../api.ts";
import { type ReadBounds, samplePlan } from "../../lib/sample-plan.ts";
import type { DataRow } from "../../types.ts";

export type { ReadBounds };

export interface RowRead {
  rows: DataRow[];
  /** How many rows the log name has. */
  total: number;
  /** Whether `rows` is a sample (the series had more than the first read held). */
  sampled: boolean;
}

/** The run page: up to 1,000 steps whole, past that 20 chunks of 25 across the series; 32 MiB of text at most. */
export const RUN_PAGE_BOUNDS: ReadBounds = { head: 1000, chunks: 20, chunkRows: 25, maxBytes: 32 * 1024 * 1024 };
/** A workspace panel wants each run's newest entry: a short head, then the last row alone. */
export const LATEST_BOUNDS: ReadBounds = { head: 50, chunks: 1, chunkRows: 1, maxBytes: 8 * 1024 * 1024 };

/** Text of rows, as the server bounds its pages (UTF-16 units here: near enough for a budget). */
const sizeOf = (rows: readonly DataRow[]) => rows.reduce((sum, row) => sum + row.data.length, 0);

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

/** `count` rows from `offset`, following pages the server ended early by size. */
async function readChunk(run: RunRef, logName: string, offset: number, count: number): Promise<DataRow[]> {
  const rows: DataRow[] = [];
  while (rows.length < count) {
    const page = await readFrom(run, logName, offset + rows.length, count - rows.length);
    rows.push(...page.rows);
    if (page.end || page.rows.length === 0) break;
  }
  return rows;
}

/** A log name's rows of one run, bounded in rows and bytes (see ReadBounds, samplePlan); rows in step order. */
export async function readRows(run: RunRef, logName: string, bounds: ReadBounds): Promise<RowRead> {
  const rows: DataRow[] = [];
  let bytes = 0;
  for (;;) {
    const page = await readFrom(run, logName, rows.length, bounds.head - rows.length);
    rows.push(...page.rows);
    bytes += sizeOf(page.rows);
    if (page.end || page.rows.length === 0) return { rows, total: rows.length, sampled: false };
    if (rows.length >= bounds.head || bytes >= bounds.maxBytes / 2) break;
  }
  const total = await countRows(run, logName, rows.length - 1);
  const plan = samplePlan(total, rows.length, bytes, bounds);
  const chunks = await Promise.all(plan.map(([offset, count]) => readChunk(run, logName, offset, count)));
  // The head, then the chunks past it (a chunk may overlap the head or another: each step once).
  const byStep = new Map<number, DataRow>();
  for (const row of [...(bounds.chunks === 1 ? [] : rows), ...chunks.flat()]) byStep.set(row.step, row);
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
