import { ALL_STEPS, lineageSegments, type LineageLink, type Segment, type StoredMetricRef } from "../../domain/lineage.js";
import { logGroupOf } from "../../domain/log-names.js";
import type { Point, SampledPoint } from "../../domain/sampling.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { combineSegmentSummaries, searchNames } from "../metric-series.js";
import { metricRowAt, namedSummary, toSummaryState, type MetricRow } from "../rows.js";
import type { MetricNameQuery, MetricSummary, RunMetricSummary, Store } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** Which of a run's metrics a summary read wants: one name, one group, or (both undefined) all. */
export interface MetricFilter {
  logName?: string;
  logGroup?: string;
}

/** A run with its fork parent (null when it is not a fork). */
export interface RunFork {
  id: number;
  forked: number | null;
}

/** A run of a lineage chain with its metric of one name, if it has one. */
export type LineageMetric = LineageLink & { metric: StoredMetricRef | undefined };

/** A run of a project and its own metric of one name, as an array: run ID, fork parent, then METRIC_COLUMNS (all null without one). */
export type RunMetricRow = [number, number | null, ...unknown[]];

/**
 * What reading metric summaries and points, inherited ones of forked runs included, asks of a
 * backend. Several are combined where a database server would otherwise wait for one query before
 * sending the next (lineageMetrics is one recursive query on PostgreSQL).
 */
export interface MetricReadOperations {
  /** The run's fork parent and its own metrics that pass the filter, by name; undefined when the organization has no such run. */
  runMetricRows(orgId: string, runId: number, filter: MetricFilter): { forked: number | null; own: MetricRow[] } | undefined;
  /** The run, then its parent, grandparent, ... (all in one organization by construction; at most MAX_LINEAGE_DEPTH). */
  lineage(orgId: string, runId: number): LineageLink[];
  /** The distinct names of these runs' metrics that pass the filter, in no order. */
  metricNamesOfRuns(runIds: number[], filter: MetricFilter): string[];
  /** These runs' metrics of one name. */
  storedMetrics(runIds: number[], logName: string): (StoredMetricRef & { runId: number })[];
  /** A run's lineage (as `lineage`), each run with its metric of one name. */
  lineageMetrics(orgId: string, runId: number, logName: string): LineageMetric[];
  /** The summary of one metric's points within [from, to]. */
  summarizePiece(metricId: number, from: number, to: number): MetricSummaryState;
  /** The points of the segments within [from, to], in the point order, after the first `skip`, stopping after `limit`. */
  readSegments(segments: Segment[], from: number, to: number, limit: number | undefined, skip: number | undefined): Point[];
  /** The deterministic sample of domain/sampling.ts over the segments' points within [from, to]. */
  sampleSegments(segments: Segment[], from: number, to: number, limit: number): SampledPoint[];
  /** Those of these runs that the organization has (in the project, when one is given), with their fork parents. */
  runForks(orgId: string, runIds: number[], projectId: number | undefined): RunFork[];
  /** The metrics of these runs, by run, then by name. */
  metricRowsOfRuns(runIds: number[]): MetricRow[];
  /** A project's metric names matching a LIKE pattern (metricNamePattern; null: every name), ascending, at most `limit`. */
  projectMetricNames(orgId: string, projectId: number, pattern: string | null, limit: number): string[];
  /** The project's runs (or those of `runIds`) that have a metric of this name or are forks, with that metric. */
  runMetricRowsOfProject(orgId: string, projectId: number, logName: string, runIds: number[] | undefined): RunMetricRow[];
  /** As runMetricRowsOfProject, reading the metric's last value alone: [run ID, fork parent, last value]. */
  runLastValues(orgId: string, projectId: number, logName: string): [number, number | null, number | null][];
}

const perform = performer<MetricReadOperations>();
type MetricReadWorkflow<T> = Workflow<T, MetricReadOperations>;

/**
 * A metric name search as a LIKE pattern (escape character `\`): its characters mean themselves,
 * ASCII case ignored (SQLite's LIKE, PostgreSQL's ILIKE).
 */
export function metricNamePattern(search: string | undefined): string | null {
  return search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
}

/** A series' summary from its segments; the open segment (the run's own points) from the run's own row when there is one. */
function* summarizeSegments(segments: Segment[], ownRow: MetricRow | undefined): MetricReadWorkflow<MetricSummaryState | undefined> {
  const parts: MetricSummaryState[] = [];
  for (const segment of segments) {
    parts.push(
      segment.maxStep === ALL_STEPS && ownRow?.id === segment.metricId
        ? toSummaryState(ownRow)
        : yield* perform("summarizePiece", segment.metricId, 0, segment.maxStep),
    );
  }
  return combineSegmentSummaries(parts);
}

/** The segments of a metric's series for a run (domain/lineage.ts). */
function* runSegments(orgId: string, runId: number, logName: string): MetricReadWorkflow<Segment[]> {
  const chain = yield* perform("lineageMetrics", orgId, runId, logName);
  const byRun = new Map(chain.map((link) => [link.id, link.metric]));
  return lineageSegments(chain, (id) => byRun.get(id));
}

const ownSummary = (row: MetricRow): MetricSummary => namedSummary(row.log_name, toSummaryState(row), row.log_group, row.last_time);

/**
 * Store.listMetricSummaries: a run that is not a fork (the common case) has its own rows as the
 * answer; a fork has every name of its own and its ancestors' metrics, each summarized over its segments.
 */
