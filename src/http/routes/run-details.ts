import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "typebox";
import { invalidInput, runNotFound } from "../../domain/errors.js";
import { decodeRunId } from "../../domain/ids.js";
import type { RouteDeps } from "../deps.js";
import { runOfMlflowRunId } from "../../services/mlflow-links.js";
import { getRunByDisplayId } from "../../services/run-lookup.js";
import { toAlert, toRunDetails, toStatusEvent } from "../presenters.js";
import { RunIdQuery, STANDARD_ERRORS } from "../schemas/common.js";
import {
  AlertsResponse,
  DecodedRunIdResponse,
  type ModelGraph,
  DisplayIdParams,
  DisplayIdQuery,
  EncodedRunIdParams,
  MlflowRunIdParams,
  ModelGraphResponse,
  NumericRunIdParams,
  RunDetails,
  RunDetailsByDisplayId,
  StatusHistoryResponse,
} from "../schemas/runs.js";

const tags = ["runs"];

/** Reads of one run: details, status timeline, model graph, alerts, and the encoded-ID decoder. */
export function runDetailRoutes({ store }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/details/:runId",
      { schema: { tags, params: NumericRunIdParams, response: { 200: RunDetails, ...STANDARD_ERRORS } } },
      async (request) => {
        const { orgId } = request.auth;
        const run = await store.getRun(orgId, request.params.runId);
        if (!run) throw runNotFound(request.params.runId);
        return toRunDetails(run, await store.listLogNames(orgId, run.id), await store.listForks(orgId, run.id));
      },
    );

    app.get(
      "/api/runs/details/by-display-id/:displayId",
      {
        schema: {
          tags,
          params: DisplayIdParams,
          querystring: DisplayIdQuery,
          response: { 200: RunDetailsByDisplayId, ...STANDARD_ERRORS, 409: STANDARD_ERRORS[400] },
        },
      },
      async (request) => {
        const { orgId } = request.auth;
        const run = await getRunByDisplayId(store, orgId, request.params.displayId, request.query.projectName);
        return toRunDetails(run, await store.listLogNames(orgId, run.id));
      },
    );

    app.get(
      "/api/runs/details/by-mlflow-id/:mlflowRunId",
      { schema: { tags, params: MlflowRunIdParams, response: { 200: RunDetails, ...STANDARD_ERRORS } } },
      async (request) => {
        const { orgId } = request.auth;
        const run = await runOfMlflowRunId(store, orgId, request.params.mlflowRunId);
        return toRunDetails(run, await store.listLogNames(orgId, run.id), await store.listForks(orgId, run.id));
      },
    );

    app.get(
      "/api/runs/status/history",
      { schema: { tags, querystring: RunIdQuery, response: { 200: StatusHistoryResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const events = await store.listStatusEvents(request.auth.orgId, request.query.runId);
        if (!events) throw runNotFound(request.query.runId);
        return { runId: request.query.runId, events: events.map(toStatusEvent) };
      },
    );

    app.get(
      "/api/runs/modelGraph",
      { schema: { tags, querystring: RunIdQuery, response: { 200: ModelGraphResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const graph = await store.getModelGraph(request.auth.orgId, request.query.runId);
        if (graph === undefined) throw runNotFound(request.query.runId);
        return { runId: request.query.runId, graph: graph as Static<typeof ModelGraph> | null };
      },
    );

    app.get(
      "/api/runs/alerts",
      { schema: { tags, querystring: RunIdQuery, response: { 200: AlertsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const alerts = await store.listAlerts(request.auth.orgId, request.query.runId);
        if (!alerts) throw runNotFound(request.query.runId);
        return { alerts: alerts.map(toAlert) };
      },
    );

    // Registered last among /api/runs/* GETs only for readability: static paths win over this parametric one anyway.
    app.get(
      "/api/runs/:runId",
      { schema: { tags, params: EncodedRunIdParams, response: { 200: DecodedRunIdResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const runId = decodeRunId(request.params.runId);
        if (runId === undefined) throw invalidInput(`runId: '${request.params.runId}' is not an encoded run ID`);
        return { runId };
      },
    );
  };
}
