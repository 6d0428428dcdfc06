import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { projectNotFound } from "../domain/errors.js";
import { type Cell, type Column, cellOf, inferColumnType } from "../domain/export-table.js";
import { flatten, type Json } from "../domain/merge.js";
import { type ExportFormat, openTableWriter, type TableWriter } from "../export/table-writer.js";
import type { MetricSummary, Run, Store } from "../store/store.js";
import { listProjectRuns } from "./run-list.js";

/** Points read from the store at a time, and rows handed to a writer at a time (a Parquet row group). */
const READ_POINTS = 100_000;
const BATCH_ROWS = 250_000;
const PAGE_RUNS = 1000;
/** The summary statistics exported per metric, as `summary.<metric>.<statistic>` columns. */
const SUMMARY_STATISTICS = ["last", "min", "max", "mean", "count"] as const;

/** Thrown between two batches when the export was asked to stop (Ctrl-C); the partial files are removed. */
export class ExportInterrupted extends Error {}

export interface ExportRequest {
  orgId: string;
  projectName: string;
  /** The run list's filter (docs/api.md, Run list: `filter`), as JSON text; every run when absent. */
  runFilter?: string;
  format: ExportFormat;
  dir: string;
  signal?: AbortSignal;
  now: number;
}

export interface ExportListener {
  /** Before the points: how many runs and points will be written. */
  started(runs: number, points: number): void;
  pointsWritten(done: number): void;
}

export interface ExportResult {
  runs: number;
  points: number;
  files: string[];
}

/**
 * Exports a project's runs and metric points (docs/import.md, Export) as two tables in `dir`:
 * `runs.<format>` (one row per run: its columns, tags, config flattened to `config.<path>`, and
 * `summary.<metric>.<statistic>`), and `metrics.<format>` (run_id, run_name, metric, step, time,
 * value; every stored point, NaN and ±Inf included). Files appear whole or not at all (TableWriter).
 */
export async function exportProject(store: Store, request: ExportRequest, listener: ExportListener): Promise<ExportResult> {
  const { orgId, format, dir, signal } = request;
  const project = await store.getProjectByName(orgId, request.projectName);
  if (!project) throw projectNotFound(request.projectName);
  const runs: Run[] = [];
  for (let offset = 0; ; offset += PAGE_RUNS) {
    const page = await listProjectRuns(
      store,
      orgId,
      project,
      { filter: request.runFilter, limit: PAGE_RUNS, offset, includeFieldValues: false, sort: "createdAt" },
      request.now,
    );
    runs.push(...page.runs.map(({ run }) => run));
    if (page.runs.length < PAGE_RUNS) break;
  }
  runs.sort((a, b) => a.id - b.id);
  const summaries = await store.listMetricSummariesOfRuns(
    orgId,
    runs.map((run) => run.id),
  );
  const points = [...summaries.values()].flat().reduce((sum, s) => sum + s.count + s.nonFiniteCount, 0);
  listener.started(runs.length, points);

  await mkdir(dir, { recursive: true });
  const runsPath = join(dir, `runs.${format}`);
  const metricsPath = join(dir, `metrics.${format}`);
  const { columns, rows } = runTable(runs, summaries);
  const writers: TableWriter[] = [];
  try {
    const runWriter = await openTableWriter(format, runsPath, columns);
    writers.push(runWriter);
    await runWriter.write(columns.map((_, c) => rows.map((row) => row[c]!)));
    const metricWriter = await openTableWriter(format, metricsPath, METRIC_COLUMNS);
    writers.push(metricWriter);
    const written = await writePoints(store, orgId, runs, summaries, metricWriter, listener, signal);
    for (const writer of writers) await writer.finish();
    return { runs: runs.length, points: written, files: [runsPath, metricsPath] };
  } catch (error) {
    for (const writer of writers) await writer.abort();
    throw error;
  }
}

const METRIC_COLUMNS: Column[] = [
  { name: "run_id", type: "int64" },
  { name: "run_name", type: "string" },
  { name: "metric", type: "string" },
  { name: "step", type: "int64" },
  { name: "time", type: "timestamp" },
  { name: "value", type: "double" },
];

