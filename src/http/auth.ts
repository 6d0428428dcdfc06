import type { FastifyRequest } from "fastify";
import { assertKeyUsable, hashApiKey } from "../domain/api-keys.js";
import { DomainError } from "../domain/errors.js";
import type { Clock } from "../domain/time.js";
import type { Actor, Store } from "../store/store.js";

/** Who is calling: set on every authenticated request by the onRequest hook below. */
export interface AuthContext {
  orgId: string;
  orgSlug: string;
  userId: string;
  apiKeyId: string;
}

declare module "fastify" {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/**
 * Resolves `Authorization: Bearer <key>` to its organization. Runs on onRequest, before the body
 * is read, so an unauthenticated client cannot make the server parse a large body.
 */
export function authenticate(store: Store, clock: Clock) {
  return async (request: FastifyRequest): Promise<void> => {
    const presented = presentedKey(request.headers.authorization, acceptsBasicAuth(request.url));
    if (presented === undefined) throw new DomainError("MISSING_API_KEY", "missing API key");
    const key = await store.getApiKeyByHash(hashApiKey(presented));
    if (!key) throw new DomainError("INVALID_API_KEY", "invalid API key");
    assertKeyUsable(key, clock.now());
    request.auth = { orgId: key.orgId, orgSlug: key.orgSlug, userId: key.userId, apiKeyId: key.id };
  };
}

/**
 * MLflow's routes (docs/api.md, "MLflow's REST API") also take HTTP basic auth, which is how MLflow's
 * client sends MLFLOW_TRACKING_USERNAME/PASSWORD; every other route takes a bearer key only.
 */
export function acceptsBasicAuth(url: string): boolean {
  return url.startsWith("/api/2.0/mlflow") || url.startsWith("/ajax-api/2.0/mlflow");
}

/** The API key a request presents: `Bearer <key>`, or with `basic`, basic auth whose password is the key (the user name is ignored). */
export function presentedKey(header: string | undefined, basic: boolean): string | undefined {
  if (!header) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1]!;
  if (!basic) return undefined;
  const credentials = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!credentials) return undefined;
  const decoded = Buffer.from(credentials[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const password = colon === -1 ? "" : decoded.slice(colon + 1);
  return password === "" ? undefined : password;
}

export function actorOf(auth: AuthContext): Actor {
  return { userId: auth.userId, apiKeyId: auth.apiKeyId };
}
