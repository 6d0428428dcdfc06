import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { auditContext } from "../audit-context.js";
import type { RouteDeps } from "../deps.js";
import { ErrorResponse, STANDARD_ERRORS } from "../schemas/common.js";
import {
  DeleteProjectResponse,
  DeleteRunsResponse,
  ProjectNameBody,
  PutRetentionBody,
  RestoreProjectResponse,
  RestoreRunsResponse,
  RetentionDryRunResponse,
  RetentionQuery,
  RetentionResponse,
  RunIdsBody,
  TrashQuery,
  TrashResponse,
} from "../schemas/deletion.js";

const tags = ["deletion"];
const CHANGE_ERRORS = { ...STANDARD_ERRORS, 409: ErrorResponse };
/** Deletion, restore and retention are an admin's; reading the trash and a dry run anyone's (docs/semantics.md, "Roles"). */
const ADMIN = { role: "admin" } as const;

/** Deletion, restore, the trash and retention policies (docs/api.md, "Deletion and retention"). */
export function deletionRoutes({ services }: RouteDeps): FastifyPluginAsyncTypebox {
  const deletion = services.deletion;
  return async (app) => {
    app.post(
      "/api/runs/delete",
      { config: ADMIN, schema: { tags, body: RunIdsBody, response: { 200: DeleteRunsResponse, ...CHANGE_ERRORS } } },
      async (request) => deletion.deleteRuns(auditContext(request), request.body.runIds),
    );
    app.post(
      "/api/runs/restore",
      { config: ADMIN, schema: { tags, body: RunIdsBody, response: { 200: RestoreRunsResponse, ...CHANGE_ERRORS } } },
      async (request) => deletion.restoreRuns(auditContext(request), request.body.runIds),
    );
    app.post(
      "/api/runs/projects/delete",
      { config: ADMIN, schema: { tags, body: ProjectNameBody, response: { 200: DeleteProjectResponse, ...CHANGE_ERRORS } } },
      async (request) => deletion.deleteProject(auditContext(request), request.body.projectName),
    );
    app.post(
      "/api/runs/projects/restore",
      { config: ADMIN, schema: { tags, body: ProjectNameBody, response: { 200: RestoreProjectResponse, ...CHANGE_ERRORS } } },
      async (request) => deletion.restoreProject(auditContext(request), request.body.projectName),
    );
    app.get(
      "/api/runs/trash",
      { schema: { tags, querystring: TrashQuery, response: { 200: TrashResponse, ...STANDARD_ERRORS } } },
      async (request) => deletion.trash(request.auth.orgId, request.query),
    );
    app.get(
      "/api/runs/retention",
      { schema: { tags, querystring: RetentionQuery, response: { 200: RetentionResponse, ...STANDARD_ERRORS } } },
      async (request) => deletion.getRetention(request.auth.orgId, request.query.projectName),
    );
    app.put(
      "/api/runs/retention",
      { config: ADMIN, schema: { tags, body: PutRetentionBody, response: { 200: RetentionResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, policy } = request.body;
        return deletion.setRetention(
          auditContext(request),
          projectName,
          policy && { maxAgeDays: policy.maxAgeDays, excludeTag: policy.excludeTag ?? null },
        );
      },
    );
    app.post(
      "/api/runs/retention/dry-run",
      {
        config: { role: "viewer" },
        schema: { tags, body: ProjectNameBody, response: { 200: RetentionDryRunResponse, ...STANDARD_ERRORS } },
      },
      async (request) => deletion.retentionDryRun(request.auth.orgId, request.body.projectName),
    );
  };
}
