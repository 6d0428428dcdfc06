import { DomainError, invalidInput, projectNotFound, runNotFound } from "../domain/errors.js";
import { parseDisplayId } from "../domain/ids.js";
import { inNamedProject } from "../domain/run-scope.js";
import type { MetricSummary, Run, Store } from "../store/store.js";

/**
 * Finds a run by display ID. Display IDs are unique within a project only, so a match in several
 * projects is a conflict unless `projectName` narrows it.
 */
export async function getRunByDisplayId(store: Store, orgId: string, displayId: string, projectName?: string): Promise<Run> {
  const parsed = parseDisplayId(displayId);
  if (!parsed) throw invalidInput(`displayId: '${displayId}' is not of the form <PREFIX>-<NUMBER>`);
  const runs = await store.listRunsByDisplayId(orgId, parsed.prefix, parsed.number, projectName);
  if (runs.length === 0) throw runNotFound(displayId);
  if (runs.length > 1) {
    throw new DomainError(
      "AMBIGUOUS_DISPLAY_ID",
      `displayId '${displayId}' matches runs in projects ${runs.map((run) => `'${run.projectName}'`).join(", ")}; pass projectName`,
    );
  }
  return runs[0]!;
}

export interface RunReference {
  runId?: number | null;
  displayId?: string | null;
  externalId?: string | null;
  projectName?: string | null;
}

/** Resolves the run a resume request names: by run ID, else display ID, else external ID (with project). */
export async function resolveRunReference(store: Store, orgId: string, ref: RunReference): Promise<Run> {
  const projectName = ref.projectName ?? undefined;
  if (ref.runId != null) {
    const run = inNamedProject(await store.getRun(orgId, ref.runId), projectName);
    if (!run) throw runNotFound(ref.runId);
    return run;
  }
  if (ref.displayId != null) return getRunByDisplayId(store, orgId, ref.displayId, projectName);
  if (ref.externalId != null) {
    if (projectName === undefined) throw invalidInput("projectName: is required with externalId (external IDs are scoped to a project)");
    const run = await store.getRunByExternalId(orgId, projectName, ref.externalId);
    if (!run) throw runNotFound(ref.externalId);
    return run;
  }
  throw invalidInput("one of runId, displayId or externalId is required");
}

/**
 * The run of a read that names its project (docs/semantics.md, Reads): an unknown project is a 404 naming
 * the project; a run of another project or organization is a 404 naming the run.
 */
export async function getRunInProject(store: Store, orgId: string, runId: number, projectName: string): Promise<Run> {
  const run = inNamedProject(await store.getRun(orgId, runId), projectName);
  if (run) return run;
  if (!(await store.getProjectByName(orgId, projectName))) throw projectNotFound(projectName);
  throw runNotFound(runId);
}

/**
 * getRunInProject and the run's metric summaries, read at once: on a database server one round trip
 * of waiting instead of two. The summaries are of the key's organization only, and are dropped
 * unread when the run is not found in the project.
 */
export async function runInProjectWithSummaries(
  store: Store,
  orgId: string,
  runId: number,
  projectName: string,
  filter: { logName?: string; logGroup?: string },
): Promise<{ run: Run; summaries: MetricSummary[] }> {
  const [run, summaries] = await Promise.all([
    getRunInProject(store, orgId, runId, projectName),
    store.listMetricSummaries(orgId, runId, filter),
  ]);
  return { run, summaries };
}
