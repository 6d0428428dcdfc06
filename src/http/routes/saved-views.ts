import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { MAX_VIEW_STATE_BYTES } from "../../domain/saved-views.js";
import { createView, deleteView, getView, listViews, updateView } from "../../services/saved-views.js";
import { ErrorResponse, STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import { CreateViewBody, ListViewsQuery, UpdateViewBody, ViewIdParams, ViewListResponse, ViewResponse } from "../schemas/saved-views.js";

const tags = ["views"];
const WRITE_ERRORS = { ...STANDARD_ERRORS, 409: ErrorResponse, 413: ErrorResponse };
// The state's own bound is checked on its JSON as stored (domain/saved-views.ts); the body may hold
// more (the name, the project, whitespace and escapes the stored JSON drops): twice the bound, 512 KiB.
const bodyLimit = 2 * MAX_VIEW_STATE_BYTES;

/** Saved views of a project's page (docs/api.md, "Saved views"): list, create, read, update, delete. */
export function savedViewRoutes({ store, clock }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/views",
      { schema: { tags, querystring: ListViewsQuery, response: { 200: ViewListResponse, ...STANDARD_ERRORS } } },
      async (request) => listViews(store, request.auth.orgId, request.query),
    );

    app.post(
      "/api/runs/views",
      { bodyLimit, schema: { tags, body: CreateViewBody, response: { 200: ViewResponse, ...WRITE_ERRORS } } },
      async (request) => createView(store, request.auth.orgId, request.body, clock.now()),
    );

    app.get(
      "/api/runs/views/:viewId",
      { schema: { tags, params: ViewIdParams, response: { 200: ViewResponse, ...STANDARD_ERRORS } } },
      async (request) => getView(store, request.auth.orgId, request.params.viewId),
    );

    app.patch(
      "/api/runs/views/:viewId",
      { bodyLimit, schema: { tags, params: ViewIdParams, body: UpdateViewBody, response: { 200: ViewResponse, ...WRITE_ERRORS } } },
      async (request) => updateView(store, request.auth.orgId, request.params.viewId, request.body, clock.now()),
    );

    app.delete(
      "/api/runs/views/:viewId",
      { schema: { tags, params: ViewIdParams, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => deleteView(store, request.auth.orgId, request.params.viewId),
    );
  };
}
