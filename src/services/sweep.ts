import type { Json } from "../domain/merge.js";
import { sweepKeys, valuesOf } from "../domain/sweep.js";
import type { Project, Store } from "../store/store.js";
import { listProjectRuns, type RunListParams } from "./run-list.js";

export interface SweepSummary {
  last: number | null;
  min: number | null;
  max: number | null;
}

export interface SweepRun {
  id: number;
  name: string;
  displayId: string;
  status: string;
  tags: string[];
  config: Record<string, Json>;
  metrics: Record<string, SweepSummary | null>;
}

/**
 * The runs of a selection (the run list's search, tags, status, filter and sort, up to `limit`),
 * with the config keys that differ between them and the summaries of `metrics`: one run-list read
 * and one summaries read per metric, whatever the number of runs.
 */
export async function readSweep(
  store: Store,
  orgId: string,
  project: Project,
  selection: Pick<RunListParams, "search" | "tags" | "status" | "filter" | "sort"> & { limit: number },
  metrics: readonly string[],
  now: number,
): Promise<{ total: number; keys: string[]; constantKeys: string[]; moreKeys: number; runs: SweepRun[] }> {
  const { runs, total } = await listProjectRuns(store, orgId, project, { ...selection, offset: 0, includeFieldValues: true }, now);
  const configs = runs.map(({ fields }) => fields?.config ?? {});
  const { differing, constant, more } = sweepKeys(configs);
  const ids = runs.map(({ run }) => run.id);
  const summaries = await Promise.all(
    metrics.map(
      async (name) =>
        new Map((await store.listRunMetricSummaries(orgId, project.id, name, ids)).map((entry) => [entry.runId, entry.summary])),
    ),
  );
  return {
    total,
    keys: differing,
    constantKeys: constant,
    moreKeys: more,
    runs: runs.map(({ run }, index) => ({
      id: run.id,
      name: run.name,
      displayId: run.displayId,
      status: run.status,
      tags: run.tags,
      config: valuesOf(configs[index]!, differing),
      metrics: Object.fromEntries(
        metrics.map((name, m) => {
          const summary = summaries[m]!.get(run.id);
          return [name, summary ? { last: summary.lastValue, min: summary.min, max: summary.max } : null];
        }),
      ),
    })),
  };
}
