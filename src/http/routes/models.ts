import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import {
  ModelListQuery,
  ModelListResponse,
  ModelNameParams,
  ModelResponse,
  ModelsOfRunParams,
  ModelsOfRunQuery,
  ModelsOfRunResponse,
  ModelVersionsQuery,
} from "../schemas/models.js";
import { getModel, listModels, modelsOfRun } from "../../services/model-views.js";

const tags = ["models"];

/** The web UI's reads of models: registered models, one model's versions, and what a run logged (docs/api.md, "Models"). */
export function modelRoutes({ store }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/models",
      { schema: { tags, querystring: ModelListQuery, response: { 200: ModelListResponse, ...STANDARD_ERRORS } } },
      async (request) => listModels(store, request.auth.orgId, request.query),
    );

    app.get(
      "/api/runs/models/of-run/:runId",
      {
        schema: {
          tags,
          params: ModelsOfRunParams,
          querystring: ModelsOfRunQuery,
          response: { 200: ModelsOfRunResponse, ...STANDARD_ERRORS },
        },
      },
      async (request) => modelsOfRun(store, request.auth.orgId, request.params.runId, request.query.limit),
    );

    app.get(
      "/api/runs/models/:name",
      {
        schema: {
          tags,
          params: ModelNameParams,
          querystring: ModelVersionsQuery,
          response: { 200: ModelResponse, ...STANDARD_ERRORS },
        },
      },
      async (request) => getModel(store, request.auth.orgId, request.params.name, request.query),
    );
  };
}
