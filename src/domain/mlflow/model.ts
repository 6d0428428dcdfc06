import type { Json } from "../merge.js";
import type { RunStatus } from "../status.js";
import { MAX_EPOCH_MS } from "../time.js";
import { invalidParameter } from "./errors.js";

/**
 * How MLflow's model maps onto Stepwise's (docs/api.md, "MLflow's REST API"): experiments are
 * projects, runs are runs, params are config keys (write-once), metrics are metrics, MLflow's
 * key-value tags are kept as such beside Stepwise's tag list.
 */

export const MLFLOW_STATUSES = ["RUNNING", "SCHEDULED", "FINISHED", "FAILED", "KILLED"] as const;
export type MlflowStatus = (typeof MLFLOW_STATUSES)[number];

const TO_STEPWISE = new Map<string, RunStatus>([
  ["RUNNING", "RUNNING"],
  ["SCHEDULED", "RUNNING"],
  ["FINISHED", "COMPLETED"],
  ["FAILED", "FAILED"],
  ["KILLED", "TERMINATED"],
]);

const TO_MLFLOW = new Map<RunStatus, MlflowStatus>([
  ["RUNNING", "RUNNING"],
  ["COMPLETED", "FINISHED"],
  ["FAILED", "FAILED"],
  ["TERMINATED", "KILLED"],
  ["CANCELLED", "KILLED"],
]);

export function toStepwiseStatus(status: string): RunStatus {
  const mapped = TO_STEPWISE.get(status);
  if (!mapped) throw invalidParameter(`Invalid run status '${status}': expected one of ${MLFLOW_STATUSES.join(", ")}`);
  return mapped;
}

export function toMlflowStatus(status: RunStatus): MlflowStatus {
  return TO_MLFLOW.get(status) ?? "RUNNING";
}

/**
 * MLflow's limits (its documented REST API, and mlflow/utils/validation.py): key length, value
 * lengths (a longer run param or tag value is truncated, a longer experiment tag value refused), and
 * what one log-batch may carry; then Stepwise's own bounds on one search (docs/api.md), so that no
 * request's work grows without limit: distinct experiments, order_by terms, filter length and clauses.
 */
export const LIMITS = {
  keyLength: 250,
  paramValueLength: 6000,
  tagValueLength: 8000,
  experimentTagValueLength: 5000,
  batchMetrics: 1000,
  batchParams: 100,
  batchTags: 100,
  batchItems: 1000,
  batchBytes: 1024 * 1024,
  maxResults: 50_000,
  historyMaxResults: 25_000,
  userIdLength: 255,
  searchExperiments: 1000,
  orderByTerms: 10,
  filterLength: 100_000,
  filterClauses: 100,
  searchPageMetrics: 100_000,
} as const;

/**
 * How many runs of a search page fit its budget of latest metrics (LIMITS.searchPageMetrics), given
 * each run's metric count in page order: at least one, so paging always moves on. MLflow's client
 * pages by the token, so a page may end before max_results.
 */
export function runsWithinMetricBudget(metricCounts: readonly number[]): number {
  let metrics = 0;
  let runs = 0;
  for (const count of metricCounts) {
    if (runs > 0 && metrics + count > LIMITS.searchPageMetrics) break;
    metrics += count;
    runs++;
  }
  return runs;
}

/** MLflow's key rule: 1 to 250 characters of letters, digits, `_ - . space / :` (its own `_validate_param_name` set). */
const KEY = /^[\w\-. /:]{1,250}$/u;

export function checkKey(key: unknown, what: string): string {
  if (typeof key !== "string" || key.length === 0) throw invalidParameter(`Missing value for required parameter '${what}'`);
  if (key.length > LIMITS.keyLength) throw invalidParameter(`'${what}' exceeds the maximum length of ${LIMITS.keyLength} characters`);
  if (!KEY.test(key) || key.split("/").some((part) => part === "." || part === ".."))
    throw invalidParameter(
      `Invalid value '${key}' for parameter '${what}': names may only contain alphanumerics, underscores (_), dashes (-), periods (.), spaces ( ), colons (:) and slashes (/)`,
    );
  return key;
}

