import type { FastifyRequest } from "fastify";
import type { AuditContext } from "../services/audit.js";

/**
 * Who made an authenticated request and from where, for the audit log: the organization, user and
 * key of `request.auth`, and `request.ip`, the connected peer's address — or, with --trust-proxy, the
 * client's as the proxies in front of the server report it in X-Forwarded-For (docs/semantics.md, "Audit log").
 */
export function auditContext(request: FastifyRequest): AuditContext {
  const { orgId, userId, apiKeyId } = request.auth;
  return { orgId, actor: { userId, apiKeyId }, sourceIp: request.ip ?? null };
}
