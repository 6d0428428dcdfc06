import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { invitationUrl } from "../../domain/people.js";
import type { Role } from "../../domain/roles.js";
import { toIso } from "../../domain/time.js";
import type { Member } from "../../store/store.js";
import type { RouteDeps } from "../deps.js";
import { ErrorResponse } from "../schemas/common.js";
import {
  AcceptInvitationBody,
  InvitationResponse,
  InvitationToken,
  InviteBody,
  InviteResponse,
  MemberListResponse,
  MemberParams,
  MemberResponse,
  PEOPLE_ERRORS,
  SetRoleBody,
  SignedInResponse,
  SignInBody,
} from "../schemas/people.js";
import { presentUser } from "../presenters.js";
import { auditContext } from "../audit-context.js";
import { signIn } from "../sessions.js";
import { baseUrl } from "../urls.js";

/** Public: they are how a browser gets a session, so no key or cookie is asked for. */
const PUBLIC = { tags: ["auth"], security: [] };

const manager = (auth: { userId: string; role: Role }) => ({ userId: auth.userId, role: auth.role });

const presentMember = (member: Member) => ({ user: presentUser(member.user), role: member.role, joinedAt: toIso(member.createdAt) });

/**
 * Password sign-in and invitations (docs/api.md, "Sign-in and sessions"): public routes, registered
 * outside the authenticated scope (src/app.ts). The rules are services/people.ts's; the cookie is
 * http/sessions.ts's, a new session at every sign-in.
 */
export function passwordRoutes({ services, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/api/auth/sign-in",
      { schema: { ...PUBLIC, body: SignInBody, response: { 200: SignedInResponse, ...PEOPLE_ERRORS, 429: ErrorResponse } } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        const member = await services.people.signIn(request.body, request.ip);
        const { csrfToken } = await signIn(request, reply, services.sessions, config.publicUrl, member);
        await services.audit.record(
          { orgId: member.orgId, actor: { userId: member.userId, apiKeyId: null }, sourceIp: request.ip },
          { action: "sign_in", target: { type: "user", id: member.userId }, details: { method: "password" } },
        );
        return { csrfToken, organization: { id: member.orgId, slug: member.orgSlug }, role: member.role };
      },
    );

    app.get(
      "/api/auth/invitations/:token",
      { schema: { ...PUBLIC, params: InvitationToken, response: { 200: InvitationResponse, ...PEOPLE_ERRORS } } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        return presentInvitation(await services.people.invitation(request.params.token));
      },
    );

    app.post(
      "/api/auth/invitations/:token/accept",
      {
        schema: { ...PUBLIC, params: InvitationToken, body: AcceptInvitationBody, response: { 200: SignedInResponse, ...PEOPLE_ERRORS } },
      },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        const invitation = await services.people.accept(request.params.token, request.body.password, request.body.name);
        const { csrfToken } = await signIn(request, reply, services.sessions, config.publicUrl, invitation);
        await services.audit.record(
          { orgId: invitation.orgId, actor: { userId: invitation.userId, apiKeyId: null }, sourceIp: request.ip },
          { action: "sign_in", target: { type: "user", id: invitation.userId }, details: { method: "invitation" } },
        );
        const membership = await services.people.member(invitation.orgId, invitation.userId);
        return { csrfToken, organization: { id: invitation.orgId, slug: invitation.orgSlug }, role: membership.role };
      },
    );
  };
}

function presentInvitation(invitation: { email: string | null; name: string; orgSlug: string; expiresAt: number; hasPassword: boolean }) {
  const { email, name, orgSlug, expiresAt, hasPassword } = invitation;
  return { email, name, organization: { slug: orgSlug }, expiresAt: toIso(expiresAt), hasPassword };
}

/** The organization's members (docs/api.md, "Members"): any member reads them, admins manage them. */
export function memberRoutes({ services, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/members",
      { schema: { tags: ["members"], response: { 200: MemberListResponse, ...PEOPLE_ERRORS } } },
      async (request) => ({
        members: (await services.people.members(request.auth.orgId)).map(presentMember),
      }),
    );

    app.post(
      "/api/members",
      { config: { role: "admin" }, schema: { tags: ["members"], body: InviteBody, response: { 200: InviteResponse, ...PEOPLE_ERRORS } } },
      async (request, reply) => {
        reply.header("cache-control", "no-store");
        const invited = await services.people.invite(request.auth.orgId, request.body, manager(request.auth), auditContext(request));
        const member = await services.people.member(request.auth.orgId, invited.user.id);
        return {
          member: presentMember(member),
          invitationUrl: invited.token === null ? null : invitationUrl(baseUrl(request, config.publicUrl), invited.token),
          expiresAt: invited.expiresAt === null ? null : toIso(invited.expiresAt),
        };
      },
    );

    app.post(
      "/api/members/:userId/role",
      {
        config: { role: "admin" },
        schema: { tags: ["members"], params: MemberParams, body: SetRoleBody, response: { 200: MemberResponse, ...PEOPLE_ERRORS } },
      },
      async (request) => ({
        member: presentMember(
          await services.people.setRole(
            request.auth.orgId,
            request.params.userId,
            request.body.role,
            manager(request.auth),
            auditContext(request),
          ),
        ),
      }),
    );

    app.post(
      "/api/members/:userId/remove",
      {
        config: { role: "admin" },
        schema: { tags: ["members"], params: MemberParams, response: { 200: MemberResponse, ...PEOPLE_ERRORS } },
      },
      async (request) => ({
        member: presentMember(
          await services.people.remove(request.auth.orgId, request.params.userId, manager(request.auth), auditContext(request)),
        ),
      }),
    );
  };
}
