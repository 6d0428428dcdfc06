import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { projectNotFound } from "../../domain/errors.js";
import { toIso, toIsoOrNull } from "../../domain/time.js";
import { listProjectRuns } from "../../services/run-list.js";
import { divergedMetrics } from "../../services/series-end.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import { ListRunsQuery, ListRunsResponse } from "../schemas/run-list.js";

/** GET /api/runs/list (docs/api.md, Run list): search, filters, sort, paging and field values. */
export function runListRoutes({ store, clock }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/list",
      { schema: { tags: ["runs"], querystring: ListRunsQuery, response: { 200: ListRunsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, includeFieldValues, includeDiverged, ...params } = request.query;
        const project = await store.getProjectByName(request.auth.orgId, projectName);
        if (!project) throw projectNotFound(projectName);
        const { runs, total } = await listProjectRuns(
          store,
          request.auth.orgId,
          project,
          {
            ...params,
            includeFieldValues: includeFieldValues === "true" || includeFieldValues === "1",
          },
          clock.now(),
        );
        const diverged =
          includeDiverged === "true" || includeDiverged === "1"
            ? await divergedMetrics(
                store,
                request.auth.orgId,
                runs.map(({ run }) => run.id),
              )
            : undefined;
        return {
          runs: runs.map(({ run, fields }) => ({
            id: run.id,
            name: run.name,
            number: run.number,
            displayId: run.displayId,
            projectName: run.projectName,
            status: run.status,
            tags: run.tags,
            createdAt: toIso(run.createdAt),
            updatedAt: toIso(run.updatedAt),
            statusUpdated: toIsoOrNull(run.statusUpdated),
            ...(fields && { _flatConfig: fields.config, _flatSystemMetadata: fields.systemMetadata }),
            ...(diverged && { divergedMetrics: diverged.get(run.id) ?? [] }),
          })),
          total,
        };
      },
    );
  };
}
