import { NAME_LIMITS } from "../names.js";
import { invalidParameter } from "./errors.js";
import { applyTags, checkName, RUN_NAME_TAG, STEPWISE_TAGS_TAG } from "./model.js";

/**
 * The rules of an MLflow run's tags (docs/api.md, "MLflow's REST API"): `mlflow.runName` is the
 * run's name, `stepwise.tags` is Stepwise's tag list shown read-only.
 */

type Tags = readonly (readonly [string, string])[];

/** `stepwise.tags` is written by Stepwise's routes only: MLflow's client may read it, never set or delete it. */
export function checkTagWritable(key: string): void {
  if (key === STEPWISE_TAGS_TAG) throw invalidParameter(`The tag '${STEPWISE_TAGS_TAG}' is Stepwise's tag list and is read-only here`);
}

/** The name a run gets from its tags: setting mlflow.runName renames the run, as on MLflow's server. */
export function nameFrom(tags: Tags, current: string): string {
  let name = current;
  for (const [key, value] of tags) if (key === RUN_NAME_TAG && value !== "") name = checkName(value, RUN_NAME_TAG, NAME_LIMITS.runName);
  return name;
}

/**
 * A new run's name: `run_name`, else its mlflow.runName tag, else one made of the creation time. Both
 * given must agree, as on MLflow's server (SqlAlchemyStore.create_run).
 */
export function newRunName(runName: string | undefined, tags: Tags, now: number): string {
  const named = checkName(runName ?? "", "run_name", NAME_LIMITS.runName);
  const tagged = nameFrom(tags, "");
  if (named && tagged && named !== tagged)
    throw invalidParameter(
      `Both 'run_name' argument and 'mlflow.runName' tag are specified, but with different values (run_name='${named}', mlflow.runName='${tagged}').`,
    );
  return named || tagged || `run-${now.toString(36)}`;
}

/**
 * A new run's MLflow tags: those sent, and its name as mlflow.runName, as MLflow's server stores them
 * (SqlAlchemyStore.create_run). Nothing else: the request's `user_id` is the run's user_id, never a
 * tag (MLflow's client sends the `mlflow.user` tag itself when it has one).
 */
export function newRunTags(tags: [string, string][], name: string): [string, string][] {
  return applyTags(tags, [[RUN_NAME_TAG, name]]);
}

/** A run's tags after a rename (runs/update's run_name): mlflow.runName follows the name. */
export function renamedTags(tags: [string, string][], name: string): [string, string][] {
  return applyTags(tags, [[RUN_NAME_TAG, name]]);
}

/** MLflow's tags of a run: its own, the run name, and Stepwise's tag list as one read-only tag. */
export function runTags(run: { mlflowTags: [string, string][]; name: string; tags: string[] }): [string, string][] {
  const tags = new Map(run.mlflowTags);
  tags.set(RUN_NAME_TAG, run.name);
  if (run.tags.length > 0) tags.set(STEPWISE_TAGS_TAG, JSON.stringify(run.tags));
  return [...tags];
}

/** The tag log-model appends each model's description to, as MLflow's server does. */
export const LOGGED_MODELS_TAG = "mlflow.log-model.history";

/** The tags after logging a model: its description appended to the LOGGED_MODELS_TAG list (an unreadable list starts over). */
export function withLoggedModel(tags: [string, string][], model: unknown): [string, string][] {
  const history = new Map(tags).get(LOGGED_MODELS_TAG);
  let list: unknown[] = [];
  try {
    const parsed = history === undefined ? [] : JSON.parse(history);
    list = Array.isArray(parsed) ? parsed : [];
  } catch {
    list = [];
  }
  return applyTags(tags, [[LOGGED_MODELS_TAG, JSON.stringify([...list, model])]]);
}

/** The tags without `key`; deleting a tag that is not there is `missing()` (RESOURCE_DOES_NOT_EXIST, in the caller's words). */
export function withoutTag(tags: [string, string][], key: string, missing: () => Error): [string, string][] {
  if (!tags.some(([k]) => k === key)) throw missing();
  return applyTags(tags, [], [key]);
}