/** A value no longer than `maxLength` characters (code points, as Python counts them): a longer one is INVALID_PARAMETER_VALUE. */
export function checkValue(value: unknown, what: string, maxLength: number): string {
  if (typeof value !== "string") throw invalidParameter(`Missing value for required parameter '${what}'`);
  if (codePointsBeyond(value, maxLength) !== undefined)
    throw invalidParameter(`'${what}' exceeds the maximum length of ${maxLength} characters`);
  return value;
}

/**
 * A run's param or tag value, truncated to its first `maxLength` characters, as MLflow's server
 * stores one (its `_validate_param` and `_validate_tag` truncate, MLFLOW_TRUNCATE_LONG_VALUES being
 * on by default). Characters are code points, as Python's `len` and slices count them, so an
 * emoji is one character and a surrogate pair is never split.
 */
export function truncatedValue(value: unknown, what: string, maxLength: number): string {
  if (typeof value !== "string") throw invalidParameter(`Missing value for required parameter '${what}'`);
  const end = codePointsBeyond(value, maxLength);
  return end === undefined ? value : value.slice(0, end);
}

/** The UTF-16 index where the text's code point number `max` + 1 begins; undefined when it has at most `max`. */
export function codePointsBeyond(text: string, max: number): number | undefined {
  if (text.length <= max) return undefined;
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    if (points === max) return i;
    points++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return undefined;
}

/**
 * A name within Stepwise's limits (NAME_LIMITS in domain/names.ts, the same on both protocols): an experiment is a
 * project and a run a run, so a longer name would make what Stepwise's routes refuse to name.
 */
export function checkName(name: string, what: string, max: number): string {
  if (name.length > max) throw invalidParameter(`'${what}' exceeds the maximum length of ${max} characters`);
  return name;
}

/** A config value as MLflow shows params: strings as they are, anything else as its JSON text. */
export function paramText(value: Json): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * A run's config as MLflow's params: nested objects flatten to dotted keys (`{optim: {lr: 1}}` is
 * `optim.lr = "1"`); arrays and scalars are values. A Map, so a key like `__proto__` is a key.
 */
export function paramsOf(config: Json | null): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (value: Json, prefix: string) => {
    if (value !== null && typeof value === "object" && !Array.isArray(value) && prefix !== "" && Object.keys(value).length === 0) {
      out.set(prefix, "{}");
      return;
    }
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const key of Object.keys(value)) walk((value as { [k: string]: Json })[key]!, prefix === "" ? key : `${prefix}.${key}`);
      return;
    }
    if (prefix !== "") out.set(prefix, paramText(value));
  };
  if (config !== null) walk(config, "");
  return out;
}

/**
 * Applies MLflow params to a config: each is a top-level string key. A param is write-once: logging
 * the value it has is a no-op, a different value is INVALID_PARAMETER_VALUE (MLflow's rule), and so
 * is a key that names a nested config object. Throws before changing anything.
 */