export function* listMetricSummaries(orgId: string, runId: number, filter: MetricFilter = {}): MetricReadWorkflow<MetricSummary[]> {
  const found = yield* perform("runMetricRows", orgId, runId, filter);
  if (!found) return [];
  const chain = found.forked === null ? [] : yield* perform("lineage", orgId, runId);
  if (chain.length <= 1) return found.own.map(ownSummary);
  const byName = new Map(found.own.map((row) => [row.log_name, row]));
  const ids = chain.map((link) => link.id);
  const inherited = yield* perform("metricNamesOfRuns", ids.slice(1), filter);
  const out: MetricSummary[] = [];
  for (const name of [...new Set([...byName.keys(), ...inherited])].sort()) {
    const stored = new Map((yield* perform("storedMetrics", ids, name)).map((metric) => [metric.runId, metric]));
    const segments = lineageSegments(chain, (id) => stored.get(id));
    const summary = yield* summarizeSegments(segments, byName.get(name));
    if (summary) out.push(namedSummary(name, summary, byName.get(name)?.log_group ?? logGroupOf(name)));
  }
  return out;
}

/** Store.listMetricSummariesOfRuns: one read for the runs that are not forks, listMetricSummaries for each fork. */
export function* listMetricSummariesOfRuns(orgId: string, runIds: number[]): MetricReadWorkflow<Map<number, MetricSummary[]>> {
  const runs = yield* perform("runForks", orgId, runIds, undefined);
  const out = new Map<number, MetricSummary[]>();
  for (const run of runs) out.set(run.id, run.forked === null ? [] : yield* listMetricSummaries(orgId, run.id));
  const plain = runs.filter((run) => run.forked === null).map((run) => run.id);
  if (plain.length === 0) return out;
  for (const row of yield* perform("metricRowsOfRuns", plain)) out.get(row.run_id)!.push(ownSummary(row));
  return out;
}

/** Store.readMetricPoints: the points of a metric within [from, to], inherited ones included, in the point order. */
export function* readMetricPoints(
  ...[orgId, runId, logName, from, to, limit, skip]: Parameters<Store["readMetricPoints"]>
): MetricReadWorkflow<Point[]> {
  return yield* perform("readSegments", yield* runSegments(orgId, runId, logName), from, to, limit, skip);
}

/** Store.sampleMetricPoints: the sample of domain/sampling.ts over a metric's stored (and inherited) points. */
export function* sampleMetricPoints(
  ...[orgId, runId, logName, from, to, n]: Parameters<Store["sampleMetricPoints"]>
): MetricReadWorkflow<SampledPoint[]> {
  return yield* perform("sampleSegments", yield* runSegments(orgId, runId, logName), from, to, n);
}

/**
 * Store.listRunMetricSummaries: the summary of one metric for every run of a project that has it
 * (or of the given runs), in one read for the common case; forks get their inherited points added.
 */
export function* listRunMetricSummaries(
  orgId: string,
  projectId: number,
  logName: string,
  runIds?: number[],
): MetricReadWorkflow<RunMetricSummary[]> {
  const out: RunMetricSummary[] = [];
  for (const row of yield* perform("runMetricRowsOfProject", orgId, projectId, logName, runIds)) {
    const [runId, forked, metricId] = row;
    const own = metricId === null ? undefined : metricRowAt(row, 2);
    const summary = forked === null ? toSummaryState(own!) : yield* summarizeSegments(yield* runSegments(orgId, runId, logName), own);
    if (summary) out.push({ runId, summary });
  }
  return out;
}

/**
 * Store.listMetricNames: a project's names from its name list; those of some runs from their
 * metrics, a fork's through its lineage (it shows its ancestors' metrics up to the fork step).
 */
export function* listMetricNames(orgId: string, projectId: number, query: MetricNameQuery): MetricReadWorkflow<string[]> {
  if (!query.runIds) return yield* perform("projectMetricNames", orgId, projectId, metricNamePattern(query.search), query.limit);
  const runs = yield* perform("runForks", orgId, query.runIds, projectId);
  const plain = runs.filter((run) => run.forked === null).map((run) => run.id);
  const names = plain.length === 0 ? [] : yield* perform("metricNamesOfRuns", plain, {});
  for (const run of runs) {
    if (run.forked !== null) for (const summary of yield* listMetricSummaries(orgId, run.id)) names.push(summary.logName);
  }
  return searchNames(names, query.search, query.limit);
}

/**
 * Store.listRunLastValues: the LAST finite value of one metric for every run of a project that has
 * one, what run filters and sorts on `summaryMetrics.<name>` compare. Only forks take the lineage path.
 */
export function* listRunLastValues(orgId: string, projectId: number, logName: string): MetricReadWorkflow<Map<number, number>> {
  const values = new Map<number, number>();
  const forked: number[] = [];
  for (const [runId, forkedFrom, lastValue] of yield* perform("runLastValues", orgId, projectId, logName)) {
    if (forkedFrom !== null) forked.push(runId);
    else if (lastValue !== null) values.set(runId, lastValue);
  }
  if (forked.length === 0) return values;
  for (const { runId, summary } of yield* listRunMetricSummaries(orgId, projectId, logName, forked)) {
    if (summary.lastValue !== null) values.set(runId, summary.lastValue);
  }
  return values;
}
