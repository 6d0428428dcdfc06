import { experimentIdOf } from "../domain/mlflow/ids.js";
import { loggedModelArtifactUri } from "../domain/mlflow/logged-models.js";
import { DomainError } from "../domain/errors.js";
import { doesNotExist, MlflowError } from "../domain/mlflow/errors.js";
import {
  aliasVersion,
  checkRegistryClauses,
  checkRegistryOrder,
  checkSource,
  deleteAlias,
  deleteTag,
  isPrompt,
  latestVersions,
  promptRule,
  type RegistrySearch,
  nameNamed,
  searchPage,
  setAlias,
  setTag,
  transitionStage,
  versionOf,
} from "../domain/mlflow/registry.js";
import type { Clause, OrderTerm } from "../domain/mlflow/search.js";
import type { Clock } from "../domain/time.js";
import type { ModelVersion, RegisteredModel, RegisteredModelState, RegistryChange, Store } from "../store/store.js";

/** A registered model with its versions: what MLflow's answers about a model are made of. */
export interface ModelWithVersions {
  model: RegisteredModel;
  versions: ModelVersion[];
}

export interface RegistrySearchRequest {
  clauses: Clause[];
  terms: OrderTerm[];
  maxResults: number;
  pageToken?: string;
}

export interface NewVersionRequest {
  source: string;
  runId: string;
  runLink: string;
  description: string;
  tags: [string, string][];
}

const modelNotFound = (name: string) => doesNotExist(`Registered Model with name=${name} not found`);

function nameTaken(name: string) {
  return (error: unknown): never => {
    if (error instanceof DomainError && error.code === "CONFLICT")
      throw new MlflowError("RESOURCE_ALREADY_EXISTS", `Registered Model (name=${name}) already exists.`);
    throw error;
  };
}

/**
 * MLflow's model registry (docs/api.md, "MLflow's REST API: the model registry"): every write is one
 * ModelRegistryStore call whose change is a rule of src/domain/mlflow/registry.ts. Everything is of
 * the caller's organization: another organization's model reads as one that does not exist.
 */
export class MlflowRegistry {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async createModel(orgId: string, model: RegisteredModelState): Promise<ModelWithVersions> {
    const created = await this.deps.store.createRegisteredModel(orgId, model, this.deps.clock.now()).catch(nameTaken(model.name));
    return { model: created, versions: [] };
  }

  async getModel(orgId: string, name: string): Promise<ModelWithVersions> {
    const model = await this.deps.store.getRegisteredModel(orgId, name);
    if (!model) throw modelNotFound(name);
    return { model, versions: await this.deps.store.listModelVersions(orgId, name) };
  }

  /** Applies a rule to the model and its versions, in one transaction; the model as stored after. */
  async change(
    orgId: string,
    name: string,
    rule: (model: ModelWithVersions) => RegistryChange,
    nameAfter = name,
  ): Promise<ModelWithVersions> {
    const entry = await this.deps.store
      .updateRegisteredModel(orgId, name, (model, versions) => rule({ model, versions }), this.deps.clock.now())
      .catch(nameTaken(nameAfter));
    if (!entry) throw modelNotFound(name);
    return { model: entry.model!, versions: entry.versions };
  }

  rename(orgId: string, name: string, newName: string) {
    return this.change(orgId, name, ({ model, versions }) => ({ model: { ...model, name: newName }, versions }), newName);
  }

  updateDescription(orgId: string, name: string, description: string) {
    return this.change(orgId, name, ({ model, versions }) => ({ model: { ...model, description }, versions }));
  }

  async deleteModel(orgId: string, name: string): Promise<void> {
    await this.change(orgId, name, () => ({ model: null, versions: [] }));
  }

  setModelTag(orgId: string, name: string, tag: [string, string]) {
    return this.change(orgId, name, ({ model, versions }) => ({ model: { ...model, tags: setTag(model.tags, tag) }, versions }));
  }

  deleteModelTag(orgId: string, name: string, key: string) {
    return this.change(orgId, name, ({ model, versions }) => ({ model: { ...model, tags: deleteTag(model.tags, key) }, versions }));
  }

