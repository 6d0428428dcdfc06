import type { FastifyRequest } from "fastify";
import { randomUUID } from "node:crypto";
import { invalidInput } from "../domain/errors.js";
import { checkStorableText } from "../domain/text.js";

/** Calls `check` with each query and path value (each item of a repeated query parameter), its name and its part. */
function eachParameter(request: FastifyRequest, check: (value: unknown, name: string, part: string) => void): void {
  for (const [part, values] of [
    ["querystring", request.query],
    ["params", request.params],
  ] as const) {
    if (typeof values !== "object" || values === null) continue;
    for (const [name, value] of Object.entries(values)) for (const item of Array.isArray(value) ? value : [value]) check(item, name, part);
  }
}

/**
 * Ajv coerces a query or path string like "1e400" to Infinity and then skips its minimum and
 * maximum checks (it checks bounds on finite numbers only), so every integer bound would let
 * Infinity through. Runs after validation: any coerced number that is not finite is a 400.
 */
export async function rejectNonFiniteNumbers(request: FastifyRequest): Promise<void> {
  eachParameter(request, (value, name, part) => {
    if (typeof value === "number" && !Number.isFinite(value)) throw invalidInput(`${name}: must be a finite number (${part})`);
  });
}

/**
 * Query and path values are text too (docs/api.md, "Limits on every request"): `%00` or an
 * unpaired surrogate in any of them is a 400 before any route reads it, on every route, MLflow's
 * and the file routes included.
 */
export async function rejectIllFormedText(request: FastifyRequest): Promise<void> {
  eachParameter(request, (value, name, part) => {
    if (typeof value === "string") checkStorableText(value, `${name} (${part})`);
  });
}

/** A client's X-Request-Id is kept only when it is a short token that is safe in logs and headers. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's request-ID generator: the client's X-Request-Id when safe, else a new UUID. */
export function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** A URL as request logs show it: a signed URL's signature is a credential, so it is replaced. */
export function redactSignature(url: string): string {
  return url.replace(/([?&]sig=)[^&#]*/g, "$1[redacted]");
}

/** Fastify's request log fields, with the URL's signature redacted. */
export function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactSignature(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
