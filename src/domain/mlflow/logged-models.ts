import { randomBytes } from "node:crypto";
import { DomainError } from "../errors.js";
import { decodePageToken, encodePageToken } from "../page-token.js";
import { MAX_RUN_JSON_LENGTH } from "../runs.js";
import { inMlflowTerms, invalidParameter } from "./errors.js";
import { checkKey, LIMITS, truncatedValue } from "./model.js";
import {
  type AttributeSet,
  type Clause,
  type ClauseValue,
  compareSortValues,
  compileClause,
  parseFilter,
  type SortValue,
} from "./search.js";

/**
 * MLflow 3's logged models (docs/api.md, "MLflow's REST API: logged models"): IDs, status
 * transitions, names, and the search grammar (mlflow/utils/search_logged_model_utils.py, the
 * SQLAlchemy store's search_logged_models). Pure; no I/O.
 */

import { LOGGED_MODEL_STATUSES, type LoggedModelStatus } from "./logged-model-status.js";

export { LOGGED_MODEL_STATUSES, type LoggedModelStatus };

/** MLflow's enum names of the statuses on the wire. */
const WIRE: Record<LoggedModelStatus, string> = {
  PENDING: "LOGGED_MODEL_PENDING",
  READY: "LOGGED_MODEL_READY",
  FAILED: "LOGGED_MODEL_UPLOAD_FAILED",
};
const WIRE_NUMBERS: Record<number, LoggedModelStatus> = { 1: "PENDING", 2: "READY", 3: "FAILED" };

export function wireStatus(status: LoggedModelStatus): string {
  return WIRE[status];
}

/** A status as MLflow's client sends it (enum name or number); the unspecified status and unknown values are refused. */
export function parseWireStatus(value: unknown): LoggedModelStatus {
  if (typeof value === "number" && WIRE_NUMBERS[value]) return WIRE_NUMBERS[value];
  if (typeof value === "string") {
    for (const status of LOGGED_MODEL_STATUSES) if (WIRE[status] === value) return status;
    if (/^\d+$/.test(value) && WIRE_NUMBERS[Number(value)]) return WIRE_NUMBERS[Number(value)]!;
  }
  throw invalidParameter(`Invalid value ${JSON.stringify(value)} for parameter 'status'`);
}

/** A new logged model ID, as MLflow's server makes one: "m-" and 32 lowercase hex digits. */
export function newLoggedModelId(): string {
  return `m-${randomBytes(16).toString("hex")}`;
}

const MODEL_ID = /^m-[0-9a-f]{32}$/;

/** Whether a string is a logged model ID as Stepwise gives them (other strings name no model). */
export function isLoggedModelId(value: string): boolean {
  return MODEL_ID.test(value);
}

/** Characters MLflow refuses in a logged model's name (mlflow/utils/validation.py). */
const BAD_NAME_CHARACTERS = ["/", ":", ".", "%", '"', "'"];
export const LOGGED_MODEL_NAME_LENGTH = 500;

/** A model name as MLflow's server takes it: non-empty, none of / : . % " ' ; a missing name is generated. */
export function checkLoggedModelName(name: string | undefined, generated: () => string): string {
  if (name === undefined || name === "") return generated();
  if (BAD_NAME_CHARACTERS.some((c) => name.includes(c)))
    throw invalidParameter(
      `Invalid model name ('${name}') provided. Model name must be a non-empty string and cannot contain the following characters: ('/', ':', '.', '%', '"', "'")`,
    );
  if (name.length > LOGGED_MODEL_NAME_LENGTH)
    throw invalidParameter(`'name' exceeds the maximum length of ${LOGGED_MODEL_NAME_LENGTH} characters`);
  return name;
}

/** A key-value pair of a model's params or tags, checked as a run's (keys by MLflow's rules, values truncated as its server does). */
export function modelPair(key: unknown, value: unknown, what: "param" | "tag"): [string, string] {
  const max = what === "param" ? LIMITS.paramValueLength : LIMITS.tagValueLength;
  return [checkKey(key, `${what} key`), truncatedValue(value ?? "", `${what} value`, max)];
}

/** A model type as MLflow's server stores it: at most 500 characters (its column's width). */
export function checkModelType(modelType: string | undefined): string | null {
  if (modelType === undefined || modelType === "") return null;
  if (modelType.length > LOGGED_MODEL_NAME_LENGTH)
    throw invalidParameter(`'model_type' exceeds the maximum length of ${LOGGED_MODEL_NAME_LENGTH} characters`);
  return modelType;
}