  setAlias(orgId: string, name: string, alias: string, version: number) {
    return this.change(orgId, name, ({ model, versions }) => {
      versionOf(versions, name, version);
      return { model: { ...model, aliases: setAlias(model.aliases, alias, version) }, versions };
    });
  }

  deleteAlias(orgId: string, name: string, alias: string) {
    return this.change(orgId, name, ({ model, versions }) => ({
      model: { ...model, aliases: deleteAlias(model.aliases, alias) },
      versions,
    }));
  }

  async versionByAlias(orgId: string, name: string, alias: string): Promise<{ model: RegisteredModel; version: ModelVersion }> {
    const model = await this.deps.store.getRegisteredModel(orgId, name);
    // As MLflow's server: an alias of an unknown model is an unknown alias.
    const number = aliasVersion(model?.aliases ?? [], alias);
    return this.getVersion(orgId, name, number);
  }

  async createVersion(orgId: string, name: string, request: NewVersionRequest): Promise<{ model: RegisteredModel; version: ModelVersion }> {
    const { store, clock } = this.deps;
    const source = checkSource(request.source);
    let storageLocation = request.source;
    if (source.kind === "model") {
      const from = await store.getModelVersion(orgId, source.name, source.version);
      if (!from)
        throw new MlflowError(
          "INVALID_PARAMETER_VALUE",
          `Unable to fetch model from model URI source artifact location '${request.source}'.Error: Model Version (name=${source.name}, version=${source.version}) not found`,
        );
      storageLocation = from.storageLocation || from.source;
    } else if (source.kind === "logged") {
      const logged = await store.getLoggedModel(orgId, source.modelId);
      if (!logged || logged.deletedAt !== null)
        throw new MlflowError(
          "INVALID_PARAMETER_VALUE",
          `Unable to fetch model from model URI source artifact location '${request.source}'.Error: Logged model with ID '${source.modelId}' not found`,
        );
      storageLocation = loggedModelArtifactUri(experimentIdOf(logged.projectId, logged.inDefaultExperiment), logged.id);
    }
    const version = await store.createModelVersion(
      orgId,
      name,
      { ...request, storageLocation, userId: "", stage: "None", status: "READY" },
      clock.now(),
    );
    if (!version) throw modelNotFound(name);
    return { model: (await store.getRegisteredModel(orgId, version.modelName))!, version };
  }

  async getVersion(orgId: string, name: string, version: number): Promise<{ model: RegisteredModel; version: ModelVersion }> {
    const { store } = this.deps;
    const [model, found] = await Promise.all([store.getRegisteredModel(orgId, name), store.getModelVersion(orgId, name, version)]);
    if (!model || !found) throw doesNotExist(`Model Version (name=${name}, version=${version}) not found`);
    return { model, version: found };
  }

  /** A change of one version (its description, tags, stage): the version as stored after. */
  async changeVersion(
    orgId: string,
    name: string,
    version: number,
    rule: (versions: ModelVersion[]) => ModelVersion[],
  ): Promise<{ model: RegisteredModel; version: ModelVersion }> {
    const entry = await this.deps.store.updateRegisteredModel(
      orgId,
      name,
      (model, versions) => {
        versionOf(versions, name, version);
        return { model, versions: rule(versions) };
      },
      this.deps.clock.now(),
    );
    if (!entry) throw doesNotExist(`Model Version (name=${name}, version=${version}) not found`);
    return { model: entry.model!, version: versionOf(entry.versions, name, version) };
  }

  updateVersionDescription(orgId: string, name: string, version: number, description: string) {
    return this.changeVersion(orgId, name, version, (versions) => versions.map((v) => (v.version === version ? { ...v, description } : v)));
  }

  setVersionTag(orgId: string, name: string, version: number, tag: [string, string]) {
    return this.changeVersion(orgId, name, version, (versions) =>
      versions.map((v) => (v.version === version ? { ...v, tags: setTag(v.tags, tag) } : v)),
    );
  }

  deleteVersionTag(orgId: string, name: string, version: number, key: string) {
    return this.changeVersion(orgId, name, version, (versions) =>
      versions.map((v) => (v.version === version ? { ...v, tags: deleteTag(v.tags, key) } : v)),
    );
  }

