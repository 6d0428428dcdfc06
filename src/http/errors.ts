import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorCode } from "../domain/errors.js";
import { storeUnavailability, type Unavailability } from "../store/unavailable.js";

/** The one error catalogue: each domain error code and the HTTP status it answers with. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  REVOKED_API_KEY: 401,
  FORBIDDEN: 403,
  RUN_NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  NOT_FOUND: 404,
  AMBIGUOUS_DISPLAY_ID: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  STORE_UNAVAILABLE: 503,
};

// Fastify's own errors that come from bad input, with the message clients should see.
const FASTIFY_ERRORS = new Map<string, (error: FastifyError) => [number, string]>([
  ["FST_ERR_CTP_INVALID_MEDIA_TYPE", () => [415, "unsupported content type: send application/json"]],
  ["FST_ERR_CTP_EMPTY_JSON_BODY", () => [400, "request body is empty but content type is application/json"]],
  ["FST_ERR_CTP_INVALID_JSON_BODY", (error) => [400, `malformed JSON body: ${error.message}`]],
  ["FST_ERR_CTP_INVALID_CONTENT_LENGTH", () => [400, "content-length does not match the body"]],
]);

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof DomainError) {
    reply.status(ERROR_STATUS[error.code]).send({ error: error.message });
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
  return reply
    .status(ERROR_STATUS.STORE_UNAVAILABLE)
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
