import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { doesNotExist, invalidParameter } from "../domain/mlflow/errors.js";
import { experimentIdOf, isMlflowRunId, parseExperimentId } from "../domain/mlflow/ids.js";
import { artifactUri, LIMITS, paramsOf, runsWithinMetricBudget, toMlflowStatus } from "../domain/mlflow/model.js";
import {
  compareKeys,
  compileClause,
  decodeSearchToken,
  encodeSearchToken,
  parseFilter,
  parseOrderBy,
  type Clause,
  type ClauseValue,
  type OrderTerm,
  type SortValue,
} from "../domain/mlflow/search.js";
import { datasetInputsOf, datasetValues, type DatasetInput, type DatasetKey } from "../domain/mlflow/datasets.js";
import { isTerminal } from "../domain/status.js";
import { inView, type ViewType } from "../domain/mlflow/views.js";
import { decodePageToken, encodePageToken, pageTokenCount } from "../domain/page-token.js";
import type { Point, SampledPoint } from "../domain/sampling.js";
import type { Json } from "../domain/merge.js";
import { accumulatedJsonText } from "../domain/runs.js";
import type {
  MetricSummary,
  MlflowCandidate,
  MlflowProject,
  MlflowRun,
  MlflowRunRef,
  ProjectMlflowState,
  RunMlflowState,
  Store,
} from "../store/store.js";
import { lastPoint } from "./series-end.js";

/**
 * Workflows of MLflow's protocol over the store (docs/api.md, "MLflow's REST API"). Runs and
 * experiments are read through MlflowStore's reads (MlflowRun, MlflowProject), the only ones that
 * return MLflow's fields.
 */

/**
 * The experiment an ID names in the organization (RESOURCE_DOES_NOT_EXIST when none): "0" is its
 * default experiment, which every organization has, as on MLflow's server (defaultExperiment).
 */
export async function findExperiment(store: Store, orgId: string, experimentId: unknown): Promise<MlflowProject> {
  if (typeof experimentId !== "string" || experimentId === "")
    throw invalidParameter("Missing value for required parameter 'experiment_id'");
  const ref = parseExperimentId(experimentId);
  const project = !ref
    ? undefined
    : ref.default
      ? await defaultExperiment(store, orgId)
      : await store.getMlflowProject(orgId, ref.projectId);
  if (!project) throw doesNotExist(`No Experiment with id=${experimentId} exists`);
  return project;
}

/**
 * The organization's default experiment, made the first time MLflow's protocol needs it: a read
 * once it exists, one write transaction the first time (Store.createMlflowDefaultProject, which
 * makes one default of concurrent first requests).
 */
export async function defaultExperiment(store: Store, orgId: string): Promise<MlflowProject> {
  return (await store.getMlflowDefaultProject(orgId)) ?? (await store.createMlflowDefaultProject(orgId));
}

export async function findRun(store: Store, orgId: string, runId: unknown): Promise<MlflowRun> {
  return found(runId, (id) => store.getRunByMlflowId(orgId, id));
}

/** findRun for routes that only write to a run or read its points: its ID and lifecycle, not its JSON fields. */
export async function findRunRef(store: Store, orgId: string, runId: unknown): Promise<MlflowRunRef> {
  return found(runId, (id) => store.getMlflowRunRef(orgId, id));
}

async function found<T>(runId: unknown, read: (mlflowId: string) => Promise<T | undefined>): Promise<T> {
  if (typeof runId !== "string" || runId === "") throw invalidParameter("Missing value for required parameter 'run_id'");
  const run = isMlflowRunId(runId) ? await read(runId) : undefined;
  if (!run) throw doesNotExist(`Run with id=${runId} not found`);
  return run;
}

/** Runs that MLflow's client may change: a deleted run is read-only (MLflow's INVALID_PARAMETER_VALUE). */
export function checkActive(run: MlflowRunRef): void {
  if (run.deletedAt !== null) throw invalidParameter(`The run ${run.mlflowId} must be in the 'active' state. Current state is deleted.`);
}

/**
 * A change that refuses to make any of `fields` (field, name in the 413) longer than
 * MAX_RUN_JSON_LENGTH (accumulatedJsonText): the 413 comes before the store writes anything.
 * Fields the change leaves alone are not measured.
 */
function bounded<S>(change: (state: S) => S, fields: readonly [keyof S, string][]): (state: S) => S {
  return (before) => {
    const after = change(before);
    for (const [field, name] of fields) if (after[field] !== before[field]) accumulatedJsonText(name, after[field] as Json);
    return after;
  };
}

const RUN_ACCUMULATES: readonly [keyof RunMlflowState, string][] = [
  ["config", "params"],
  ["mlflowTags", "tags"],
  ["mlflowInputs", "dataset inputs"],
];

/** store.updateRunMlflow with a run's params, tags and dataset inputs bounded (bounded). */
export function updateRunMlflow(
  store: Store,
  orgId: string,
  runId: number,
  change: (state: RunMlflowState) => RunMlflowState,
  now: number,
) {
  return store.updateRunMlflow(orgId, runId, bounded(change, RUN_ACCUMULATES), now);
}

