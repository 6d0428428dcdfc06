import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Readable } from "node:stream";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { RouteDeps } from "../deps.js";
import { invalidInput, projectNotFound } from "../../domain/errors.js";
import { logGroupOf } from "../../domain/log-names.js";
import { BATCH_MAX_POINTS, batchTooLarge, sampleLimitOf } from "../../domain/metric-batch.js";
import { METRIC_PAGE_BYTES, METRIC_PAGE_METRICS, sampleJsonBytes } from "../../domain/metric-pages.js";
import { finiteOrZero, nonFiniteFlags, valueFlag } from "../../domain/non-finite.js";
import { takePage } from "../../domain/paging.js";
import { stepWindow } from "../../domain/step-window.js";
import { toIso } from "../../domain/time.js";
import { getRunInProject, runInProjectWithSummaries } from "../../services/run-lookup.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import {
  MetricsBatchBody,
  MetricsBatchResponse,
  MetricsQuery,
  MetricsResponse,
  RawMetricsQuery,
  RawMetricsResponse,
} from "../schemas/metrics.js";

const tags = ["metrics"];

/** The step window of a read (domain/step-window.ts), refused in this API's words. */
const stepsOf = (query: { stepMin?: number; stepMax?: number }) =>
  stepWindow(query.stepMin, query.stepMax, (from, to) => invalidInput(`stepMin: ${from} is greater than stepMax ${to}`));

/** Reads of metric points: sampled series for charts, and raw rows for scripts. */
export function metricRoutes({ store }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/metrics",
      { schema: { tags, querystring: MetricsQuery, response: { 200: MetricsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, logName, logGroup, logNames, limit, offset } = request.query;
        const [from, to] = stepsOf(request.query);
        const { orgId } = request.auth;
        const { run, summaries: all } = await runInProjectWithSummaries(store, orgId, runId, projectName, { logName, logGroup });
        const named = logNames && new Set(logNames);
        const summaries = all.filter((summary) => !named || named.has(summary.logName));
        const page = takePage(
          summaries.slice(offset, offset + METRIC_PAGE_METRICS + 1),
          { limit: METRIC_PAGE_METRICS, offset, maxBytes: METRIC_PAGE_BYTES },
          (summary) => sampleJsonBytes(summary, limit),
        );
        const metrics = [];
        for (const summary of page.items) {
          for (const point of await store.sampleMetricPoints(orgId, run.id, summary.logName, from, to, limit)) {
            metrics.push({
              logName: summary.logName,
              logGroup: summary.logGroup,
              time: toIso(point.time),
              step: point.step,
              value: finiteOrZero(point.value),
              nonFiniteFlags: nonFiniteFlags(point.value),
              valueFlag: valueFlag(point.value),
            });
          }
          // Store reads are synchronous underneath: other requests get a turn after every metric
          // (sampling one metric takes at most ~30 ms, even over 5M points).
          await yieldToEventLoop();
        }
        return { metrics, nextOffset: page.nextOffset };
      },
    );

    app.post(
      "/api/runs/metrics/batch",
      {
        // A read sent as POST (its many run IDs do not fit a URL): a viewer's.
        config: { role: "viewer" },
        schema: {
          tags,
          description:
            "Sampled series of many runs × many metrics in one request, for charts overlaying runs. Each series is the sample " +
            "/api/runs/metrics gives with limit = 4 × buckets (per bucket its first, last, minimum, maximum and first point of " +
            "each non-finite kind), forked runs through their lineage. Runs not in the project (unknown, of another project " +
            `or organization) are listed in missingRunIds. runIds × logNames × (4 × buckets + 3) may not exceed ${BATCH_MAX_POINTS} ` +
            "points (else 400).",
          body: MetricsBatchBody,
          response: { 200: MetricsBatchResponse, ...STANDARD_ERRORS },
        },
      },
      async (request, reply) => {
        const { projectName, buckets } = request.body;
        const runIds = [...new Set(request.body.runIds)];
        const logNames = [...new Set(request.body.logNames)];
        const [from, to] = stepsOf(request.body);
        const tooLarge = batchTooLarge(runIds.length, logNames.length, buckets);
        if (tooLarge) throw invalidInput(tooLarge);
        const { orgId } = request.auth;
        const project = await store.getProjectByName(orgId, projectName);
        if (!project) throw projectNotFound(projectName);
        const found = new Set<number>();
        for (const run of await store.getRuns(orgId, runIds)) if (run.projectId === project.id) found.add(run.id);
        const limit = sampleLimitOf(buckets);
        // The JSON is written series by series (JSON.stringify of finite numbers is the response schema's
        // output): a response of tens of MB then leaves in pieces, not as one write the client must
        // take whole before it counts as progress (docs/decisions.md, Slow clients).
        const pieces = ['{"series":['];
        for (const runId of runIds) {
          if (!found.has(runId)) continue;
          for (const logName of logNames) {
            const points = await store.sampleMetricPoints(orgId, runId, logName, from, to, limit);
            if (points.length > 0) {
              const n = points.length;
              const series = {
                runId,
                logName,
                steps: new Array<number>(n),
                values: new Array<number>(n),
                nonFiniteFlags: new Array<number>(n),
                times: new Array<number>(n),
              };
              for (let i = 0; i < n; i++) {
                const point = points[i]!;
                series.steps[i] = point.step;
                series.values[i] = finiteOrZero(point.value);
                series.nonFiniteFlags[i] = nonFiniteFlags(point.value);
                series.times[i] = point.time;
              }
              pieces.push(`${pieces.length > 1 ? "," : ""}${JSON.stringify(series)}`);
            }
            // As for /metrics: other requests get a turn after every series, so a batch never holds the server for long.
            await yieldToEventLoop();
          }
        }
        pieces.push(`],"missingRunIds":${JSON.stringify(runIds.filter((runId) => !found.has(runId)))}}`);
        return reply.type("application/json; charset=utf-8").send(Readable.from(pieces, { objectMode: false }) as never); // the 200 schema documents the JSON
      },
    );

    app.get(
      "/api/runs/metrics/raw",
      { schema: { tags, querystring: RawMetricsQuery, response: { 200: RawMetricsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, logName, limit } = request.query;
        const [from, to] = stepsOf(request.query);
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
      },
    );
  };
}
