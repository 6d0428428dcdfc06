import { sliceBySize, sliceSeries } from "../domain/ingest-slices.js";
import type { ConsoleLine, DataRow, MetricSeries, Store } from "../store/store.js";

/**
 * Ingest writes of one decoded body, slice by slice (domain/ingest-slices.ts): each slice is one
 * store write, awaited before the next, so other requests run between slices. A body that fits one
 * slice, nearly all of them, is one write as before. Returns the points, lines or rows accepted, or
 * undefined when the run is not in the organization (its first slice wrote nothing).
 */
async function appendSlices<T>(slices: T[], append: (slice: T) => Promise<number | undefined>): Promise<number | undefined> {
  let accepted = 0;
  for (const slice of slices) {
    const stored = await append(slice);
    if (stored === undefined) return undefined;
    accepted += stored;
  }
  return accepted;
}

export function appendMetricsInSlices(store: Store, orgId: string, runId: number, series: MetricSeries[], now: number) {
  return appendSlices(sliceSeries(series), (slice) => store.appendMetricPoints(orgId, runId, slice, now));
}

export function appendConsoleLinesInSlices(store: Store, orgId: string, runId: number, lines: ConsoleLine[], now: number) {
  return appendSlices(
    sliceBySize(lines, (line) => line.message.length + 64),
    (slice) => store.appendConsoleLines(orgId, runId, slice, now),
  );
}

export function appendDataRowsInSlices(store: Store, orgId: string, runId: number, rows: DataRow[], now: number) {
  return appendSlices(
    sliceBySize(rows, (row) => row.data.length + row.logName.length + 64),
    (slice) => store.appendDataRows(orgId, runId, slice, now),
  );
}