/** Every point of every metric of the runs, a run's metrics by name, each in step order. */
async function writePoints(
  store: Store,
  orgId: string,
  runs: Run[],
  summaries: Map<number, MetricSummary[]>,
  writer: TableWriter,
  listener: ExportListener,
  signal: AbortSignal | undefined,
): Promise<number> {
  let batch = emptyBatch();
  let written = 0;
  const flush = async () => {
    if (signal?.aborted) throw new ExportInterrupted();
    await writer.write([batch.runIds, batch.runNames, batch.metrics, batch.steps, batch.times, batch.values]);
    written += batch.steps.length;
    listener.pointsWritten(written);
    batch = emptyBatch();
  };
  for (const run of runs) {
    const names = (summaries.get(run.id) ?? []).map((s) => s.logName).sort();
    for (const logName of names) {
      for (let skip = 0; ; skip += READ_POINTS) {
        const points = await store.readMetricPoints(orgId, run.id, logName, 0, Number.MAX_SAFE_INTEGER, READ_POINTS, skip);
        for (const point of points) {
          batch.runIds.push(run.id);
          batch.runNames.push(run.name);
          batch.metrics.push(logName);
          batch.steps.push(point.step);
          batch.times.push(point.time);
          batch.values.push(point.value);
        }
        if (batch.steps.length >= BATCH_ROWS) await flush();
        if (points.length < READ_POINTS) break;
      }
    }
  }
  await flush();
  return written;
}

function emptyBatch() {
  return {
    runIds: [] as number[],
    runNames: [] as string[],
    metrics: [] as string[],
    steps: [] as number[],
    times: [] as number[],
    values: [] as number[],
  };
}

/** The runs table: fixed columns, then config and summaries, each column typed by its values. */
export function runTable(runs: Run[], summaries: Map<number, MetricSummary[]>): { columns: Column[]; rows: Cell[][] } {
  const fixed: [Column, (run: Run) => Cell][] = [
    [{ name: "run_id", type: "int64" }, (run) => run.id],
    [{ name: "display_id", type: "string" }, (run) => run.displayId],
    [{ name: "name", type: "string" }, (run) => run.name],
    [{ name: "status", type: "string" }, (run) => run.status],
    [{ name: "tags", type: "string" }, (run) => JSON.stringify(run.tags)],
    [{ name: "external_id", type: "string" }, (run) => run.externalId],
    [{ name: "notes", type: "string" }, (run) => run.notes],
    [{ name: "created_at", type: "timestamp" }, (run) => run.createdAt],
    [{ name: "ended_at", type: "timestamp" }, (run) => (run.status === "RUNNING" ? null : run.statusUpdated)],
    [{ name: "forked_from_run_id", type: "int64" }, (run) => run.forkedFromRunId],
  ];
  // Dynamic columns by name, in Maps: config keys and metric names are user strings.
  const configs = runs.map((run) => new Map(Object.entries(flatten(run.config ?? undefined))));
  const configKeys = [...new Set(configs.flatMap((config) => [...config.keys()]))].sort();
  const summaryByRun = runs.map((run) => new Map((summaries.get(run.id) ?? []).map((s) => [s.logName, s])));
  const metricNames = [...new Set(summaryByRun.flatMap((byName) => [...byName.keys()]))].sort();

  const columns: Column[] = fixed.map(([column]) => column);
  const cells: ((index: number) => Cell)[] = fixed.map(
    ([, of]) =>
      (index: number) =>
        of(runs[index]!),
  );
  for (const key of configKeys) {
    const type = inferColumnType(configs.map((config) => config.get(key)));
    columns.push({ name: `config.${key}`, type });
    cells.push((index) => cellOf(configs[index]!.get(key) as Json | undefined, type));
  }
  for (const name of metricNames) {
    for (const statistic of SUMMARY_STATISTICS) {
      columns.push({ name: `summary.${name}.${statistic}`, type: statistic === "count" ? "int64" : "double" });
      cells.push((index) => {
        const summary = summaryByRun[index]!.get(name);
        if (!summary) return null;
        if (statistic === "last") return summary.lastValue;
        if (statistic === "count") return summary.count + summary.nonFiniteCount;
        if (summary.count === 0) return null;
        return statistic === "mean" ? summary.mean : statistic === "min" ? summary.min : summary.max;
      });
    }
  }
  return { columns, rows: runs.map((_, index) => cells.map((cell) => cell(index))) };
}
