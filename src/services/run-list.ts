import { compileFieldFilters } from "../domain/field-filter.js";
import { flatten, type Json } from "../domain/merge.js";
import { compileRunFilter } from "../domain/run-filter.js";
import {
  compareSortValues,
  fieldValues,
  type ColumnSort,
  parseFieldSelection,
  parseJsonParameter,
  parseRunSort,
  parseStatusList,
  parseTagList,
  runDuration,
  sortValue,
  toFilterableRun,
  type FieldSelection,
} from "../domain/run-list.js";
import type { FilterableRun } from "../domain/run-view.js";
import type { Project, Run, RunCandidate, Store } from "../store/store.js";

/** The `/list` query parameters as they arrive (docs/api.md, Run list). */
export interface RunListParams {
  search?: string;
  tags?: string;
  status?: string;
  limit: number;
  offset: number;
  includeFieldValues: boolean;
  visibleColumns?: string;
  fieldFilters?: string;
  filter?: string;
  sort?: string;
}

export interface ListedRun {
  run: Run;
  /** Present when field values were requested. */
  fields?: { config: Record<string, Json>; systemMetadata: Record<string, Json> };
}

/**
 * Lists runs of a project. Name search, tags and statuses narrow the candidates in the store; the
 * filter grammars and key sorts then run in-process over those candidates (decisions in
 * docs/decisions.md), and only a plain column-ordered list is paged by the store itself.
 */
export async function listProjectRuns(
  store: Store,
  orgId: string,
  project: Project,
  params: RunListParams,
  now: number,
): Promise<{ runs: ListedRun[]; total: number }> {
  // Everything is parsed before the store is asked, so a bad parameter is a 400 whatever the data.
  const sort = parseRunSort(params.sort);
  const runFilter = params.filter === undefined ? undefined : compileRunFilter(parseJsonParameter("filter", params.filter));
  const fieldFilter =
    params.fieldFilters === undefined ? undefined : compileFieldFilters(parseJsonParameter("fieldFilters", params.fieldFilters));
  const selection = parseFieldSelection(params.visibleColumns);
  const narrowing = { search: params.search || undefined, tags: parseTagList(params.tags), statuses: parseStatusList(params.status) };
  const page = { limit: params.limit, offset: params.offset };

  if (!runFilter && !fieldFilter && sort.kind === "column") {
    const { runs, total } = await store.listRuns(orgId, project.id, { ...narrowing, order: sort, page });
    return { runs: runs.map((run) => listed(run, params.includeFieldValues, selection)), total };
  }

  const candidates = await store.listRunCandidates(orgId, project.id, narrowing);
  const metricNames = new Set(runFilter?.summaryMetricNames ?? []);
  if (sort.kind === "summaryMetrics") metricNames.add(sort.key);
  const lastValues = await lastValuesByRun(store, orgId, project.id, [...metricNames]);
  const views = candidates
    .map((run) => ({ id: run.id, run, view: toFilterableRun(run, lastValues.get(run.id) ?? {}) }))
    .filter(({ view }) => (!runFilter || runFilter.test(view)) && (!fieldFilter || fieldFilter(view)));
  // Candidates come newest first and Array.prototype.sort is stable, so equal values keep that order.
  if (sort.kind === "column") views.sort((a, b) => compareColumns(a, b, sort.field, sort.descending));
  else if (sort.kind === "duration") {
    const order = (a: RunCandidate, b: RunCandidate) => runDuration(a, now) - runDuration(b, now);
    views.sort((a, b) => (sort.descending ? order(b.run, a.run) : order(a.run, b.run)));
  } else views.sort((a, b) => compareSortValues(sortValue(a.view, sort), sortValue(b.view, sort), sort.descending));
  const pageViews = new Map(views.slice(page.offset, page.offset + page.limit).map(({ id, view }) => [id, view]));
  const runs = await store.getRuns(orgId, [...pageViews.keys()]);
  return { runs: runs.map((run) => listed(run, params.includeFieldValues, selection, pageViews.get(run.id))), total: views.length };
}

/** The order of the store's column sorts (ties by ID in the same direction), for runs sorted in-process. */
function compareColumns(
  a: { id: number; view: FilterableRun },
  b: { id: number; view: FilterableRun },
  field: ColumnSort,
  descending: boolean,
): number {
  const [x, y] = [a.view[field], b.view[field]];
  const order = x < y ? -1 : x > y ? 1 : a.id - b.id;
  return descending ? -order : order;
}

/** LAST finite value of each named metric, per run; runs without a finite value lack the key. */
async function lastValuesByRun(
  store: Store,
  orgId: string,
  projectId: number,
  names: string[],
): Promise<Map<number, Record<string, number>>> {
  const byRun = new Map<number, Record<string, number>>();
  for (const name of names) {
    for (const [runId, value] of await store.listRunLastValues(orgId, projectId, name)) {
      let values = byRun.get(runId);
      if (!values) byRun.set(runId, (values = Object.create(null) as Record<string, number>));
      values[name] = value;
    }
  }
  return byRun;
}

function listed(run: Run, includeFieldValues: boolean, selection: FieldSelection[] | undefined, view?: FilterableRun): ListedRun {
  if (!includeFieldValues) return { run };
  const config = view?.config ?? flatten(run.config ?? undefined);
  const systemMetadata = view?.systemMetadata ?? flatten(run.systemMetadata ?? undefined);
  return {
    run,
    fields: { config: fieldValues(config, "config", selection), systemMetadata: fieldValues(systemMetadata, "systemMetadata", selection) },
  };
}
