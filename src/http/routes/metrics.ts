import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AppDeps } from "../../app.js";
import { invalidInput } from "../../domain/errors.js";
import { logGroupOf } from "../../domain/log-names.js";
import { finiteOrZero, nonFiniteFlags } from "../../domain/non-finite.js";
import { toIso } from "../../domain/time.js";
import { getRunInProject } from "../../services/run-lookup.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import { MetricsQuery, MetricsResponse, RawMetricsQuery, RawMetricsResponse } from "../schemas/metrics.js";

const tags = ["metrics"];

function stepWindow(stepMin: number | undefined, stepMax: number | undefined): [number, number] {
  const window: [number, number] = [stepMin ?? 0, stepMax ?? Number.MAX_SAFE_INTEGER];
  if (window[0] > window[1]) throw invalidInput(`stepMin: ${window[0]} is greater than stepMax ${window[1]}`);
  return window;
}

/** Reads of metric points: sampled series for charts, and raw rows for scripts. */
export function metricRoutes({ store }: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get("/api/runs/metrics", { schema: { tags, querystring: MetricsQuery, response: { 200: MetricsResponse, ...STANDARD_ERRORS } } }, async (request) => {
      const { runId, projectName, logName, logGroup, limit } = request.query;
      const [from, to] = stepWindow(request.query.stepMin, request.query.stepMax);
      const { orgId } = request.auth;
      const run = await getRunInProject(store, orgId, runId, projectName);
      const metrics = [];
      for (const summary of await store.listMetricSummaries(orgId, run.id, { logName, logGroup })) {
        for (const point of await store.sampleMetricPoints(orgId, run.id, summary.logName, from, to, limit)) {
          metrics.push({
            logName: summary.logName,
            logGroup: summary.logGroup,
            time: toIso(point.time),
            step: point.step,
            value: finiteOrZero(point.value),
            nonFiniteFlags: nonFiniteFlags(point.value),
          });
        }
      }
      return { metrics };
    });

    app.get("/api/runs/metrics/raw", { schema: { tags, querystring: RawMetricsQuery, response: { 200: RawMetricsResponse, ...STANDARD_ERRORS } } }, async (request) => {
      const { runId, projectName, logName, limit } = request.query;
      const [from, to] = stepWindow(request.query.stepMin, request.query.stepMax);
      const run = await getRunInProject(store, request.auth.orgId, runId, projectName);
      const points = await store.readMetricPoints(request.auth.orgId, run.id, logName, from, to, limit);
      const logGroup = logGroupOf(logName);
      const rows = points.map((point) => ({
        logGroup,
        step: point.step,
        time: toIso(point.writtenAt),
        value: finiteOrZero(point.value),
        nonFiniteFlags: nonFiniteFlags(point.value),
      }));
      return { rows, truncated: rows.length === limit };
    });
  };
}
