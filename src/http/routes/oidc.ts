import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { refusalOf, SsoRefusal, type SsoRefusalCode } from "../../domain/oidc.js";
import { storeUnavailability } from "../../store/unavailable.js";
import type { RouteDeps } from "../deps.js";
import { AuthConfigResponse, OidcCallbackQuery, OidcStartQuery, SsoErrorResponse } from "../schemas/oidc.js";
import { signIn } from "../sessions.js";
import { baseUrl, servedOverHttps } from "../urls.js";

/** Binds a sign-in to the browser that started it: its `state`, sent back only to the callback's path. */
const STATE_COOKIE = "stepwise_oidc_state";
const COOKIE_PATH = "/api/auth/oidc";
export const CALLBACK_PATH = "/api/auth/oidc/callback";

/** Public, so the OpenAPI document overrides its global bearer requirement for these routes. */
const PUBLIC = { tags: ["auth"], security: [] };
const REFUSALS = { 400: SsoErrorResponse, 401: SsoErrorResponse, 403: SsoErrorResponse, 404: SsoErrorResponse, 503: SsoErrorResponse };
const Redirect = Type.Null({ description: "A redirect (Location)" });

/**
 * Single sign-on with an OpenID Connect provider (docs/api.md, "Single sign-on"), and which sign-in
 * methods are on. Public routes: they are how a browser gets a session. The protocol is
 * services/oidc.ts's, who may sign in domain/oidc.ts's, the session cookie http/sessions.ts's.
 */
export function oidcRoutes({ services, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // The UI's API-key sign-in is for single-user installs: off with single sign-on, or once any person has a password.
    app.get("/api/auth/config", { schema: { ...PUBLIC, response: { 200: AuthConfigResponse } } }, async () => ({
      password: true,
      oidc: services.oidc.enabled,
      apiKey: !services.oidc.enabled && (await services.people.apiKeySignInAllowed()),
    }));

    app.get(
      "/api/auth/oidc/start",
      { schema: { ...PUBLIC, querystring: OidcStartQuery, response: { 302: Redirect, ...REFUSALS } } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        try {
          const redirectUri = `${baseUrl(request, config.publicUrl)}${CALLBACK_PATH}`;
          const { url, state } = await services.oidc.begin(request.query.returnTo, redirectUri);
          reply.setCookie(STATE_COOKIE, state, {
            httpOnly: true,
            // Lax: the provider's redirect back is a top-level navigation from its site, which carries it.
            sameSite: "lax",
            secure: servedOverHttps(request, config.publicUrl),
            path: COOKIE_PATH,
            maxAge: 600,
          });
          return reply.redirect(url, 302);
        } catch (error) {
          return refuse(request, reply, error);
        }
      },
    );

    app.get(
      CALLBACK_PATH,
      { schema: { ...PUBLIC, querystring: OidcCallbackQuery, response: { 302: Redirect, ...REFUSALS } } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        reply.header("referrer-policy", "no-referrer");
        const browserState = request.cookies?.[STATE_COOKIE];
        reply.clearCookie(STATE_COOKIE, {
          path: COOKIE_PATH,
          httpOnly: true,
          sameSite: "lax",
          secure: servedOverHttps(request, config.publicUrl),
        });
        try {
          if (!services.oidc.enabled) throw new SsoRefusal("sso_off");
          const { state } = request.query;
          // A state this browser did not start (a link made elsewhere: login CSRF) is refused before it is used.
          if (state === undefined || browserState === undefined || !sameText(state, browserState)) throw new SsoRefusal("sso_state");
          const url = request.raw.url ?? "";
          const search = url.includes("?") ? url.slice(url.indexOf("?")) : "";
          const identity = await services.oidc.complete(search, state);
          const member = await services.oidc.admit(identity, request.ip);
          await signIn(request, reply, services.sessions, config.publicUrl, member);
          await services.audit.record(
            { orgId: member.orgId, actor: { userId: member.userId, apiKeyId: null }, sourceIp: request.ip },
            { action: "sign_in", target: { type: "user", id: member.userId }, details: { method: "sso" } },
          );
          request.log.info({ userId: member.userId, orgId: member.orgId }, "signed in with single sign-on");
          return reply.redirect(identity.returnTo, 302);
        } catch (error) {
          return refuse(request, reply, error);
        }
      },
    );
  };
}

/**
 * A refused sign-in: a browser (it accepts HTML) goes to the sign-in page, which says why
 * (`/signin?error=<code>`); another client gets the JSON error with its status. Failures that are
 * no refusal (a bug, the store down) are logged; a browser still lands on the sign-in page.
 */
function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const browser = (request.headers.accept ?? "").includes("text/html");
  if (!(error instanceof SsoRefusal)) {
    request.log.error({ err: error }, "single sign-on failed");
    if (!browser) throw error;
    return reply.redirect(`/signin?error=${storeUnavailability(error) ? "sso_unavailable" : "sso_failed"}`, 302);
  }
  request.log.warn({ code: error.code, reason: error.message }, "single sign-on refused");
  if (browser) return reply.redirect(`/signin?error=${error.code}`, 302);
  const code: SsoRefusalCode = error.code;
  return reply.status(refusalOf(code).status).send({ error: error.message, code });
}

/** Equal texts, compared in constant time (by their hashes, so lengths leak nothing either). */
function sameText(a: string, b: string): boolean {
  const hash = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(hash(a), hash(b));
}
