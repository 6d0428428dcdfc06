import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { RouteDeps } from "../deps.js";
import { INGEST_BODY_LIMIT, LARGE_BODIES_BUDGET } from "../body-limits.js";
import { runNotFound } from "../../domain/errors.js";
import { decodeConsoleLines, decodeDataRows, decodeMetrics } from "../../ingest/decode.js";
import { admitLargeBodies, LargeBodyBudget } from "../large-bodies.js";
import { appendConsoleLinesInSlices, appendDataRowsInSlices, appendMetricsInSlices } from "../../services/ingest.js";
import { resolveIngestRun } from "../ingest-target.js";
import { ErrorResponse, STANDARD_ERRORS } from "../schemas/common.js";

const headers = Type.Object({
  "x-run-id": Type.String({ pattern: "^\\s*\\d+\\s*$", description: "Numeric run ID." }),
  "x-project-name": Type.String({ minLength: 1, description: "Project of the run." }),
});
const schema = (description: string, example: object) => ({
  tags: ["ingest"],
  description,
  headers,
  body: Type.String({ description: "NDJSON: one JSON object per line.", examples: [JSON.stringify(example)] }),
  response: { 200: Type.Object({ accepted: Type.Integer() }), ...STANDARD_ERRORS, 413: ErrorResponse },
});

/**
 * The NDJSON ingest routes. A body is decoded and validated whole before anything is stored,
 * then stored in one transaction; the 200 comes after the commit, so an acknowledged point is on disk.
 */
export function ingestRoutes({ store, clock }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Clients send application/x-ndjson, text/plain, nothing, or even malformed types: every body is
    // read as NDJSON text here, whatever the header says, so the type is normalized before parsing.
    app.addHook("onRequest", async (request) => {
      request.headers["content-type"] = "application/x-ndjson";
    });
    app.addHook("onRequest", admitLargeBodies(new LargeBodyBudget(LARGE_BODIES_BUDGET), INGEST_BODY_LIMIT));
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string", bodyLimit: INGEST_BODY_LIMIT }, (_request, text, done) => done(null, text));

    app.post(
      "/ingest/metrics",
      {
        bodyLimit: INGEST_BODY_LIMIT,
        schema: schema("Metric points: {time, step, data: {name: value}} per line.", {
          time: 1_700_000_000_000,
          step: 0,
          data: { loss: 0.5 },
        }),
      },
      async (request) => {
        const run = await resolveIngestRun(store, request);
        const batch = await decodeMetrics(request.body ?? "");
        const accepted = await appendMetricsInSlices(store, request.auth.orgId, run.id, batch.series, clock.now());
        if (accepted === undefined) throw runNotFound(run.id);
        return { accepted };
      },
    );

    app.post(
      "/ingest/logs",
      {
        bodyLimit: INGEST_BODY_LIMIT,
        schema: schema("Console lines: {time, message, lineNumber, logType, step?} per line.", {
          time: 1_700_000_000_000,
          message: "epoch 1",
          lineNumber: 0,
          logType: "INFO",
        }),
      },
      async (request) => {
        const run = await resolveIngestRun(store, request);
        const lines = await decodeConsoleLines(request.body ?? "");
        const accepted = await appendConsoleLinesInSlices(store, request.auth.orgId, run.id, lines, clock.now());
        if (accepted === undefined) throw runNotFound(run.id);
        return { accepted };
      },
    );

    app.post(
      "/ingest/data",
      {
        bodyLimit: INGEST_BODY_LIMIT,
        schema: schema("Data rows: {time, step, logName, dataType, data} per line.", {
          time: 1_700_000_000_000,
          step: 0,
          logName: "table",
          dataType: "TABLE",
          data: JSON.stringify({ columns: ["a"], rows: [[1]] }),
        }),
      },
      async (request) => {
        const run = await resolveIngestRun(store, request);
        const rows = await decodeDataRows(request.body ?? "");
        const accepted = await appendDataRowsInSlices(store, request.auth.orgId, run.id, rows, clock.now());
        if (accepted === undefined) throw runNotFound(run.id);
        return { accepted };
      },
    );
  };
}
