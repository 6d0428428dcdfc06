import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { ErrorResponse, STANDARD_ERRORS } from "../schemas/common.js";
import { AuditListResponse, AuditQuery } from "../schemas/audit.js";

const tags = ["audit"];

/**
 * The organization's audit log, read-only (docs/api.md, "Audit log"): no route changes or removes an
 * entry. For admins (`config.role`, src/http/auth.ts requiredRole).
 */
export function auditRoutes({ services }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/audit",
      {
        config: { role: "admin" },
        schema: { tags, querystring: AuditQuery, response: { 200: AuditListResponse, ...STANDARD_ERRORS, 403: ErrorResponse } },
      },
      async (request) => services.audit.list(request.auth.orgId, request.query),
    );
  };
}