/**
 * A model's params or tags, bounded as a run's JSON fields are (MAX_RUN_JSON_LENGTH characters of
 * JSON), so that repeated writes cannot grow one model's row without limit: PAYLOAD_TOO_LARGE past it.
 */
export function boundedPairs(field: "params" | "tags", pairs: [string, string][]): [string, string][] {
  const length = JSON.stringify(pairs).length;
  if (length > MAX_RUN_JSON_LENGTH)
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `${field}: a logged model's ${field} may hold at most ${MAX_RUN_JSON_LENGTH} characters of JSON; this update would make it ${length}`,
    );
  return pairs;
}

/** Pairs set on a model: a key set again takes the new value in place; new keys are added in order. */
export function setPairs(
  current: readonly (readonly [string, string])[],
  added: readonly (readonly [string, string])[],
): [string, string][] {
  const next = new Map(current.map(([k, v]) => [k, v] as [string, string]));
  for (const [k, v] of added) next.set(k, v);
  return [...next.entries()];
}

/**
 * A status change by finalize: MLflow's client finalizes a PENDING model READY or FAILED once its
 * files are uploaded (or not). Stepwise takes READY or FAILED only (PENDING, or the unspecified
 * status, is not a finalization) and, as MLflow's server, lets a finalized model be finalized again.
 */
export function finalizeStatus(_current: LoggedModelStatus, requested: LoggedModelStatus): LoggedModelStatus {
  if (requested === "PENDING")
    throw invalidParameter("A logged model is finalized READY (LOGGED_MODEL_READY) or FAILED (LOGGED_MODEL_UPLOAD_FAILED)");
  return requested;
}

/** The artifact root of a logged model under the artifact proxy, as MLflow's server gives it: `<experiment>/models/<model id>/artifacts`. */
export function loggedModelArtifactUri(experimentId: string, modelId: string): string {
  return `mlflow-artifacts:/${experimentId}/models/${modelId}/artifacts`;
}

/** What a logged model search reads of a model. */
export interface SearchableModel {
  id: string;
  experimentId: string;
  name: string;
  modelType: string | null;
  /** The source run's MLflow run ID. */
  sourceMlflowRunId: string | null;
  status: LoggedModelStatus;
  artifactUri: string;
  createdAt: number;
  updatedAt: number;
  params: readonly (readonly [string, string])[];
  tags: readonly (readonly [string, string])[];
}

/** The attributes a logged model search filters and orders on (SqlLoggedModel's columns and ALIASES). */
export const LOGGED_MODEL_ATTRIBUTES: AttributeSet = {
  names: new Map([
    ["model_id", "model_id"],
    ["experiment_id", "experiment_id"],
    ["name", "name"],
    ["artifact_location", "artifact_location"],
    ["model_type", "model_type"],
    ["source_run_id", "source_run_id"],
    ["status", "status"],
    ["creation_timestamp_ms", "creation_timestamp_ms"],
    ["creation_time", "creation_timestamp_ms"],
    ["creation_timestamp", "creation_timestamp_ms"],
    ["last_updated_timestamp_ms", "last_updated_timestamp_ms"],
    ["last_updated_timestamp", "last_updated_timestamp_ms"],
  ]),
  numeric: new Set(["creation_timestamp_ms", "last_updated_timestamp_ms"]),
  datasets: false,
};

function attributeOf(model: SearchableModel, key: string): SortValue {
  switch (key) {
    case "model_id":
      return model.id;
    case "experiment_id":
      return model.experimentId;
    case "name":
      return model.name;
    case "artifact_location":
      return model.artifactUri;
    case "model_type":
      return model.modelType;
    case "source_run_id":
      return model.sourceMlflowRunId;
    case "status":
      return wireStatus(model.status);
    case "creation_timestamp_ms":
      return model.createdAt;
    default:
      return model.updatedAt;
  }
}

function clauseValueOf(model: SearchableModel, clause: Clause): ClauseValue {
  switch (clause.entity) {
    case "param":
      return model.params.find(([k]) => k === clause.key)?.[1];
    case "tag":
      return model.tags.find(([k]) => k === clause.key)?.[1];
    case "metric":
      // Stepwise links no metrics to logged models yet: a metrics clause matches none.
      return undefined;
    default:
      return attributeOf(model, clause.key) ?? undefined;
  }
}

/** One ordering term of a search, as MLflow's client sends it. */
export interface ModelOrderTerm {
  field: string;
  ascending: boolean;
}