  transition(orgId: string, name: string, version: number, stage: string, archiveExisting: boolean) {
    return this.changeVersion(orgId, name, version, (versions) => transitionStage(versions, name, version, stage, archiveExisting));
  }

  /** Deletes the version and the aliases that name it. */
  async deleteVersion(orgId: string, name: string, version: number): Promise<void> {
    const entry = await this.deps.store.updateRegisteredModel(
      orgId,
      name,
      (model, versions) => {
        versionOf(versions, name, version);
        return {
          model: { ...model, aliases: model.aliases.filter(([, v]) => v !== version) },
          versions: versions.filter((v) => v.version !== version),
        };
      },
      this.deps.clock.now(),
    );
    if (!entry) throw doesNotExist(`Model Version (name=${name}, version=${version}) not found`);
  }

  async latestVersions(orgId: string, name: string, stages: string[]): Promise<{ model: RegisteredModel; versions: ModelVersion[] }> {
    const { model, versions } = await this.getModel(orgId, name);
    return { model, versions: latestVersions(versions, stages) };
  }

  async searchModels(orgId: string, request: RegistrySearchRequest): Promise<{ models: ModelWithVersions[]; nextPageToken?: string }> {
    checkRegistryClauses(request.clauses, "registered model");
    checkRegistryOrder(request.terms);
    const { store } = this.deps;
    const [models, versions] = await Promise.all([store.listRegisteredModels(orgId), store.listModelVersions(orgId)]);
    const { clauses, excludePrompts } = promptRule(request.clauses);
    const search: RegistrySearch<RegisteredModel> = {
      ...request,
      clauses,
      items: excludePrompts ? models.filter((m) => !isPrompt(m.tags)) : models,
      valueOf: (model, entity, key) => {
        if (entity === "tag") return new Map(model.tags).get(key);
        if (key === "name") return model.name;
        return key === "creation_timestamp" ? model.createdAt : key === "last_updated_timestamp" ? model.updatedAt : undefined;
      },
      tiebreak: (model) => [{ value: model.name, ascending: true }],
    };
    const { page, nextPageToken } = searchPage(search);
    const versionsOf = new Map<number, ModelVersion[]>();
    for (const version of versions) versionsOf.set(version.modelId, [...(versionsOf.get(version.modelId) ?? []), version]);
    return { models: page.map((model) => ({ model, versions: versionsOf.get(model.id) ?? [] })), nextPageToken };
  }

  async searchVersions(
    orgId: string,
    request: RegistrySearchRequest,
  ): Promise<{ versions: { model: RegisteredModel; version: ModelVersion }[]; nextPageToken?: string }> {
    checkRegistryClauses(request.clauses, "model version");
    checkRegistryOrder(request.terms);
    const { store } = this.deps;
    const [models, versions] = await Promise.all([
      store.listRegisteredModels(orgId),
      store.listModelVersions(orgId, nameNamed(request.clauses)),
    ]);
    const byId = new Map(models.map((m) => [m.id, m]));
    const terms =
      request.terms.length > 0 ? request.terms : [{ entity: "attribute" as const, key: "last_updated_timestamp", ascending: false }];
    const { clauses, excludePrompts } = promptRule(request.clauses);
    const { page, nextPageToken } = searchPage<ModelVersion>({
      ...request,
      clauses,
      terms,
      items: excludePrompts ? versions.filter((v) => !isPrompt(v.tags) && !isPrompt(byId.get(v.modelId)!.tags)) : versions,
      valueOf: (v, entity, key) => {
        if (entity === "tag") return new Map(v.tags).get(key);
        switch (key) {
          case "name":
            return v.modelName;
          case "run_id":
            return v.runId;
          case "source_path":
            return v.source;
          case "version_number":
            return v.version;
          case "creation_timestamp":
            return v.createdAt;
          case "last_updated_timestamp":
            return v.updatedAt;
          default:
            return undefined;
        }
      },
      tiebreak: (v) => [
        { value: v.modelName, ascending: true },
        { value: v.version, ascending: false },
      ],
    });
    return { versions: page.map((version) => ({ model: byId.get(version.modelId)!, version })), nextPageToken };
  }
}
