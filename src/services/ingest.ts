import { sliceBySize, sliceSeries } from "../domain/ingest-slices.js";
import type { Clock } from "../domain/time.js";
import type { AlertEvaluator } from "./alert-evaluator.js";
import { decodeConsoleLines, decodeDataRows, decodeMetrics } from "../ingest/decode.js";
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

/** What Stepwise's NDJSON ingest routes take: metric points, console lines, data rows. */
export type NdjsonKind = "metrics" | "logs" | "data";

/**
 * The ingest service of both protocols: Stepwise's NDJSON bodies (/ingest/*) and MLflow's
 * log-metric and log-batch write through it. A body is decoded and validated whole before anything
 * is stored, then written in slices. Each answers the points, lines or rows accepted, or undefined
 * when the run is not in the organization (each protocol says so in its words).
 */
export class IngestService {
  constructor(
    private readonly deps: { store: Store; clock: Clock },
    /** Alert rules are evaluated here, the one point both protocols' metric writes go through, after the write committed. */
    private readonly alerts: AlertEvaluator,
  ) {}

  private async metricsThenAlerts(orgId: string, runId: number, series: MetricSeries[], now: number): Promise<number | undefined> {
    const accepted = await appendMetricsInSlices(this.deps.store, orgId, runId, series, now);
    if (accepted !== undefined) await this.alerts.afterMetrics(runId, series);
    return accepted;
  }

  /** One NDJSON body of `kind` into the run. */
  async ndjson(kind: NdjsonKind, orgId: string, runId: number, body: string): Promise<number | undefined> {
    const { store, clock } = this.deps;
    switch (kind) {
      case "metrics": {
        const batch = await decodeMetrics(body);
        return this.metricsThenAlerts(orgId, runId, batch.series, clock.now());
      }
      case "logs": {
        const lines = await decodeConsoleLines(body);
        return appendConsoleLinesInSlices(store, orgId, runId, lines, clock.now());
      }
      case "data": {
        const rows = await decodeDataRows(body);
        return appendDataRowsInSlices(store, orgId, runId, rows, clock.now());
      }
    }
  }

  /** Metric series already parsed (MLflow's metrics of one request), written at `now`. */
  metrics(orgId: string, runId: number, series: MetricSeries[], now: number): Promise<number | undefined> {
    return this.metricsThenAlerts(orgId, runId, series, now);
  }
}