/** Parses the search's order_by objects: attributes (and their aliases), or `metrics.<key>`; other entities are refused as by MLflow. */
export function parseModelOrderBy(orderBy: readonly { field_name?: unknown; ascending?: unknown }[]): ModelOrderTerm[] {
  if (orderBy.length > LIMITS.orderByTerms)
    throw invalidParameter(`Invalid value for parameter 'order_by': at most ${LIMITS.orderByTerms} terms, got ${orderBy.length}`);
  return orderBy.map((term) => {
    const name = term.field_name;
    if (typeof name !== "string" || name === "") throw invalidParameter("Missing value for required parameter 'order_by.field_name'");
    const ascending = term.ascending === undefined ? true : term.ascending === true || term.ascending === "true";
    const dot = name.indexOf(".");
    if (dot === -1) {
      const canonical = LOGGED_MODEL_ATTRIBUTES.names.get(name);
      if (!canonical) throw invalidParameter(`Invalid order by field name: ${name}`);
      return { field: canonical, ascending };
    }
    if (name.slice(0, dot) !== "metrics") throw invalidParameter(`Invalid order by field name: ${name}. Only metrics are supported.`);
    return { field: name, ascending };
  });
}

/** Parses a logged model search's filter (clauses joined by AND over attributes, params, tags and metrics). */
export function parseModelFilter(filter: string | undefined): Clause[] {
  return parseFilter(filter, LOGGED_MODEL_ATTRIBUTES);
}

/**
 * A logged model search over the experiments' models (deleted ones already left out): the models
 * every clause matches, ordered by the terms (missing values last), then newest first unless
 * creation time is a term; paged by an offset token, as MLflow's server pages.
 */
export function searchLoggedModels<M extends SearchableModel>(
  models: readonly M[],
  clauses: readonly Clause[],
  order: readonly ModelOrderTerm[],
  maxResults: number,
  pageToken: string | undefined,
): { models: M[]; nextPageToken?: string } {
  const tests = clauses.map((clause) => ({ clause, test: compileClause(clause) }));
  const matching = models.filter((model) => tests.every(({ clause, test }) => test(clauseValueOf(model, clause))));
  const terms = order.some((t) => t.field === "creation_timestamp_ms")
    ? order
    : [...order, { field: "creation_timestamp_ms", ascending: false }];
  const keyOf = (model: M) => terms.map((t) => (t.field.startsWith("metrics.") ? null : attributeOf(model, t.field)));
  const keyed = matching.map((model) => ({ model, key: keyOf(model) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < terms.length; i++) {
      const c = compareSortValues(a.key[i]!, b.key[i]!, terms[i]!.ascending);
      if (c !== 0) return c;
    }
    return a.model.id < b.model.id ? -1 : a.model.id > b.model.id ? 1 : 0;
  });
  const offset = pageToken ? offsetOf(pageToken) : 0;
  const page = keyed.slice(offset, offset + maxResults).map((k) => k.model);
  const next = offset + maxResults;
  return next < keyed.length ? { models: page, nextPageToken: encodePageToken({ offset: next }) } : { models: page };
}

function offsetOf(token: string): number {
  const { offset } = inMlflowTerms(() => decodePageToken(token));
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) throw invalidParameter("Invalid page token");
  return offset;
}

/** Max results of one search: MLflow's default 50, at most LIMITS.maxResults. */
export function modelMaxResults(value: unknown): number {
  if (value === undefined || value === null || value === 0 || value === "0") return 50;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0 || n > LIMITS.maxResults)
    throw invalidParameter(
      `Invalid value ${JSON.stringify(value)} for parameter 'max_results': expected an integer from 1 to ${LIMITS.maxResults}`,
    );
  return n;
}

const ADJECTIVES = [
  "able",
  "bold",
  "calm",
  "deft",
  "eager",
  "fair",
  "glad",
  "keen",
  "lucid",
  "merry",
  "neat",
  "proud",
  "quick",
  "sly",
  "wise",
];
const NOUNS = ["ant", "bat", "cod", "doe", "eel", "fox", "gnu", "hen", "jay", "koi", "lark", "mole", "owl", "ram", "yak"];

/** A generated model name like MLflow's (`<adjective>-<noun>-<number>`), for a model created without one. */
export function randomModelName(random: () => number = Math.random): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  return `${pick(ADJECTIVES)}-${pick(NOUNS)}-${Math.floor(random() * 1000)}`;
}
