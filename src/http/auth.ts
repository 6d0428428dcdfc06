import type { FastifyRequest } from "fastify";
import { assertKeyUsable, hashApiKey } from "../domain/api-keys.js";
import { DomainError } from "../domain/errors.js";
import { assertRole, defaultRoleOf, keyRole, type Role } from "../domain/roles.js";
import { assertCsrf, CSRF_HEADER, isSafeMethod, SESSION_COOKIE } from "../domain/sessions.js";
import type { Clock } from "../domain/time.js";
import type { SessionService } from "../services/sessions.js";
import type { Actor, Store } from "../store/store.js";
import { ownOrigins } from "./urls.js";

/** Who is calling: set on every authenticated request by the onRequest hook below. */
export interface AuthContext {
  orgId: string;
  orgSlug: string;
  userId: string;
  /** The key the request presented; null when a session cookie signed it in. */
  apiKeyId: string | null;
  /** The browser session that signed it in; null when a key did. */
  sessionId: string | null;
  /** What the caller may do in the organization now (domain/roles.ts). */
  role: Role;
}

declare module "fastify" {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** The role a route needs when not the default of its method (domain/roles.ts defaultRoleOf). */
    role?: Role;
  }
}

/**
 * Resolves `Authorization: Bearer <key>` (or MLflow's basic auth), else the session cookie, to
 * the caller's organization and role, and refuses a role below the route's with 403. Runs on
 * onRequest, before the body is read, so an unauthenticated or unauthorized client cannot make the
 * server parse a large body. A cookie-authorized write also passes the CSRF check.
 */
export function authenticate(store: Store, clock: Clock, sessions: SessionService, publicUrl: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const presented = presentedKey(request.headers.authorization, acceptsBasicAuth(request.url));
    const cookie = request.cookies?.[SESSION_COOKIE];
    if (presented !== undefined) request.auth = await authenticateKey(store, clock, presented);
    else if (cookie) {
      const session = await sessions.resolve(cookie);
      if (!isSafeMethod(request.method)) {
        const header = request.headers[CSRF_HEADER];
        assertCsrf(
          typeof header === "string" ? header : undefined,
          session.csrfToken,
          request.headers.origin,
          ownOrigins(request, publicUrl),
        );
      }
      const { orgId, orgSlug, userId, id, role } = session;
      request.auth = { orgId, orgSlug, userId, apiKeyId: null, sessionId: id, role };
    } else throw new DomainError("MISSING_API_KEY", "missing API key");
    assertRole(request.auth.role, requiredRole(request));
  };
}

async function authenticateKey(store: Store, clock: Clock, presented: string): Promise<AuthContext> {
  const key = await store.getApiKeyByHash(hashApiKey(presented));
  if (!key) throw new DomainError("INVALID_API_KEY", "invalid API key");
  assertKeyUsable(key, clock.now());
  const role = keyRole(key.role, key.memberRole);
  if (role === undefined) throw new DomainError("REVOKED_API_KEY", "API key's owner is no longer a member of the organization");
  return { orgId: key.orgId, orgSlug: key.orgSlug, userId: key.userId, apiKeyId: key.id, sessionId: null, role };
}

/** The role the request's route needs: its own `config.role`, else its method's default. */
export function requiredRole(request: FastifyRequest): Role {
  return request.routeOptions.config.role ?? defaultRoleOf(request.method);
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
