import { DomainError, runNotFound } from "../domain/errors.js";
import { isMlflowRunId } from "../domain/mlflow/ids.js";
import { isPrompt } from "../domain/mlflow/registry.js";
import { toIso } from "../domain/time.js";
import type { LoggedModel, ModelVersion, RegisteredModel, Run, Store } from "../store/store.js";

/**
 * The web UI's reads of models (docs/api.md, "Models"): registered models and their versions
 * (MLflow's registry, prompts left out as MLflow's UI does), and what a run logged. Everything is of
 * the caller's organization: another organization's model or run reads as one that does not exist.
 * The registry's store methods answer a whole organization (as MLflow's searches read it), so
 * answers are cut to a page here; a version's source run is looked up for the page's versions only.
 */

export interface Page {
  limit: number;
  offset: number;
}

const pairs = (list: [string, string][]) => list.map(([key, value]) => ({ key, value }));

function modelSummary(model: RegisteredModel, versions: ModelVersion[]) {
  const latest = versions.reduce<number | null>((max, v) => (max === null || v.version > max ? v.version : max), null);
  return {
    name: model.name,
    description: model.description,
    tags: pairs(model.tags),
    aliases: model.aliases.map(([alias, version]) => ({ alias, version })),
    latestVersion: latest,
    versionCount: versions.length,
    createdAt: toIso(model.createdAt),
    updatedAt: toIso(model.updatedAt),
  };
}

/** The Stepwise runs behind the versions' MLflow run IDs, by MLflow run ID (absent: no such run in the organization). */
async function sourceRuns(store: Store, orgId: string, versions: ModelVersion[]): Promise<Map<string, Run>> {
  const mlflowIds = [...new Set(versions.map((v) => v.runId).filter(isMlflowRunId))];
  const refs = (await Promise.all(mlflowIds.map((id) => store.getMlflowRunRef(orgId, id)))).filter((ref) => ref !== undefined);
  const runs = new Map(
    (
      await store.getRuns(
        orgId,
        refs.map((ref) => ref.id),
      )
    ).map((run) => [run.id, run]),
  );
  const byMlflowId = new Map<string, Run>();
  for (const ref of refs) {
    const run = runs.get(ref.id);
    if (run) byMlflowId.set(ref.mlflowId, run);
  }
  return byMlflowId;
}

function versionItem(version: ModelVersion, aliases: [string, number][], run: Run | undefined) {
  return {
    modelName: version.modelName,
    version: version.version,
    aliases: aliases.filter(([, v]) => v === version.version).map(([alias]) => alias),
    stage: version.stage,
    status: version.status,
    description: version.description,
    tags: pairs(version.tags),
    source: version.source,
    mlflowRunId: version.runId,
    run: run ? { runId: run.id, projectName: run.projectName, displayId: run.displayId, name: run.name } : null,
    createdAt: toIso(version.createdAt),
    updatedAt: toIso(version.updatedAt),
  };
}

/** Newest first: by creation time, then by version number (versions of one model made in one millisecond). */
const newestFirst = (a: ModelVersion, b: ModelVersion) => b.createdAt - a.createdAt || b.version - a.version;

/** One page of the organization's registered models by name, those whose name contains `search` (case-insensitive). */
export async function listModels(store: Store, orgId: string, query: Page & { search?: string }) {
  const [models, versions] = await Promise.all([store.listRegisteredModels(orgId), store.listModelVersions(orgId)]);
  const needle = query.search?.toLowerCase() ?? "";
  const matching = models
    .filter((m) => !isPrompt(m.tags) && m.name.toLowerCase().includes(needle))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const versionsOf = new Map<number, ModelVersion[]>();
  for (const version of versions) {
    const list = versionsOf.get(version.modelId);
    if (list) list.push(version);
    else versionsOf.set(version.modelId, [version]);
  }
  return {
    models: matching.slice(query.offset, query.offset + query.limit).map((m) => modelSummary(m, versionsOf.get(m.id) ?? [])),
    total: matching.length,
  };
}

/** A registered model and one page of its versions, newest first, each with its source run; NOT_FOUND when the organization has no such model. */
export async function getModel(store: Store, orgId: string, name: string, page: Page) {
  const [model, versions] = await Promise.all([store.getRegisteredModel(orgId, name), store.listModelVersions(orgId, name)]);
  if (!model || isPrompt(model.tags)) throw new DomainError("NOT_FOUND", `model '${name}' not found`);
  const shown = [...versions].sort(newestFirst).slice(page.offset, page.offset + page.limit);
  const runs = await sourceRuns(store, orgId, shown);
  return {
    model: modelSummary(model, versions),
    versions: shown.map((v) => versionItem(v, model.aliases, runs.get(v.runId))),
  };
}

function loggedModelItem(model: LoggedModel) {
  return {
    modelId: model.id,
    name: model.name,
    modelType: model.modelType,
    status: model.status,
    params: pairs(model.params),
    tags: pairs(model.tags),
    createdAt: toIso(model.createdAt),
    updatedAt: toIso(model.updatedAt),
  };
}

/**
 * What a run made: MLflow 3's logged models of its project whose source run it is (not deleted),
 * and the registered versions whose run it is, newest first, at most `limit` of each;
 * RUN_NOT_FOUND when the organization has no such run.
 */
export async function modelsOfRun(store: Store, orgId: string, runId: number, limit: number) {
  const run = await store.getMlflowRun(orgId, runId);
  if (!run) throw runNotFound(runId);
  const [logged, versions, models] = await Promise.all([
    store.listLoggedModels(orgId, [run.projectId]),
    store.listModelVersions(orgId),
    store.listRegisteredModels(orgId),
  ]);
  const aliasesOf = new Map(models.map((m) => [m.id, m.aliases]));
  const prompts = new Set(models.filter((m) => isPrompt(m.tags)).map((m) => m.id));
  const fromRun = versions
    .filter((v) => v.runId === run.mlflowId && !prompts.has(v.modelId))
    .sort(newestFirst)
    .slice(0, limit);
  return {
    runId: run.id,
    loggedModels: logged
      .filter((m) => m.sourceRunId === run.id)
      .slice(0, limit)
      .map(loggedModelItem),
    versions: fromRun.map((v) => versionItem(v, aliasesOf.get(v.modelId) ?? [], run)),
  };
}