/** store.updateProjectMlflow with the experiment's tags bounded as a run's. */
export function updateProjectMlflow(
  store: Store,
  orgId: string,
  projectId: number,
  change: (state: ProjectMlflowState) => ProjectMlflowState,
  now: number,
) {
  return store.updateProjectMlflow(orgId, projectId, bounded(change, [["mlflowTags", "tags"]]), now);
}

export interface LatestMetric {
  key: string;
  value: number;
  step: number;
  timestamp: number;
}

/**
 * The latest point of each metric of a run, as MLflow defines it (the point at the highest step),
 * with its client time. From the summaries; the point itself is read only when the summary cannot
 * tell it: the last point is not finite (the summary keeps the last finite value) or its time is
 * not kept (MetricSummary.lastTime).
 */
export async function latestMetrics(store: Store, orgId: string, run: MlflowRun): Promise<LatestMetric[]> {
  return latestOf(store, orgId, run.id, await store.listMetricSummaries(orgId, run.id));
}

/** latestMetrics of many runs (a search's page), their summaries read at once. */
export async function latestMetricsOfRuns(store: Store, orgId: string, runs: MlflowRun[]): Promise<Map<number, LatestMetric[]>> {
  const summaries = await store.listMetricSummariesOfRuns(
    orgId,
    runs.map((run) => run.id),
  );
  const out = new Map<number, LatestMetric[]>();
  for (const run of runs) out.set(run.id, await latestOf(store, orgId, run.id, summaries.get(run.id) ?? []));
  return out;
}

async function latestOf(store: Store, orgId: string, runId: number, summaries: MetricSummary[]): Promise<LatestMetric[]> {
  const out: LatestMetric[] = [];
  for (const summary of summaries) {
    const point = await lastPoint(store, orgId, runId, summary.logName, summary, true);
    if (point) out.push({ key: summary.logName, value: point.value, step: point.step, timestamp: point.time! });
  }
  return out;
}

export interface SearchRequest {
  experimentIds: string[];
  filter?: string;
  orderBy: string[];
  maxResults: number;
  pageToken?: string;
  viewType: ViewType;
}

interface Scored {
  candidate: MlflowCandidate;
  projectId: number;
  key: SortValue[];
}

/**
 * MLflow's run search: the filter and order are parsed first (an invalid one is
 * INVALID_PARAMETER_VALUE before any read), then each experiment's runs are read in one query,
 * metric values one query per metric the filter or order names, and the runs matched, ordered by
 * the full key (compareKeys) and paged after the token's key.
 */
export async function searchRuns(
  store: Store,
  orgId: string,
  request: SearchRequest,
): Promise<{ runs: MlflowRun[]; nextPageToken?: string }> {
  const clauses = parseFilter(request.filter);
  const terms = parseOrderBy(request.orderBy);
  if (!Number.isSafeInteger(request.maxResults) || request.maxResults < 1 || request.maxResults > LIMITS.maxResults)
    throw invalidParameter(`Invalid value ${request.maxResults} for parameter 'max_results': it must be at most ${LIMITS.maxResults}`);
  const after = decodeSearchToken(request.pageToken, terms.length + 2);
  // As MLflow's server: an experiment named twice is searched once, and each run is listed once.
  const experimentIds = new Set(request.experimentIds);
  if (experimentIds.size > LIMITS.searchExperiments)
    throw invalidParameter(
      `Invalid value for parameter 'experiment_ids': at most ${LIMITS.searchExperiments} distinct experiments per search, got ${experimentIds.size}`,
    );
  const projects = new Map<number, MlflowProject>();
  for (const id of experimentIds) {
    const project = await findExperiment(store, orgId, id);
    projects.set(project.id, project);
  }

  const matched: Scored[] = [];
  const compiled = clauses.map((clause) => ({ clause, test: compileClause(clause) }));
  const readsDatasets = clauses.some((clause) => clause.entity === "dataset");
  for (const project of projects.values()) {
    const candidates = await store.listMlflowCandidates(orgId, project.id);
    const inputs = readsDatasets ? await store.listMlflowInputs(orgId, project.id) : new Map<number, Json>();
    const metricNames = new Set([
      ...clauses.filter((c) => c.entity === "metric").map((c) => c.key),
      ...terms.filter((t) => t.entity === "metric").map((t) => t.key),
    ]);
    const metrics = new Map<string, Map<number, number>>();
    for (const name of metricNames) metrics.set(name, await latestValues(store, orgId, project.id, name));
    const reader = valueReader(experimentIdOf(project.id, project.defaultExperiment), metrics, inputs);
    for (const candidate of candidates) {
      if (!inView(candidate.deletedAt, request.viewType)) continue;
      const values = reader(candidate);
      if (!compiled.every(({ clause, test }) => test(values(clause.entity, clause.key)))) continue;
      const key: SortValue[] = terms.map((term) => sortValue(values(term.entity, term.key)));
      key.push(candidate.createdAt, candidate.mlflowId);
      matched.push({ candidate, projectId: project.id, key });
    }
    await yieldToEventLoop();
  }
  matched.sort((a, b) => compareKeys(a.key, b.key, terms));
  let start = 0;
  if (after) {
    start = matched.length;
    for (let i = 0; i < matched.length; i++)
      if (compareKeys(matched[i]!.key, after, terms) > 0) {
        start = i;
        break;
      }
  }
  const candidates = matched.slice(start, start + request.maxResults);
  const counts = await store.countMetricsOfRuns(
    orgId,
    candidates.map((m) => m.candidate.id),
  );
  const page = candidates.slice(0, runsWithinMetricBudget(candidates.map((m) => counts.get(m.candidate.id) ?? 0)));
  const runs = await store.getMlflowRuns(
    orgId,
    page.map((m) => m.candidate.id),
  );
  const more = start + page.length < matched.length;
  return { runs, nextPageToken: more ? encodeSearchToken(page.at(-1)!.key) : undefined };
}

