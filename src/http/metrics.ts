import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.js";
import type { ServerMetrics } from "../observability/metrics.js";
import type { UnavailableCause } from "../store/unavailable.js";

/** The route label of requests no route matched: their URLs are the client's to choose. */
const UNMATCHED_ROUTE = "(unmatched)";

// Keyed by the request, so every application in the process (tests start several) counts its own.
const unavailableCauses = new WeakMap<FastifyRequest, UnavailableCause>();

/** Records why a request is answered 503, for stepwise_unavailable_total (errors.ts calls it as it answers). */
export function noteUnavailable(request: FastifyRequest, cause: UnavailableCause): void {
  unavailableCauses.set(request, cause);
}

/**
 * Counts every response by method, route template and status with its duration, and each 503 by
 * its cause; counts accepted connections and reports the open ones; serves GET /metrics unless
 * --metrics=false, behind `Authorization: Bearer <--metrics-token>` when a token is set. Called on
 * the root application before any route, so its hooks see every route.
 */
export function instrument(app: FastifyInstance, metrics: ServerMetrics, config: Pick<Config, "metricsEnabled" | "metricsToken">): void {
  app.server.on("connection", () => metrics.connectionsAccepted.inc());
  metrics.watchConnections(
    () => new Promise((resolve, reject) => app.server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
  );
  app.addHook("onResponse", async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 503) metrics.unavailable.inc({ cause: unavailableCauses.get(request) ?? "other" });
  });
  if (!config.metricsEnabled) return;
  const expected = config.metricsToken === "" ? undefined : digest(config.metricsToken);
  app.get("/metrics", { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected && !presentsToken(request.headers.authorization, expected)) {
      return reply.status(401).header("www-authenticate", 'Bearer realm="metrics"').send({ error: "missing or wrong metrics token" });
    }
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}

/** Compared as digests, so the comparison takes the same time whatever the length or content presented. */
function presentsToken(header: string | undefined, expected: Buffer): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return timingSafeEqual(digest(bearer?.[1] ?? ""), expected) && bearer !== null;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}
