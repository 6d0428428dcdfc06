import type { Json } from "../merge.js";
import { invalidParameter } from "./errors.js";
import { checkValue } from "./model.js";

/**
 * A run's dataset inputs (MLflow's `log-inputs`; docs/api.md, "MLflow's REST API"), as MLflow's
 * server keeps them: a dataset is known by its name and digest, and a run has one input per
 * dataset, the first one logged (SqlAlchemyStore._log_inputs_impl). Logging it again, with other
 * input tags (another `mlflow.data.context`) or another source, changes nothing.
 */

/** The input tag MLflow's client sets to what a dataset was used for ("training", "eval"); `datasets.context` in a search. */
export const DATASET_CONTEXT_TAG = "mlflow.data.context";

export interface Dataset {
  name: string;
  digest: string;
  source_type: string;
  source: string;
  schema?: string;
  profile?: string;
}

/** One input as MLflow's JSON carries it (DatasetInput), and as a run stores it. */
export interface DatasetInput {
  tags: { key: string; value: string }[];
  dataset: Dataset;
}

/** MLflow's limits on a dataset and its input tags (mlflow/utils/validation.py, `_validate_dataset`, `_validate_input_tag`). */
export const DATASET_LIMITS = {
  name: 500,
  digest: 36,
  source: 65_535,
  schema: 1_048_575,
  profile: 16_777_215,
  tagKey: 255,
  tagValue: 500,
} as const;

type Fields = { [key: string]: unknown };

/** An object field of a request: absent (or null) is empty, as protobuf reads an unset message; anything else but an object is refused. */
function objectOf(value: unknown, what: string): Fields {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw invalidParameter(`Invalid value for parameter '${what}': expected an object`);
  return value as Fields;
}

/** A string field: absent (or null) is "", as protobuf reads an unset string; within `max` characters when given. */
function stringOf(fields: Fields, key: string, what: string, max?: number): string {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (value === undefined || value === null) return "";
  if (typeof value !== "string")
    throw invalidParameter(`Invalid value ${JSON.stringify(value)} for parameter '${what}.${key}': expected a string`);
  return max === undefined ? value : checkValue(value, `${what}.${key}`, max);
}

/** An optional string field (a dataset's schema and profile): absent stays absent. */
function optionalStringOf(fields: Fields, key: string, what: string, max: number): string | undefined {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  return value === undefined || value === null ? undefined : stringOf(fields, key, what, max);
}

function listOf(fields: Fields, key: string, what: string): unknown[] {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParameter(`Invalid value for parameter '${what}.${key}': expected a list`);
  return value;
}

/** One dataset input of a request, within MLflow's limits; only the fields MLflow knows are kept. */
export function parseDatasetInput(item: unknown, what: string): DatasetInput {
  if (typeof item !== "object" || item === null || Array.isArray(item))
    throw invalidParameter(`Invalid value for parameter '${what}': expected a dataset input object`);
  const input = item as Fields;
  const tags = listOf(input, "tags", what).map((tag, i) => {
    const fields = objectOf(tag, `${what}.tags[${i}]`);
    return {
      key: stringOf(fields, "key", `${what}.tags[${i}]`, DATASET_LIMITS.tagKey),
      value: stringOf(fields, "value", `${what}.tags[${i}]`, DATASET_LIMITS.tagValue),
    };
  });
  const at = `${what}.dataset`;
  const fields = objectOf(input.dataset, at);
  const dataset: Dataset = {
    name: stringOf(fields, "name", at, DATASET_LIMITS.name),
    digest: stringOf(fields, "digest", at, DATASET_LIMITS.digest),
    source_type: stringOf(fields, "source_type", at),
    source: stringOf(fields, "source", at, DATASET_LIMITS.source),
  };
  const schema = optionalStringOf(fields, "schema", at, DATASET_LIMITS.schema);
  const profile = optionalStringOf(fields, "profile", at, DATASET_LIMITS.profile);
  if (schema !== undefined) dataset.schema = schema;
  if (profile !== undefined) dataset.profile = profile;
  return { tags, dataset };
}

/** The `datasets` of a log-inputs request. */
export function parseDatasetInputs(list: readonly unknown[]): DatasetInput[] {
  return list.map((item, i) => parseDatasetInput(item, `datasets[${i}]`));
}

/** Which dataset an input names: its name and digest (a JSON pair, so no pair of texts can collide with another). */
const datasetKey = (input: DatasetInput) => JSON.stringify([input.dataset.name, input.dataset.digest]);

/** The inputs, one per dataset: the first of each name and digest. */
function firstPerDataset(inputs: Iterable<DatasetInput>, known = new Set<string>()): DatasetInput[] {
  const out: DatasetInput[] = [];
  for (const input of inputs) {
    const key = datasetKey(input);
    if (known.has(key)) continue;
    known.add(key);
    out.push(input);
  }
  return out;
}

/**
 * A run's stored inputs as MLflow shows them: one per dataset, the first logged. Runs written before
 * inputs were de-duplicated (or checked) may hold an input twice or one MLflow would refuse: the
 * first stays, and one that is not a dataset input is not shown.
 */
export function datasetInputsOf(stored: Json | null): DatasetInput[] {
  if (!Array.isArray(stored)) return [];
  const inputs: DatasetInput[] = [];
  stored.forEach((item, i) => {
    try {
      inputs.push(parseDatasetInput(item, `inputs[${i}]`));
    } catch {
      // Stored before log-inputs checked its datasets: not an input MLflow's client could read.
    }
  });
  return firstPerDataset(inputs);
}

/**
 * A run's inputs after logging `inputs`: those of a dataset the run has no input of are appended,
 * the first of each in the request; the others change nothing, whatever their tags (MLflow's
 * server). The stored value itself when nothing is new.
 */
export function withDatasetInputs(stored: Json | null, inputs: readonly DatasetInput[]): Json | null {
  const existing = datasetInputsOf(stored);
  const added = firstPerDataset(inputs, new Set(existing.map(datasetKey)));
  if (added.length === 0) return stored;
  return [...existing, ...added] as unknown as Json;
}

/** What a `datasets.` search clause names: a run's inputs by their dataset's name and digest, and their context. */
export type DatasetKey = "name" | "digest" | "context";
export const DATASET_KEYS: ReadonlySet<string> = new Set<DatasetKey>(["name", "digest", "context"]);

/** What a `datasets.<key>` search clause compares, of each input of a run: its dataset's name or digest, or its context tags. */
export function datasetValues(inputs: readonly DatasetInput[], key: DatasetKey): string[] {
  if (key === "context")
    return inputs.flatMap((input) => input.tags.filter((tag) => tag.key === DATASET_CONTEXT_TAG).map((tag) => tag.value));
  return inputs.map((input) => (key === "name" ? input.dataset.name : input.dataset.digest));
}
