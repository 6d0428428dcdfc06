import type { FastifyInstance } from "fastify";
import { invalidParameter } from "../../../domain/mlflow/errors.js";
import { LIMITS, metricValueJson, parseInt64 } from "../../../domain/mlflow/model.js";
import { stepWindow } from "../../../domain/step-window.js";
import { metricHistory, metricIntervals } from "../../../services/mlflow.js";
import type { RouteDeps } from "../../deps.js";
import { endpoints, fieldsOf, listOf, maxResultsOf, nextPage, optionalString, orgOf, requiredString, runIdOf } from "./common.js";

/** Reads of MLflow's metric histories (metrics are logged through runs.ts's log-metric and log-batch). */
export function metricRoutes({ store, services: { mlflowRuns: runs } }: RouteDeps) {
  return async (app: FastifyInstance) => {
    const { get } = endpoints(app);

    get("/metrics/get-history", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findRef(orgOf(request), runIdOf(fields));
      const key = requiredString(fields, "metric_key");
      const maxResults = maxResultsOf(fields, "max_results", LIMITS.historyMaxResults, LIMITS.historyMaxResults);
      const page = await metricHistory(store, orgOf(request), run, key, maxResults, optionalString(fields, "page_token"));
      return {
        metrics: page.points.map((p) => ({ key, value: metricValueJson(p.value), timestamp: p.time, step: p.step })),
        ...nextPage(page.nextPageToken),
      };
    });

    get("/metrics/get-history-bulk-interval", async (request) => {
      const fields = fieldsOf(request);
      const runIds = listOf(fields, "run_ids").map(String);
      if (runIds.length === 0) throw invalidParameter("Missing value for required parameter 'run_ids'");
      if (runIds.length > 100) throw invalidParameter("GetMetricHistoryBulkInterval request must specify at most 100 run_ids");
      const key = requiredString(fields, "metric_key");
      const start = Object.hasOwn(fields, "start_step") ? parseInt64(fields.start_step, "start_step") : undefined;
      const end = Object.hasOwn(fields, "end_step") ? parseInt64(fields.end_step, "end_step") : undefined;
      const window = stepWindow(start, end, () => invalidParameter("end_step must be greater than start_step"));
      const maxResults = maxResultsOf(fields, "max_results", 320, 1000);
      const metrics = [];
      for (const { run, points } of await metricIntervals(store, orgOf(request), runIds, key, window, maxResults))
        for (const p of points)
          metrics.push({ key, value: metricValueJson(p.value), timestamp: p.time, step: p.step, run_id: run.mlflowId });
      return { metrics };
    });
  };
}
