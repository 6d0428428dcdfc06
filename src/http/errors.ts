import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorCode } from "../domain/errors.js";
import { MLFLOW_ERROR_STATUS, MlflowError, type MlflowErrorCode } from "../domain/mlflow/errors.js";
import { storeUnavailability, type Unavailability } from "../store/unavailable.js";
import { noteUnavailable } from "./metrics.js";

interface CatalogueEntry {
  /** The status of Stepwise's routes (body `{error}`). */
  status: number;
  /** MLflow's code on MLflow's routes (body `{error_code, message}`), so the real client raises what its users catch. */
  mlflowCode: MlflowErrorCode;
  /** MLflow's status when it is not the one MLflow's server gives the code (MLFLOW_ERROR_STATUS). */
  mlflowStatus?: number;
}

/**
 * The one error catalogue, for both protocols: each domain error code, the status it answers with
 * on Stepwise's routes, and the code and status on MLflow's. A new ErrorCode without its entry
 * does not compile (the `Record<ErrorCode, …>` type), so it can never fall through to a 500.
 */
export const ERROR_CATALOGUE: Record<ErrorCode, CatalogueEntry> = {
  INVALID_INPUT: { status: 400, mlflowCode: "INVALID_PARAMETER_VALUE" },
  MISSING_API_KEY: { status: 401, mlflowCode: "UNAUTHENTICATED" },
  INVALID_API_KEY: { status: 401, mlflowCode: "UNAUTHENTICATED" },
  EXPIRED_API_KEY: { status: 401, mlflowCode: "UNAUTHENTICATED" },
  REVOKED_API_KEY: { status: 401, mlflowCode: "UNAUTHENTICATED" },
  INVALID_SESSION: { status: 401, mlflowCode: "UNAUTHENTICATED" },
  FORBIDDEN: { status: 403, mlflowCode: "PERMISSION_DENIED" },
  RUN_NOT_FOUND: { status: 404, mlflowCode: "RESOURCE_DOES_NOT_EXIST" },
  PROJECT_NOT_FOUND: { status: 404, mlflowCode: "RESOURCE_DOES_NOT_EXIST" },
  NOT_FOUND: { status: 404, mlflowCode: "RESOURCE_DOES_NOT_EXIST" },
  AMBIGUOUS_DISPLAY_ID: { status: 409, mlflowCode: "INVALID_PARAMETER_VALUE" },
  CONFLICT: { status: 409, mlflowCode: "RESOURCE_ALREADY_EXISTS" },
  PAYLOAD_TOO_LARGE: { status: 413, mlflowCode: "INVALID_PARAMETER_VALUE", mlflowStatus: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, mlflowCode: "BAD_REQUEST" },
  STORE_UNAVAILABLE: { status: 503, mlflowCode: "TEMPORARILY_UNAVAILABLE" },
};

/** MLflow's code and status of a domain error (ERROR_CATALOGUE). */
export function mlflowErrorOf(code: ErrorCode): { errorCode: MlflowErrorCode; status: number } {
  const entry: CatalogueEntry = ERROR_CATALOGUE[code];
  return { errorCode: entry.mlflowCode, status: entry.mlflowStatus ?? MLFLOW_ERROR_STATUS[entry.mlflowCode] };
}

// Fastify's own errors that come from bad input, with the message clients should see.
const FASTIFY_ERRORS = new Map<string, (error: FastifyError) => [number, string]>([
  ["FST_ERR_CTP_INVALID_MEDIA_TYPE", () => [415, "unsupported content type: send application/json"]],
  ["FST_ERR_CTP_EMPTY_JSON_BODY", () => [400, "request body is empty but content type is application/json"]],
  ["FST_ERR_CTP_INVALID_JSON_BODY", (error) => [400, `malformed JSON body: ${error.message}`]],
  ["FST_ERR_CTP_INVALID_CONTENT_LENGTH", () => [400, "content-length does not match the body"]],
]);

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof DomainError) {
    reply.status(ERROR_CATALOGUE[error.code].status).send({ error: error.message });
    return;
  }
  const unavailable = storeUnavailability(error);
  if (unavailable) {
    request.log.warn({ err: error }, "store unavailable");
    sendUnavailable(reply, unavailable);
    return;
  }
  if (error.validation) {
    reply.status(400).send({ error: validationMessage(error) });
    return;
  }
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    const limit = request.routeOptions.bodyLimit ?? 0;
    reply.status(413).send({ error: `request body is larger than the ${limit / (1024 * 1024)} MiB this route accepts` });
    return;
  }
  const known = FASTIFY_ERRORS.get(error.code);
  if (known) {
    const [status, message] = known(error);
    reply.status(status).send({ error: message });
    return;
  }
  if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    reply.status(error.statusCode ?? 400).send({ error: error.message });
    return;
  }
  request.log.error({ err: error }, "unexpected error");
  reply.status(500).send({ error: `internal error (request id ${request.id})` });
}

/** 503 STORE_UNAVAILABLE with the Retry-After the state calls for (busy store, full disk). */
export function sendUnavailable(reply: FastifyReply, unavailable: Unavailability): FastifyReply {
  noteUnavailable(reply.request, unavailable.cause);
  return reply
    .status(ERROR_CATALOGUE.STORE_UNAVAILABLE.status)
    .header("retry-after", String(unavailable.retryAfterSeconds))
    .send({ error: unavailable.message });
}

/** Names the field: "body/tags must NOT have more than 50 items" → "tags: must NOT have more than 50 items". */
function validationMessage(error: FastifyError): string {
  const first = error.validation![0]!;
  const path = first.instancePath.replace(/^\//, "").replaceAll("/", ".");
  const params = first.params as { missingProperty?: string; allowedValues?: unknown[] };
  if (params.missingProperty) {
    return `${path ? `${path}.` : ""}${params.missingProperty}: is required (${error.validationContext ?? "body"})`;
  }
  const field = path || (error.validationContext ?? "body");
  const allowed = params.allowedValues ? ` (${params.allowedValues.join(", ")})` : "";
  return `${field}: ${first.message ?? "is invalid"}${allowed}`;
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  reply.status(404).send({ error: `route ${request.method} ${request.url.split("?")[0]} not found` });
}

function sendMlflow(reply: FastifyReply, status: number, errorCode: MlflowErrorCode, message: string): void {
  reply.status(status).send({ error_code: errorCode, message });
}

/** MLflow's error body `{error_code, message}` with MLflow's status codes, for every error under its prefixes. */
export function mlflowErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof MlflowError) {
    sendMlflow(reply, error.status, error.errorCode, error.message);
    return;
  }
  if (error instanceof DomainError) {
    const { errorCode, status } = mlflowErrorOf(error.code);
    sendMlflow(reply, status, errorCode, error.message);
    return;
  }
  const unavailable = storeUnavailability(error);
  if (unavailable) {
    noteUnavailable(request, unavailable.cause);
    reply.header("retry-after", String(unavailable.retryAfterSeconds));
    sendMlflow(reply, 503, "TEMPORARILY_UNAVAILABLE", unavailable.message);
    return;
  }
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    sendMlflow(reply, 413, "INVALID_PARAMETER_VALUE", "request body is too large");
    return;
  }
  if (error.validation) {
    sendMlflow(reply, 400, "INVALID_PARAMETER_VALUE", error.message);
    return;
  }
  if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
    sendMlflow(reply, error.statusCode ?? 400, "BAD_REQUEST", error.message);
    return;
  }
  request.log.error({ err: error }, "unexpected error");
  sendMlflow(reply, 500, "INTERNAL_ERROR", `internal error (request id ${request.id})`);
}
