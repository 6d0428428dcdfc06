import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { CONSOLE_LOG_TYPES, consoleLogTypeOf } from "../../domain/console-logs.js";
import { invalidInput } from "../../domain/errors.js";
import { READ_PAGE_BYTES } from "../../domain/paging.js";
import { toIso } from "../../domain/time.js";
import { getRunInProject } from "../../services/run-lookup.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import { DataQuery, DataResponse, LogsQuery, LogsResponse } from "../schemas/logs.js";

/** Reads of console lines and data rows (histograms, tables, string series), paged by count and size (src/domain/paging.ts). */
export function logRoutes({ store }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/logs",
      { schema: { tags: ["logs"], querystring: LogsQuery, response: { 200: LogsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, limit, offset } = request.query;
        const logType = request.query.logType === undefined ? undefined : consoleLogTypeOf(request.query.logType);
        if (logType === undefined && request.query.logType !== undefined)
          throw invalidInput(`logType must be one of ${CONSOLE_LOG_TYPES.join(", ")} (in any case)`);
        const run = await getRunInProject(store, request.auth.orgId, runId, projectName);
        const page = await store.listConsoleLines(request.auth.orgId, run.id, { logType, limit, offset, maxBytes: READ_PAGE_BYTES });
        return { logs: page.items.map((line) => ({ ...line, time: toIso(line.time) })), total: page.total, nextOffset: page.nextOffset };
      },
    );

    app.get(
      "/api/runs/data",
      { schema: { tags: ["logs"], querystring: DataQuery, response: { 200: DataResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, logName, limit, offset } = request.query;
        const run = await getRunInProject(store, request.auth.orgId, runId, projectName);
        const page = await store.listDataRows(request.auth.orgId, run.id, { logName, limit, offset, maxBytes: READ_PAGE_BYTES });
        return { rows: page.items.map((row) => ({ ...row, time: toIso(row.time) })), nextOffset: page.nextOffset };
      },
    );
  };
}
