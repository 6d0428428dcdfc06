import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Role } from "../../../domain/roles.js";
import { MlflowError } from "../../../domain/mlflow/errors.js";
import { experimentIdOf } from "../../../domain/mlflow/ids.js";
import { invalidParameter } from "../../../domain/mlflow/errors.js";
import {
  artifactUri,
  checkKey,
  checkValue,
  LIMITS,
  metricValueJson,
  paramsOf,
  parseInt64,
  parseMetricValue,
  parseTime,
  toMlflowStatus,
  truncatedValue,
} from "../../../domain/mlflow/model.js";
import { datasetInputsOf } from "../../../domain/mlflow/datasets.js";
import { runTags } from "../../../domain/mlflow/tags.js";
import { isTerminal } from "../../../domain/status.js";
import { checkClientJson } from "../../../domain/json-text.js";
import type { LatestMetric } from "../../../services/mlflow.js";
import { orderDistinct } from "../../../domain/metric-points.js";
import type { MetricSeries, MlflowProject, MlflowRun } from "../../../store/store.js";

type Handler = (request: FastifyRequest) => Promise<unknown>;
const HIDDEN = { schema: { hide: true } };

/**
 * How an MLflow route is registered: hidden from the OpenAPI document (docs/api.md lists them), and
 * needing `role` when not its method's default (docs/semantics.md, "Roles": a GET needs a viewer,
 * any other method a member).
 */
export function mlflowRoute(role?: Role) {
  return role === undefined ? HIDDEN : { ...HIDDEN, config: { role } };
}

/** How an MLflow resource registers its endpoints: hidden from the OpenAPI document (docs/api.md lists them). */
export function endpoints(app: FastifyInstance) {
  const get = (path: string, handler: Handler) => app.get(path, HIDDEN, handler);
  const post = (path: string, handler: Handler) => app.post(path, HIDDEN, handler);
  /** A POST that needs another role than a member: a search (a read, "viewer") or a deletion ("admin"). */
  const postAs = (role: Role, path: string, handler: Handler) => app.post(path, mlflowRoute(role), handler);
  return {
    get,
    post,
    postAs,
    /** Searches are answered both ways, as MLflow's server does; both are reads, so a viewer's. */
    getAndPost: (path: string, handler: Handler) => {
      get(path, handler);
      postAs("viewer", path, handler);
    },
  };
}

/** The caller's organization. */
export const orgOf = (request: FastifyRequest) => request.auth.orgId;

/**
 * A request's fields: the query of a GET, the JSON body otherwise (MLflow's client sends both ways).
 * As MLflow's server: no body (or `null`) is an empty request, a body that is a JSON string is
 * decoded once more (older clients double-encode), and anything but an object is MALFORMED_REQUEST.
 */
export function fieldsOf(request: FastifyRequest): Record<string, unknown> {
  if (request.method === "GET") return request.query as Record<string, unknown>;
  let body = request.body;
  if (typeof body === "string") {
    const text = body;
    try {
      body = JSON.parse(text);
    } catch {
      throw new MlflowError("MALFORMED_REQUEST", "The request body is a string that is not JSON");
    }
    checkClientJson(text, body, "body");
  }
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new MlflowError("MALFORMED_REQUEST", "The request body must be a JSON object");
  return body as Record<string, unknown>;
}

/** An optional string field; anything but a string or absence is INVALID_PARAMETER_VALUE. */
export function optionalString(fields: Record<string, unknown>, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw new MlflowError("INVALID_PARAMETER_VALUE", `Invalid value ${JSON.stringify(value)} for parameter '${name}': expected a string`);
  return value;
}

export function requiredString(fields: Record<string, unknown>, name: string): string {
  const value = optionalString(fields, name);
  if (value === undefined || value === "")
    throw new MlflowError("INVALID_PARAMETER_VALUE", `Missing value for required parameter '${name}'`);
  return value;
}

/** The run ID a request names: `run_id`, or the older `run_uuid`. */
export function runIdOf(fields: Record<string, unknown>): string {
  const value = optionalString(fields, "run_id") || optionalString(fields, "run_uuid");
  if (!value) throw new MlflowError("INVALID_PARAMETER_VALUE", "Missing value for required parameter 'run_id'");
  return value;
}