export function applyParams(config: Json | null, params: readonly (readonly [string, string])[]): Json | null {
  if (params.length === 0) return config;
  const base = config !== null && typeof config === "object" && !Array.isArray(config) ? config : {};
  const existing = paramsOf(config);
  const next: { [key: string]: Json } = { ...base };
  const seen = new Map<string, string>();
  for (const [key, value] of params) {
    const before = seen.get(key) ?? existing.get(key);
    if (before !== undefined && before !== value)
      throw invalidParameter(
        `Changing param values is not allowed. Param with key='${key}' was already logged with value='${before}' for this run. Attempted logging new value '${value}'.`,
      );
    if (before === undefined && Object.hasOwn(base, key))
      throw invalidParameter(`Param key '${key}' names a nested config object of this run; it cannot be overwritten.`);
    seen.set(key, value);
    // defineProperty: a key like `__proto__` becomes an own key, never the object's prototype.
    if (before === undefined) Object.defineProperty(next, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return next;
}

/** Sets tags (a later value replaces an earlier one, keeping its place) and removes keys. */
export function applyTags(
  tags: readonly [string, string][],
  set: readonly (readonly [string, string])[],
  remove: readonly string[] = [],
): [string, string][] {
  const map = new Map<string, string>(tags);
  for (const [key, value] of set) map.set(key, value);
  for (const key of remove) map.delete(key);
  return [...map];
}

/** log-batch's bounds on how many metrics, params and tags one request holds, checked before any is parsed. */
export function checkBatchSizes(metrics: number, params: number, tags: number): void {
  if (metrics > LIMITS.batchMetrics)
    throw invalidParameter(`A batch logging request can contain at most ${LIMITS.batchMetrics} metrics. Got ${metrics} metrics.`);
  if (params > LIMITS.batchParams)
    throw invalidParameter(`A batch logging request can contain at most ${LIMITS.batchParams} params. Got ${params} params.`);
  if (tags > LIMITS.batchTags)
    throw invalidParameter(`A batch logging request can contain at most ${LIMITS.batchTags} tags. Got ${tags} tags.`);
  const total = metrics + params + tags;
  if (total > LIMITS.batchItems)
    throw invalidParameter(
      `A batch logging request can contain at most ${LIMITS.batchItems} total metrics, params and tags. Got ${total}.`,
    );
}

/** The tag that names an MLflow run; set-tag on it renames the run, as on MLflow's server. */
export const RUN_NAME_TAG = "mlflow.runName";
/** Stepwise's own tag list, shown to MLflow's client as one read-only tag (a JSON array of strings). */
export const STEPWISE_TAGS_TAG = "stepwise.tags";

/** A metric value as MLflow's JSON carries it: a number, or "NaN", "Infinity", "-Infinity". */
export function parseMetricValue(value: unknown, what: string): number {
  // A number literal JSON.parse read as ±Infinity overflowed (1e400): refused, like the string "1e400".
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (value === "NaN" || value === "nan") return Number.NaN;
  if (value === "Infinity" || value === "inf") return Number.POSITIVE_INFINITY;
  if (value === "-Infinity" || value === "-inf") return Number.NEGATIVE_INFINITY;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  throw invalidParameter(`Invalid value ${JSON.stringify(value)} for parameter '${what}': expected a number`);
}

/** A metric value for MLflow's JSON: non-finite values as the strings protobuf's JSON uses. */
export function metricValueJson(value: number): number | string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  return value;
}

/** An int64 field of MLflow's JSON (protobuf writes them as strings): a safe integer ≥ 0. */
export function parseInt64(value: unknown, what: string, fallback?: number): number {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw invalidParameter(`Missing value for required parameter '${what}'`);
  }
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
    throw invalidParameter(`Invalid value ${JSON.stringify(value)} for parameter '${what}': expected an integer from 0 to 2^53 - 1`);
  return n;
}

/**
 * A time field of MLflow's JSON (epoch milliseconds): an int64 as parseInt64, no later than a
 * JavaScript date can hold (MAX_EPOCH_MS), as Stepwise's own routes. MLflow's parser allows up to
 * 2^53 - 1, but such a time cannot be shown as a date by any client, Stepwise's UI included.
 */
export function parseTime(value: unknown, what: string, fallback?: number): number {
  const time = parseInt64(value, what, fallback);
  if (time > MAX_EPOCH_MS)
    throw invalidParameter(
      `Invalid value ${JSON.stringify(value)} for parameter '${what}': a time is at most ${MAX_EPOCH_MS} (epoch milliseconds)`,
    );
  return time;
}

/** The artifact root of an MLflow run, under the artifact proxy (`mlflow-artifacts:/<experiment>/<run>/artifacts`). */
export function artifactUri(experimentId: string, mlflowRunId: string): string {
  return `mlflow-artifacts:/${experimentId}/${mlflowRunId}/artifacts`;
}
