import { doesNotExist, invalidParameter } from "../domain/mlflow/errors.js";
import { experimentIdOf } from "../domain/mlflow/ids.js";
import {
  boundedPairs,
  checkLoggedModelName,
  checkModelType,
  finalizeStatus,
  isLoggedModelId,
  loggedModelArtifactUri,
  type LoggedModelStatus,
  type ModelOrderTerm,
  newLoggedModelId,
  randomModelName,
  type SearchableModel,
  searchLoggedModels,
  setPairs,
} from "../domain/mlflow/logged-models.js";
import type { Clause } from "../domain/mlflow/search.js";
import type { Clock } from "../domain/time.js";
import type { LoggedModel, LoggedModelState, Store } from "../store/store.js";
import { findExperiment, findRunRef } from "./mlflow.js";

export interface NewModelRequest {
  experimentId: unknown;
  name?: string;
  modelType?: string;
  sourceRunId?: string;
  params: [string, string][];
  tags: [string, string][];
}

export interface ModelSearch {
  experimentIds: unknown[];
  clauses: Clause[];
  order: ModelOrderTerm[];
  /** Dataset names the search asks metrics of; Stepwise links no metrics to models, so any makes the result empty. */
  datasets: number;
  maxResults: number;
  pageToken?: string;
}

/** A model as its search and its JSON read it: with its experiment ID and artifact root. */
export type ModelView = LoggedModel & SearchableModel;

export function modelView(model: LoggedModel): ModelView {
  const experimentId = experimentIdOf(model.projectId, model.inDefaultExperiment);
  return { ...model, experimentId, artifactUri: loggedModelArtifactUri(experimentId, model.id) };
}

/**
 * MLflow 3's logged models (docs/api.md, "MLflow's REST API: logged models"): a model of an
 * experiment, made PENDING by the client, its files uploaded through the artifact proxy (files of
 * its source run), then finalized READY or FAILED. Another organization's model does not exist.
 */
export class MlflowLoggedModels {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async create(orgId: string, request: NewModelRequest): Promise<ModelView> {
    const { store, clock } = this.deps;
    const project = await findExperiment(store, orgId, request.experimentId);
    if (project.deletedAt !== null)
      throw invalidParameter(
        `The experiment ${experimentIdOf(project.id, project.defaultExperiment)} must be in the 'active' state. Current state is deleted.`,
      );
    const run = request.sourceRunId ? await findRunRef(store, orgId, request.sourceRunId) : undefined;
    const created = await store.createLoggedModel(orgId, {
      id: newLoggedModelId(),
      projectId: project.id,
      name: checkLoggedModelName(request.name, randomModelName),
      modelType: checkModelType(request.modelType),
      sourceRunId: run?.id ?? null,
      params: boundedPairs("params", setPairs([], request.params)),
      tags: boundedPairs("tags", setPairs([], request.tags)),
      now: clock.now(),
    });
    // The experiment or the run went away since they were read.
    if (!created) throw doesNotExist(`No Experiment with id=${String(request.experimentId)} exists`);
    return modelView(created);
  }

  /** A model by ID; a deleted one only with `allowDeleted` (MLflow's get with allow_deleted). */
  async find(orgId: string, modelId: string, allowDeleted = false): Promise<ModelView> {
    const model = isLoggedModelId(modelId) ? await this.deps.store.getLoggedModel(orgId, modelId) : undefined;
    if (!model || (model.deletedAt !== null && !allowDeleted)) throw notFound(modelId);
    return modelView(model);
  }

  async finalize(orgId: string, modelId: string, status: LoggedModelStatus): Promise<ModelView> {
    return this.update(orgId, modelId, (s) => ({ ...s, status: finalizeStatus(s.status, status) }));
  }

  async logParams(orgId: string, modelId: string, params: [string, string][]): Promise<void> {
    await this.update(orgId, modelId, (s) => ({ ...s, params: boundedPairs("params", setPairs(s.params, params)) }));
  }

  async setTags(orgId: string, modelId: string, tags: [string, string][]): Promise<ModelView> {
    return this.update(orgId, modelId, (s) => ({ ...s, tags: boundedPairs("tags", setPairs(s.tags, tags)) }));
  }

  async deleteTag(orgId: string, modelId: string, key: string): Promise<void> {
    await this.update(orgId, modelId, (s) => {
      if (!s.tags.some(([k]) => k === key)) throw doesNotExist(`No tag with key '${key}' found for model with ID '${modelId}'.`);
      return { ...s, tags: s.tags.filter(([k]) => k !== key) };
    });
  }

  /** Deletes the model (soft: get with allow_deleted still reads it); deleting it again keeps the first time. */
  async delete(orgId: string, modelId: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.update(orgId, modelId, (s) => ({ ...s, deletedAt: s.deletedAt ?? now }));
  }

  async search(orgId: string, search: ModelSearch): Promise<{ models: ModelView[]; nextPageToken?: string }> {
    const { store } = this.deps;
    if (search.experimentIds.length === 0) throw invalidParameter("Missing value for required parameter 'experiment_ids'");
    const projectIds = new Set<number>();
    for (const id of search.experimentIds) projectIds.add((await findExperiment(store, orgId, String(id))).id);
    const models = search.datasets > 0 ? [] : (await store.listLoggedModels(orgId, [...projectIds])).map(modelView);
    return searchLoggedModels(models, search.clauses, search.order, search.maxResults, search.pageToken);
  }

  /** Changes a model, deleted or not, as MLflow's server does (its writes read the model whatever its lifecycle). */
  private async update(orgId: string, modelId: string, change: (state: LoggedModelState) => LoggedModelState): Promise<ModelView> {
    const updated = isLoggedModelId(modelId)
      ? await this.deps.store.updateLoggedModel(orgId, modelId, change, this.deps.clock.now())
      : undefined;
    if (!updated) throw notFound(modelId);
    return modelView(updated);
  }
}

function notFound(modelId: string) {
  return doesNotExist(`Logged model with ID '${modelId}' not found.`);
}
