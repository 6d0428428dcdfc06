import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { RouteDeps } from "../deps.js";
import { INGEST_BODY_LIMIT, LARGE_BODIES_BUDGET } from "../body-limits.js";
import { runNotFound } from "../../domain/errors.js";
import { admitLargeBodies, LargeBodyBudget } from "../large-bodies.js";
import type { NdjsonKind } from "../../services/ingest.js";
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

/** Each ingest route: what its body holds (services/ingest.ts), its description, an example line. */
const ROUTES: [NdjsonKind, string, object][] = [
  ["metrics", "Metric points: {time, step, data: {name: value}} per line.", { time: 1_700_000_000_000, step: 0, data: { loss: 0.5 } }],
  [
    "logs",
    "Console lines: {time, message, lineNumber, logType, step?} per line.",
    { time: 1_700_000_000_000, message: "epoch 1", lineNumber: 0, logType: "INFO" },
  ],
  [
    "data",
    "Data rows: {time, step, logName, dataType, data} per line.",
    { time: 1_700_000_000_000, step: 0, logName: "table", dataType: "TABLE", data: JSON.stringify({ columns: ["a"], rows: [[1]] }) },
  ],
];

/**
 * The NDJSON ingest routes. A body is decoded and validated whole before anything is stored,
 * then stored in one transaction; the 200 comes after the commit, so an acknowledged point is on disk.
 */
export function ingestRoutes({ store, services: { ingest } }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Clients send application/x-ndjson, text/plain, nothing, or even malformed types: every body is
    // read as NDJSON text here, whatever the header says, so the type is normalized before parsing.
    app.addHook("onRequest", async (request) => {
      request.headers["content-type"] = "application/x-ndjson";
    });
    app.addHook("onRequest", admitLargeBodies(new LargeBodyBudget(LARGE_BODIES_BUDGET), INGEST_BODY_LIMIT));
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string", bodyLimit: INGEST_BODY_LIMIT }, (_request, text, done) => done(null, text));

    for (const [kind, description, example] of ROUTES)
      app.post(`/ingest/${kind}`, { bodyLimit: INGEST_BODY_LIMIT, schema: schema(description, example) }, async (request) => {
        const run = await resolveIngestRun(store, request);
        const accepted = await ingest.ndjson(kind, request.auth.orgId, run.id, request.body ?? "");
        if (accepted === undefined) throw runNotFound(run.id);
        return { accepted };
      });
  };
}
