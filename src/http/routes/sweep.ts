import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectNotFound } from "../../domain/errors.js";
import { parseSweepMetrics } from "../../domain/sweep.js";
import { readSweep } from "../../services/sweep.js";
import type { RouteDeps } from "../deps.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import { SweepQuery, SweepResponse } from "../schemas/sweep.js";

/** GET /api/runs/sweep (docs/api.md, "Sweep"): a selection's runs with their differing config and metric summaries. */
export function sweepRoutes({ store, clock }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/sweep",
      { schema: { tags: ["runs"], querystring: SweepQuery, response: { 200: SweepResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, metrics, ...selection } = request.query;
        const names = parseSweepMetrics(metrics);
        const project = await store.getProjectByName(request.auth.orgId, projectName);
        if (!project) throw projectNotFound(projectName);
        return { projectName, ...(await readSweep(store, request.auth.orgId, project, selection, names, clock.now())) };
      },
    );
  };
}
