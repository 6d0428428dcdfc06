import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { statfs } from "node:fs/promises";
import type { RouteDeps } from "../deps.js";
import { lowDiskSpace, storeUnavailability, type Unavailability } from "../../store/unavailable.js";
import { sendUnavailable } from "../errors.js";

/** Public, so the OpenAPI document overrides its global bearer requirement for these routes. */
const PUBLIC = { tags: ["health"], security: [] };

/**
 * Public probes: liveness answers while the process runs; readiness reads the store, takes its
 * write lock, checks the blob store and the free space of the data directory, and answers 503 with
 * the reason and a Retry-After when the store is locked by another process or the disk is (almost) full.
 */
export function healthRoutes({ store, blobs, config }: RouteDeps): FastifyPluginAsyncTypebox {
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
          const { bavail, bsize } = await statfs(config.dataDir);
          const lowSpace = lowDiskSpace(bavail * bsize, config.minFreeSpaceBytes);
          if (lowSpace) return sendUnavailable(reply, lowSpace);
          return { status: "ready" };
        } catch (error) {
          request.log.error({ err: error }, "readiness check failed");
          return sendUnavailable(reply, storeUnavailability(error) ?? UNREACHABLE);
        }
      },
    );
  };
}

const UNREACHABLE: Unavailability = { cause: "unreachable", message: "store unavailable", retryAfterSeconds: 1 };
