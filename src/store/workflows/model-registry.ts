import { DomainError } from "../../domain/errors.js";
import { conflictOnUnique } from "../conflicts.js";
import type {
  ModelVersion,
  ModelVersionState,
  NewModelVersion,
  RegisteredModel,
  RegisteredModelState,
  RegistryChange,
  RegistryEntry,
} from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** What the model registry's writes ask of a backend, each inside the workflow's transaction. */
export interface ModelRegistryOperations {
  /** The new model's ID; throws the engine's unique violation when the organization has a model of that name. */
  insertRegisteredModel(orgId: string, model: RegisteredModelState, now: number): number;
  /** The model, read locked when `lock` (PostgreSQL's FOR UPDATE). */
  getRegisteredModel(orgId: string, name: string, lock: boolean): RegisteredModel | undefined;
  getRegisteredModelById(modelId: number): RegisteredModel;
  /**
   * Takes the model's next version number in one statement (the row's write lock serializes
   * concurrent takers) and dates the model `now`: its ID and the number, or undefined when it does not exist.
   */
  takeModelVersionNumber(orgId: string, name: string, now: number): { modelId: number; version: number } | undefined;
  insertModelVersion(modelId: number, version: number, input: NewModelVersion, now: number): void;
  /** The model's versions, by version. */
  listVersionsOf(modelId: number): ModelVersion[];
  getModelVersionOf(modelId: number, version: number): ModelVersion | undefined;
  /** Throws the engine's unique violation when another model of the organization has the name. */
  writeRegisteredModel(modelId: number, model: RegisteredModelState, now: number): void;
  writeModelVersion(modelId: number, version: ModelVersionState, now: number): void;
  deleteModelVersion(modelId: number, version: number): void;
  /** Deletes the model and its versions. */
  deleteRegisteredModel(modelId: number): void;
}

const perform = performer<ModelRegistryOperations>();
type RegistryWorkflow<T> = Workflow<T, ModelRegistryOperations>;

const alreadyExists = (name: string) => `registered model '${name}' already exists`;

/** Store.createRegisteredModel. */
export function* createRegisteredModel(orgId: string, model: RegisteredModelState, now: number): RegistryWorkflow<RegisteredModel> {
  const id = yield* conflictOnUnique(perform("insertRegisteredModel", orgId, model, now), alreadyExists(model.name));
  return yield* perform("getRegisteredModelById", id);
}

/** Store.createModelVersion: the number is taken from the model's row, so concurrent creators never share one. */
export function* createModelVersion(
  orgId: string,
  name: string,
  input: NewModelVersion,
  now: number,
): RegistryWorkflow<ModelVersion | undefined> {
  const taken = yield* perform("takeModelVersionNumber", orgId, name, now);
  if (!taken) return undefined;
  yield* perform("insertModelVersion", taken.modelId, taken.version, input, now);
  return yield* perform("getModelVersionOf", taken.modelId, taken.version);
}

const versionState = (v: ModelVersionState): ModelVersionState => ({
  version: v.version,
  description: v.description,
  stage: v.stage,
  tags: v.tags,
});

const modelState = (m: RegisteredModelState): RegisteredModelState => ({
  name: m.name,
  description: m.description,
  tags: m.tags,
  aliases: m.aliases,
});

/** Store.updateRegisteredModel: `change` decides on the locked model and its versions; only what changed is written. */
export function* updateRegisteredModel(
  orgId: string,
  name: string,
  change: (model: RegisteredModel, versions: ModelVersion[]) => RegistryChange,
  now: number,
): RegistryWorkflow<RegistryEntry | undefined> {
  const model = yield* perform("getRegisteredModel", orgId, name, true);
  if (!model) return undefined;
  const versions = yield* perform("listVersionsOf", model.id);
  const next = change(model, versions);
  if (next.model === null) {
    yield* perform("deleteRegisteredModel", model.id);
    return { model: null, versions: [] };
  }
  const kept = new Map(next.versions.map((v) => [v.version, versionState(v)]));
  for (const version of kept.keys())
    if (!versions.some((v) => v.version === version)) throw new DomainError("INVALID_INPUT", `no version ${version} to keep`);
  let changed = false;
  for (const version of versions) {
    const wanted = kept.get(version.version);
    if (!wanted) yield* perform("deleteModelVersion", model.id, version.version);
    else if (JSON.stringify(wanted) !== JSON.stringify(versionState(version))) yield* perform("writeModelVersion", model.id, wanted, now);
    else continue;
    changed = true;
  }
  const wantedModel = modelState(next.model);
  // A version's change dates its model too, as on MLflow's server.
  if (changed || JSON.stringify(wantedModel) !== JSON.stringify(modelState(model))) {
    yield* conflictOnUnique(perform("writeRegisteredModel", model.id, wantedModel, now), alreadyExists(wantedModel.name));
  }
  return { model: yield* perform("getRegisteredModelById", model.id), versions: yield* perform("listVersionsOf", model.id) };
}

/** A new version's values in the column order both backends insert them: model_id, version, description, … updated_at. */
export function modelVersionValues(modelId: number, version: number, input: NewModelVersion, now: number): unknown[] {
  return [
    modelId,
    version,
    input.description,
    input.userId,
    input.stage,
    input.source,
    input.storageLocation,
    input.runId,
    input.runLink,
    input.status,
    JSON.stringify(input.tags),
    now,
    now,
  ];
}
