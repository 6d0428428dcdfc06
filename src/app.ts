import cookie from "@fastify/cookie";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance } from "fastify";
import { checkClientJson } from "./domain/json-text.js";
import { authenticate } from "./http/auth.js";
import { DEFAULT_BODY_LIMIT } from "./http/body-limits.js";
import type { AppDeps, RouteDeps } from "./http/deps.js";
import { connectionsCheckingInterval, limitConnections } from "./http/connection-limits.js";
import { errorHandler, notFoundHandler } from "./http/errors.js";
import { instrument } from "./http/metrics.js";
import { fileRoutes, signedFileRoutes } from "./http/routes/files.js";
import { healthRoutes } from "./http/routes/health.js";
import { oidcRoutes } from "./http/routes/oidc.js";
import { ingestRoutes } from "./http/routes/ingest.js";
import { logRoutes } from "./http/routes/logs.js";
import { metricRoutes } from "./http/routes/metrics.js";
import { modelRoutes } from "./http/routes/models.js";
import { mlflowRoutes } from "./http/routes/mlflow/index.js";
import { statsRoutes } from "./http/routes/stats.js";
import { projectRoutes } from "./http/routes/projects.js";
import { runListRoutes } from "./http/routes/run-list.js";
import { sweepRoutes } from "./http/routes/sweep.js";
import { runDetailRoutes } from "./http/routes/run-details.js";
import { runWriteRoutes } from "./http/routes/runs.js";
import { savedViewRoutes } from "./http/routes/saved-views.js";
import { alertRoutes } from "./http/routes/alerts.js";
import { auditRoutes } from "./http/routes/audit.js";
import { deletionRoutes } from "./http/routes/deletion.js";
import { keyRoutes } from "./http/routes/keys.js";
import { sessionRoutes, signOutRoutes } from "./http/routes/sessions.js";
import { memberRoutes, passwordRoutes } from "./http/routes/people.js";
import { FieldFilterTerm, RunFilterGrammar } from "./http/schemas/run-list.js";
import { rejectIllFormedText, rejectNonFiniteNumbers, requestIdOf, requestLogFields } from "./http/request-guards.js";
import { pageNotFound, webUiRoutes } from "./http/web-ui.js";
import { createServices, type Services } from "./services/services.js";

export type { AppDeps };

/** Builds the whole HTTP application from its dependencies; never listens (main and tests do). */
export async function buildApp(deps: AppDeps, services: Services = createServices(deps)): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.config.logLevel === "silent" ? false : { level: deps.config.logLevel, serializers: { req: requestLogFields } },
    bodyLimit: DEFAULT_BODY_LIMIT,
    keepAliveTimeout: deps.config.keepAliveTimeoutMs,
    // request.ip (the audit log's source address): the peer's, or X-Forwarded-For's behind these proxies.
    ...(deps.config.trustProxy === "" ? {} : { trustProxy: deps.config.trustProxy }),
    http: { connectionsCheckingInterval: connectionsCheckingInterval(deps.config) },
    // The client's X-Request-Id only when it is a short safe token (request-guards.ts), else a new one.
    requestIdHeader: false,
    genReqId: requestIdOf,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: "array", useDefaults: true, allErrors: false, discriminator: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  limitConnections(app.server, deps.config);
  instrument(app, deps.metrics, deps.config);
  const routeDeps: RouteDeps = { ...deps, services };
  if (app.log) services.alerts.evaluator.log = app.log;
  app.setErrorHandler(errorHandler);
  // Clients post some bodyless requests (POST /api/slug) with a JSON content type; an empty body is "no body".
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "") done(null, undefined);
    else
      parseJson(request, body as string, (error, value) => {
        if (error) return done(error);
        try {
          checkClientJson(body as string, value, "body");
        } catch (refused) {
          return done(refused as Error);
        }
        done(null, value);
      });
  });
  app.setNotFoundHandler(pageNotFound(notFoundHandler, undefined, deps.blobs.direct?.origin));
  app.addHook("preValidation", rejectIllFormedText);
  app.addHook("preHandler", rejectNonFiniteNumbers);
  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Stepwise API", version: "1.0.0", description: "Experiment tracking: runs, metrics, logs and files." },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key (sw_...)" } },
        // The filter grammars travel as JSON text in query parameters; their shapes are published here.
        // (TypeBox schemas are plain JSON Schema objects; the OpenAPI typings just do not know their classes.)
        schemas: { RunFilterGrammar, FieldFilterTerm } as Record<string, object>,
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: "/api/docs" });
  app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  await app.register(cookie);
  await app.register(healthRoutes(routeDeps));
  await app.register(signOutRoutes(routeDeps));
  await app.register(passwordRoutes(routeDeps));
  await app.register(oidcRoutes(routeDeps));
  await app.register(webUiRoutes(undefined, deps.blobs.direct?.origin));
  await app.register(signedFileRoutes(routeDeps));
  await app.register(async (api) => {
    api.addHook("onRequest", authenticate(deps.store, deps.clock, services.sessions, deps.config.publicUrl));
    await api.register(sessionRoutes(routeDeps));
    await api.register(memberRoutes(routeDeps));
    await api.register(projectRoutes(routeDeps));
    await api.register(runWriteRoutes(routeDeps));
    await api.register(runDetailRoutes(routeDeps));
    await api.register(runListRoutes(routeDeps));
    await api.register(sweepRoutes(routeDeps));
    await api.register(ingestRoutes(routeDeps));
    await api.register(metricRoutes(routeDeps));
    await api.register(statsRoutes(routeDeps));
    await api.register(logRoutes(routeDeps));
    await api.register(fileRoutes(routeDeps));
    await api.register(modelRoutes(routeDeps));
    await api.register(savedViewRoutes(routeDeps));
    await api.register(alertRoutes(routeDeps));
    await api.register(deletionRoutes(routeDeps));
    await api.register(auditRoutes(routeDeps));
    await api.register(keyRoutes(routeDeps));
    await api.register(mlflowRoutes(routeDeps));
  });
  return app;
}
