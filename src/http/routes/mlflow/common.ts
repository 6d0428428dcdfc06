import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorCode } from "../../../domain/errors.js";
import { MlflowError, type MlflowErrorCode } from "../../../domain/mlflow/errors.js";
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
import { storeUnavailability } from "../../../store/unavailable.js";

/** Stepwise's error codes as MLflow's, so the real client raises what its users catch. */
const FROM_DOMAIN = new Map<ErrorCode, MlflowErrorCode>([
  ["INVALID_INPUT", "INVALID_PARAMETER_VALUE"],
  ["RUN_NOT_FOUND", "RESOURCE_DOES_NOT_EXIST"],
  ["PROJECT_NOT_FOUND", "RESOURCE_DOES_NOT_EXIST"],
  ["NOT_FOUND", "RESOURCE_DOES_NOT_EXIST"],
  ["AMBIGUOUS_DISPLAY_ID", "INVALID_PARAMETER_VALUE"],
  ["CONFLICT", "RESOURCE_ALREADY_EXISTS"],
  ["MISSING_API_KEY", "UNAUTHENTICATED"],
  ["INVALID_API_KEY", "UNAUTHENTICATED"],
  ["EXPIRED_API_KEY", "UNAUTHENTICATED"],
  ["REVOKED_API_KEY", "UNAUTHENTICATED"],
  ["FORBIDDEN", "PERMISSION_DENIED"],
  ["PAYLOAD_TOO_LARGE", "INVALID_PARAMETER_VALUE"],
  ["UNSUPPORTED_MEDIA_TYPE", "BAD_REQUEST"],
  ["STORE_UNAVAILABLE", "TEMPORARILY_UNAVAILABLE"],
]);

function send(reply: FastifyReply, status: number, errorCode: string, message: string): void {
  reply.status(status).send({ error_code: errorCode, message });
}

/** MLflow's error body `{error_code, message}` with MLflow's status codes, for every error under its prefixes. */
export function mlflowErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof MlflowError) {
    send(reply, error.status, error.errorCode, error.message);
    return;
  }
  if (error instanceof DomainError) {
    const code = FROM_DOMAIN.get(error.code) ?? "INTERNAL_ERROR";
    const status = error.code === "PAYLOAD_TOO_LARGE" ? 413 : (new MlflowError(code, "").status ?? 500);
    send(reply, status, code, error.message);
    return;
  }
  const unavailable = storeUnavailability(error);
  if (unavailable) {
    reply.header("retry-after", String(unavailable.retryAfterSeconds));
    send(reply, 503, "TEMPORARILY_UNAVAILABLE", unavailable.message);
    return;
  }
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    send(reply, 413, "INVALID_PARAMETER_VALUE", "request body is too large");
    return;
  }
  if (error.validation) {
    send(reply, 400, "INVALID_PARAMETER_VALUE", error.message);
    return;
  }
  if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    send(reply, error.statusCode ?? 400, "BAD_REQUEST", error.message);
    return;
  }
  request.log.error({ err: error }, "unexpected error");
  send(reply, 500, "INTERNAL_ERROR", `internal error (request id ${request.id})`);
}

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
