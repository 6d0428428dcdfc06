import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { invalidInput, projectNotFound } from "../../domain/errors.js";
import { leaderboardEntry, rankRuns } from "../../domain/leaderboard.js";
import type { MetricSummaryState } from "../../domain/summaries.js";
import { toIso } from "../../domain/time.js";
import { runInProjectWithSummaries } from "../../services/run-lookup.js";
import { seriesEnd } from "../../services/series-end.js";
import type { Store } from "../../store/store.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import {
  CompareQuery,
  CompareResponse,
  LeaderboardQuery,
  LeaderboardResponse,
  MetricNamesQuery,
  MetricNamesResponse,
  StatisticsQuery,
  StatisticsResponse,
} from "../schemas/stats.js";
import { comparisonUrl, runUrl } from "../../domain/web-urls.js";
import { baseUrl } from "../urls.js";

const tags = ["statistics"];
const MAX_COMPARED_RUNS = 100;

async function projectOf(store: Store, orgId: string, name: string) {
  const project = await store.getProjectByName(orgId, name);
  if (!project) throw projectNotFound(name);
  return project;
}

/** Parses a comma list of run IDs, keeping order and dropping repeats; blanks and non-numbers are not IDs. */
function parseRunIds(text: string, field: string, max: number): number[] {
  const ids = [
    ...new Set(
      text
        .split(",")
        .map((part) => part.trim())
        .filter((part) => /^\d{1,15}$/.test(part))
        .map(Number)
        .filter((id) => id > 0),
    ),
  ];
  if (ids.length === 0) throw invalidInput(`${field}: no valid run ID in '${text}'`);
  if (ids.length > max) throw invalidInput(`${field}: at most ${max} runs, got ${ids.length}`);
  return ids;
}

function statistics(summary: MetricSummaryState) {
  const none = summary.count === 0;
  return {
    count: summary.count,
    min: summary.min,
    max: summary.max,
    mean: none ? null : summary.mean,
    stddev: none ? null : summary.stddev,
  };
}

/** Reads from the live per-metric summaries: statistics, comparison, leaderboard and metric names. */
export function statsRoutes({ store, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/statistics",
      { schema: { tags, querystring: StatisticsQuery, response: { 200: StatisticsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, logName, logGroup } = request.query;
        const { run, summaries } = await runInProjectWithSummaries(store, request.auth.orgId, runId, projectName, { logName, logGroup });
        const metrics = [];
        for (const s of summaries) {
          metrics.push({
            logName: s.logName,
            logGroup: s.logGroup,
            ...statistics(s),
            last: s.lastValueStep === null ? null : { step: s.lastValueStep, value: s.lastValue! },
            lastPoint: await seriesEnd(store, request.auth.orgId, run.id, s.logName, s),
          });
        }
        return {
          runId: run.id,
          runName: run.name,
          projectName: run.projectName,
          url: runUrl(baseUrl(request, config.publicUrl), run.projectName, run.id),
          metrics,
        };
      },
    );

    app.get(
      "/api/runs/compare",
      { schema: { tags, querystring: CompareQuery, response: { 200: CompareResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, logName } = request.query;
        const runIds = parseRunIds(request.query.runIds, "runIds", MAX_COMPARED_RUNS);
        const { orgId } = request.auth;
        const project = await projectOf(store, orgId, projectName);
        const summaries = new Map(
          (await store.listRunMetricSummaries(orgId, project.id, logName, runIds)).map((entry) => [entry.runId, entry.summary]),
        );
        const base = baseUrl(request, config.publicUrl);
        const runs = [];
        for (const run of await store.getRuns(orgId, runIds)) {
          if (run.projectId !== project.id) continue;
          const runId = run.id;
          const summary = summaries.get(runId);
          const { count, min, max, mean } = summary ? statistics(summary) : ({} as ReturnType<typeof statistics>);
          runs.push({
            runId,
            runName: run.name,
            url: runUrl(base, projectName, runId),
            status: run.status,
            config: run.config,
            stats: summary
              ? { count, min, max, mean, final: summary.lastValue, lastPoint: await seriesEnd(store, orgId, runId, logName, summary) }
              : null,
          });
        }
        return {
          projectName,
          logName,
          comparisonUrl: comparisonUrl(
            base,
            projectName,
            runs.map((run) => run.runId),
          ),
          runs,
        };
      },
    );

    app.get(
      "/api/runs/leaderboard",
      { schema: { tags, querystring: LeaderboardQuery, response: { 200: LeaderboardResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, logName, aggregation, direction, limit, offset } = request.query;
        const { orgId } = request.auth;
        const project = await projectOf(store, orgId, projectName);
        const summaries = new Map(
          (await store.listRunMetricSummaries(orgId, project.id, logName)).map((entry) => [entry.runId, entry.summary]),
        );
        const entries = [...summaries]
          .map(([runId, summary]) => leaderboardEntry(runId, summary, aggregation))
          .filter((entry) => entry !== undefined);
        const ranked = rankRuns(entries, direction);
        const base = baseUrl(request, config.publicUrl);
        const page = ranked.slice(offset, offset + limit);
        const pageRuns = await store.getRuns(
          orgId,
          page.map((entry) => entry.runId),
        );
        const runsById = new Map(pageRuns.map((run) => [run.id, run]));
        const runs = [];
        for (const [position, entry] of page.entries()) {
          const run = runsById.get(entry.runId)!;
          runs.push({
            rank: offset + position + 1,
            runId: run.id,
            runName: run.name,
            status: run.status,
            url: runUrl(base, projectName, run.id),
            value: entry.value,
            lastPoint: await seriesEnd(store, orgId, run.id, logName, summaries.get(run.id)!),
            tags: run.tags,
            createdAt: toIso(run.createdAt),
            config: run.config,
          });
        }
        return { projectName, logName, aggregation, direction, runs, total: ranked.length };
      },
    );

    app.get(
      "/api/runs/metric-names",
      { schema: { tags, querystring: MetricNamesQuery, response: { 200: MetricNamesResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { projectName, search, limit } = request.query;
        const project = await projectOf(store, request.auth.orgId, projectName);
        const runIds = request.query.runIds === undefined ? undefined : parseRunIds(request.query.runIds, "runIds", 1000);
        return { projectName, metricNames: await store.listMetricNames(request.auth.orgId, project.id, { search, runIds, limit }) };
      },
    );
  };
}
