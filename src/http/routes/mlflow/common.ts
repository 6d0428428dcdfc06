import type { FastifyRequest } from "fastify";
import { MlflowError } from "../../../domain/mlflow/errors.js";
import {
  artifactUri,
  metricValueJson,
  paramsOf,
  RUN_NAME_TAG,
  STEPWISE_TAGS_TAG,
  toMlflowStatus,
  USER_TAG,
} from "../../../domain/mlflow/model.js";
import { isTerminal } from "../../../domain/status.js";
import { checkClientJson } from "../../../domain/json-text.js";
import type { LatestMetric } from "../../../services/mlflow.js";
import type { Project, Run } from "../../../store/store.js";

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

export function experimentJson(project: Project) {
  return {
    experiment_id: String(project.id),
    name: project.name,
    artifact_location: `mlflow-artifacts:/${project.id}`,
    lifecycle_stage: project.deletedAt === null ? "active" : "deleted",
    last_update_time: project.updatedAt,
    creation_time: project.createdAt,
    tags: tagList(project.mlflowTags),
  };
}

export function runInfoJson(run: Run) {
  const userId = new Map(run.mlflowTags).get(USER_TAG) ?? "";
  return {
    run_uuid: run.mlflowId,
    run_id: run.mlflowId,
    experiment_id: String(run.projectId),
    run_name: run.name,
    user_id: userId,
    status: toMlflowStatus(run.status),
    start_time: run.createdAt,
    ...(isTerminal(run.status) && run.statusUpdated !== null ? { end_time: run.statusUpdated } : {}),
    artifact_uri: artifactUri(run.projectId, run.mlflowId),
    lifecycle_stage: run.deletedAt === null ? "active" : "deleted",
  };
}

/** MLflow's tags of a run: its own, the run name, and Stepwise's tag list as one read-only tag. */
export function runTags(run: Run): [string, string][] {
  const tags = new Map(run.mlflowTags);
  tags.set(RUN_NAME_TAG, run.name);
  if (run.tags.length > 0) tags.set(STEPWISE_TAGS_TAG, JSON.stringify(run.tags));
  return [...tags];
}

export function runJson(run: Run, metrics: LatestMetric[]) {
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
    inputs: { dataset_inputs: Array.isArray(run.mlflowInputs) ? run.mlflowInputs : [] },
  };
}
