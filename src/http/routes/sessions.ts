import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { DomainError } from "../../domain/errors.js";
import { SESSION_COOKIE } from "../../domain/sessions.js";
import type { RouteDeps } from "../deps.js";
import { STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import { SessionResponse, SwitchOrganizationBody } from "../schemas/sessions.js";
import { presentUser } from "../presenters.js";
import { signOut } from "../sessions.js";

/** Who is signed in (by session or key) and the session's organization (docs/api.md, "Sign-in and sessions"). */
export function sessionRoutes({ store, services }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/auth/session",
      { schema: { tags: ["auth"], response: { 200: SessionResponse, 401: STANDARD_ERRORS[401] } } },
      async (request) => {
        const { orgId, orgSlug, userId, role, sessionId } = request.auth;
        const user = await store.getUser(userId);
        if (!user) throw new DomainError("INVALID_SESSION", "this user no longer exists");
        const memberships = await store.listMemberships(userId);
        const token = request.cookies?.[SESSION_COOKIE];
        const session = sessionId === null || !token ? undefined : await services.sessions.find(token);
        return {
          user: presentUser(user),
          organization: { id: orgId, slug: orgSlug },
          role,
          csrfToken: session?.csrfToken ?? null,
          organizations: memberships.map((membership) => ({ slug: membership.orgSlug, role: membership.role })),
        };
      },
    );

    // Any member may move its own session between its organizations.
    app.post(
      "/api/auth/session/organization",
      {
        config: { role: "viewer" },
        schema: { tags: ["auth"], body: SwitchOrganizationBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } },
      },
      async (request) => {
        if (request.auth.sessionId === null) throw new DomainError("INVALID_INPUT", "only a browser session has an organization to switch");
        await services.sessions.switchOrganization(request.auth.sessionId, request.auth.userId, request.body.slug);
        return { success: true };
      },
    );
  };
}

/** Sign-out: public, so a session that has expired can still clear its cookie. */
export function signOutRoutes({ services, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/api/auth/sign-out",
      { schema: { tags: ["auth"], security: [], response: { 200: SuccessResponse } } },
      async (request, reply) => {
        await signOut(request, reply, services.sessions, config.publicUrl);
        return { success: true };
      },
    );
  };
}
