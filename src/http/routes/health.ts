import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import type { AppDeps } from "../../app.js";

/** Public, so the OpenAPI document overrides its global bearer requirement for these routes. */
const PUBLIC = { tags: ["health"], security: [] };

/** Public probes: liveness answers while the process runs; readiness touches the store and the blob store. */
export function healthRoutes({ store, blobs }: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get("/api/health", { schema: { ...PUBLIC, response: { 200: Type.String() } } }, async (_request, reply) => {
      reply.type("text/plain");
      return "OK";
    });

    app.get(
      "/api/health/ready",
      { schema: { ...PUBLIC, response: { 200: Type.Object({ status: Type.String() }), 503: Type.Object({ error: Type.String() }) } } },
      async (request, reply) => {
        try {
          await store.ping();
          await blobs.check();
          return { status: "ready" };
        } catch (error) {
          request.log.error({ err: error }, "readiness check failed");
          return reply.status(503).send({ error: "store unavailable" });
        }
      },
    );
  };
}
