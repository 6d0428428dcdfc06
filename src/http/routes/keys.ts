import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { parseKeyLifetime } from "../../domain/api-keys.js";
import { assertRole } from "../../domain/roles.js";
import { toIso, toIsoOrNull } from "../../domain/time.js";
import { createMemberKey, type KeyView, keyView, listKeys, revokeKey } from "../../services/keys.js";
import { auditContext } from "../audit-context.js";
import type { RouteDeps } from "../deps.js";
import { presentUser } from "../presenters.js";
import { ErrorResponse, STANDARD_ERRORS } from "../schemas/common.js";
import { CreateKeyBody, CreateKeyResponse, KeyIdParams, KeyListResponse, KeyResponse, ListKeysQuery } from "../schemas/keys.js";

const tags = ["keys"];
const ERRORS = { ...STANDARD_ERRORS, 403: ErrorResponse };
/**
 * Anyone signed in makes, lists and revokes its own keys (a viewer its read-only keys); listing and
 * revoking the organization's other keys is an admin's, checked in the handler (docs/api.md, "API keys").
 */
const OWN = { role: "viewer" } as const;

/** A person's (or service account's) own API keys, by session or key (docs/api.md, "API keys"). */
export function keyRoutes({ store, clock, services }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/keys",
      { config: OWN, schema: { tags, querystring: ListKeysQuery, response: { 200: KeyListResponse, ...ERRORS } } },
      async (request) => {
        const { orgId, userId, role } = request.auth;
        if (request.query.all) assertRole(role, "admin");
        return { keys: (await listKeys(store, orgId, request.query.all ? undefined : userId)).map(presentKey) };
      },
    );

    app.post(
      "/api/keys",
      { config: OWN, schema: { tags, body: CreateKeyBody, response: { 201: CreateKeyResponse, ...ERRORS } } },
      async (request, reply) => {
        const { orgId, userId, role } = request.auth;
        const { name, expiresIn } = request.body;
        const now = clock.now();
        const expiresAt = typeof expiresIn === "string" ? now + parseKeyLifetime(expiresIn) : null;
        // Never above the role the caller acts with now: a read-only key makes read-only keys only.
        const grant = { orgId, userId, name, expiresAt, requested: request.body.role ?? null, ceiling: role };
        const { key, record } = await createMemberKey(store, grant, now, { log: services.audit, by: auditContext(request) });
        return reply.code(201).send({ key, apiKey: presentKey(await keyView(store, orgId, record)) });
      },
    );

    app.post(
      "/api/keys/:keyId/revoke",
      { config: OWN, schema: { tags, params: KeyIdParams, response: { 200: KeyResponse, ...ERRORS } } },
      async (request) => {
        const audit = { log: services.audit, by: auditContext(request) };
        return { apiKey: presentKey(await revokeKey(store, request.auth, request.params.keyId, clock.now(), audit)) };
      },
    );
  };
}

function presentKey({ record, user, memberRole }: KeyView) {
  return {
    id: record.id,
    name: record.name,
    displayPrefix: record.displayPrefix,
    user: user && presentUser(user),
    role: record.role,
    memberRole,
    createdAt: toIso(record.createdAt),
    expiresAt: toIsoOrNull(record.expiresAt),
    revokedAt: toIsoOrNull(record.revokedAt),
  };
}