/** A list field: absent is empty; a single value (a query parameter given once) is a list of one. */
export function listOf(fields: Record<string, unknown>, name: string): unknown[] {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

const tagList = (tags: readonly [string, string][]) => tags.map(([key, value]) => ({ key, value }));

export function experimentJson(project: MlflowProject) {
  const experimentId = experimentIdOf(project.id, project.defaultExperiment);
  return {
    experiment_id: experimentId,
    name: project.name,
    artifact_location: `mlflow-artifacts:/${experimentId}`,
    lifecycle_stage: project.deletedAt === null ? "active" : "deleted",
    last_update_time: project.updatedAt,
    creation_time: project.createdAt,
    tags: tagList(project.mlflowTags),
  };
}

export function runInfoJson(run: MlflowRun) {
  const experimentId = experimentIdOf(run.projectId, run.inDefaultExperiment);
  return {
    run_uuid: run.mlflowId,
    run_id: run.mlflowId,
    experiment_id: experimentId,
    run_name: run.name,
    user_id: run.mlflowUserId,
    status: toMlflowStatus(run.status),
    start_time: run.createdAt,
    ...(isTerminal(run.status) && run.statusUpdated !== null ? { end_time: run.statusUpdated } : {}),
    artifact_uri: artifactUri(experimentId, run.mlflowId),
    lifecycle_stage: run.deletedAt === null ? "active" : "deleted",
  };
}

export function runJson(run: MlflowRun, metrics: LatestMetric[]) {
  return {
    info: runInfoJson(run),
    data: {
      metrics: metrics.map((m) => ({
        key: m.key,
        value: metricValueJson(m.value),
        timestamp: m.timestamp,
        step: m.step,
      })),
      params: [...paramsOf(run.config)].map(([key, value]) => ({ key, value })),
      tags: tagList(runTags(run)),
    },
    inputs: { dataset_inputs: datasetInputsOf(run.mlflowInputs) },
  };
}

/** A `max_results` field: absent is `fallback`, else an integer from 1 to `max`. */
export function maxResultsOf(fields: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = parseInt64(Object.hasOwn(fields, name) ? fields[name] : undefined, name, fallback);
  if (value < 1 || value > max) throw invalidParameter(`Invalid value ${value} for parameter '${name}': it must be from 1 to ${max}`);
  return value;
}

interface KeyValue {
  key: string;
  value: string;
}

/** A list of a run's `{key, value}` tags (a missing value is ""; a value past the limit is truncated, as MLflow's server does). */
export function tagsOf(list: unknown[], what: string): [string, string][] {
  return list.map((item, i) => {
    const tag = (item ?? {}) as Partial<KeyValue>;
    return [checkKey(tag.key, `${what}[${i}].key`), truncatedValue(tag.value ?? "", `${what}[${i}].value`, LIMITS.tagValueLength)];
  });
}

/** A list of an experiment's `{key, value}` tags: a value past the limit is refused (MLflow truncates only a run's). */
export function experimentTagsOf(list: unknown[], what: string): [string, string][] {
  return list.map((item, i) => {
    const tag = (item ?? {}) as Partial<KeyValue>;
    return [checkKey(tag.key, `${what}[${i}].key`), checkValue(tag.value ?? "", `${what}[${i}].value`, LIMITS.experimentTagValueLength)];
  });
}

/** A list of `{key, value}` params (a value is required; past the limit it is truncated, as MLflow's server does). */
export function paramsOfList(list: unknown[]): [string, string][] {
  return list.map((item, i): [string, string] => {
    const param = (item ?? {}) as Partial<KeyValue>;
    return [checkKey(param.key, `params[${i}].key`), truncatedValue(param.value, `params[${i}].value`, LIMITS.paramValueLength)];
  });
}

/** Metric points of one request as series, grouped by key, each in the point order with identical points once: MLflow keeps every point (domain/metric-points.ts). */
export function metricSeries(list: unknown[], now: number): MetricSeries[] {
  const byKey = new Map<string, MetricSeries>();
  list.forEach((item, i) => {
    const metric = (item ?? {}) as Record<string, unknown>;
    // A batch names few keys many times (10 keys × 100 steps): a key already grouped passed checkKey.
    let series = typeof metric.key === "string" ? byKey.get(metric.key) : undefined;
    const key = series ? series.logName : checkKey(metric.key, `metrics[${i}].key`);
    const value = parseMetricValue(metric.value, `metrics[${i}].value`);
    const timestamp = parseTime(metric.timestamp, `metrics[${i}].timestamp`, now);
    const step = parseInt64(metric.step, `metrics[${i}].step`, 0);
    if (!series) byKey.set(key, (series = { logName: key, steps: [], values: [], times: [], rule: "keep-every-point" }));
    series.steps.push(step);
    series.values.push(value);
    series.times.push(timestamp);
  });
  return [...byKey.values()].map(orderDistinct);
}

/** A page's `next_page_token`, present only when there is a next page. */
export const nextPage = (token: string | undefined) => (token ? { next_page_token: token } : {});
