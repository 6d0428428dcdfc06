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
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new DomainError("MISSING_API_KEY", "missing API key");
    const key = await store.getApiKeyByHash(hashApiKey(match[1]!));
    if (!key) throw new DomainError("INVALID_API_KEY", "invalid API key");
    assertKeyUsable(key, clock.now());
    request.auth = { orgId: key.orgId, orgSlug: key.orgSlug, userId: key.userId, apiKeyId: key.id };
  };
}

export function actorOf(auth: AuthContext): Actor {
  return { userId: auth.userId, apiKeyId: auth.apiKeyId };
}