/** Latest value of one metric per run of the project: the value at its highest step, of any kind (lastPoint). */
async function latestValues(store: Store, orgId: string, projectId: number, name: string): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const { runId, summary } of await store.listRunMetricSummaries(orgId, projectId, name)) {
    const point = await lastPoint(store, orgId, runId, name, summary, false);
    if (point) out.set(runId, point.value);
  }
  return out;
}

/** A run's value as an order term's sort key: none is null (parseOrderBy names no dataset, whose values are lists). */
const sortValue = (value: ClauseValue): SortValue => (value === undefined || Array.isArray(value) ? null : (value as number | string));

/** How a clause or order term reads a run's value: undefined when the run has none; a list for a `datasets.` clause. */
function valueReader(experimentId: string, metrics: Map<string, Map<number, number>>, inputs: Map<number, Json>) {
  return (candidate: MlflowCandidate) => {
    let params: Map<string, string> | undefined;
    let tags: Map<string, string> | undefined;
    let datasets: DatasetInput[] | undefined;
    return (entity: Clause["entity"] | OrderTerm["entity"], key: string): ClauseValue => {
      switch (entity) {
        case "dataset":
          datasets ??= datasetInputsOf(inputs.get(candidate.id) ?? null);
          return datasetValues(datasets, key as DatasetKey);
        case "metric":
          return metrics.get(key)?.get(candidate.id);
        case "param":
          params ??= paramsOf(candidate.config);
          return params.get(key);
        case "tag":
          tags ??= new Map(candidate.mlflowTags);
          return tags.get(key);
        default:
          return attributeOf(candidate, experimentId, key);
      }
    };
  };
}

function attributeOf(candidate: MlflowCandidate, experimentId: string, key: string): number | string | undefined {
  switch (key) {
    case "run_id":
      return candidate.mlflowId;
    case "run_name":
      return candidate.name;
    case "status":
      return toMlflowStatus(candidate.status);
    case "user_id":
      return candidate.mlflowUserId;
    case "start_time":
      return candidate.createdAt;
    case "end_time":
      return isTerminal(candidate.status) && candidate.statusUpdated !== null ? candidate.statusUpdated : undefined;
    case "artifact_uri":
      return artifactUri(experimentId, candidate.mlflowId);
    default:
      return undefined;
  }
}

/**
 * One page of a metric's history in the point order, and the token of the next page when there is
 * more. A token names the step the next page starts at and how many of that step's points came
 * before it: a step may hold many points (MLflow keeps them all), and a page may end inside one.
 */
export async function metricHistory(
  store: Store,
  orgId: string,
  run: MlflowRunRef,
  key: string,
  maxResults: number,
  pageToken: string | undefined,
): Promise<{ points: Point[]; nextPageToken?: string }> {
  const from = pageToken ? pageTokenCount(pageToken, "step") : 0;
  const skip = pageToken && Object.hasOwn(decodePageToken(pageToken), "skip") ? pageTokenCount(pageToken, "skip") : 0;
  const points = await store.readMetricPoints(orgId, run.id, key, from, Number.MAX_SAFE_INTEGER, maxResults + 1, skip);
  if (points.length <= maxResults) return { points };
  const next = points[maxResults]!;
  let before = 0; // points of the next page's first step on this page and earlier ones
  for (let i = maxResults - 1; i >= 0 && points[i]!.step === next.step; i--) before++;
  if (next.step === from) before += skip;
  return {
    points: points.slice(0, maxResults),
    nextPageToken: encodePageToken(before > 0 ? { step: next.step, skip: before } : { step: next.step }),
  };
}

/** get-history-bulk-interval: each run's sample of one metric over a step window, in the order the runs are named. */
export async function metricIntervals(
  store: Store,
  orgId: string,
  runIds: string[],
  key: string,
  [start, end]: [number, number],
  maxResults: number,
): Promise<{ run: MlflowRunRef; points: SampledPoint[] }[]> {
  const out = [];
  for (const runId of runIds) {
    const run = await findRunRef(store, orgId, runId);
    out.push({ run, points: await store.sampleMetricPoints(orgId, run.id, key, start, end, maxResults) });
  }
  return out;
}
