import type { FastifyInstance } from "fastify";
import type { RouteDeps } from "../../deps.js";
import { MlflowError } from "../../../domain/mlflow/errors.js";
import { mlflowErrorHandler } from "../../errors.js";
import { artifactRoutes } from "./artifacts.js";
import { experimentRoutes } from "./experiments.js";
import { loggedModelRoutes } from "./logged-models.js";
import { metricRoutes } from "./metrics.js";
import { registryRoutes } from "./registry.js";
import { runRoutes } from "./runs.js";

/** Where MLflow's client finds the tracking API and the artifact proxy: under /api and /ajax-api, as on MLflow's server. */
export const MLFLOW_PREFIXES = ["/api/2.0/mlflow", "/ajax-api/2.0/mlflow"] as const;
export const MLFLOW_ARTIFACT_PREFIXES = ["/api/2.0/mlflow-artifacts", "/ajax-api/2.0/mlflow-artifacts"] as const;

/**
 * MLflow's REST tracking API and artifact proxy (docs/api.md, "MLflow's REST API"), authenticated
 * like every route (the parent scope's hook), answering errors in MLflow's body and status codes.
 */
export function mlflowRoutes(deps: RouteDeps) {
  const artifacts = artifactRoutes(deps);
  const scope = (routes: (app: FastifyInstance) => Promise<void>) => async (app: FastifyInstance) => {
    app.setErrorHandler(mlflowErrorHandler);
    app.setNotFoundHandler(async (request) => {
      throw new MlflowError("ENDPOINT_NOT_FOUND", `No MLflow endpoint ${request.method} ${request.url.split("?")[0]}`);
    });
    await routes(app);
  };
  return async (app: FastifyInstance) => {
    for (const prefix of MLFLOW_PREFIXES) {
      const resources = [
        experimentRoutes(deps),
        loggedModelRoutes(deps),
        runRoutes(deps),
        metricRoutes(deps),
        registryRoutes(deps),
        artifacts.tracking,
      ];
      await app.register(
        scope(async (api) => {
          for (const routes of resources) await routes(api);
        }),
        { prefix },
      );
    }
    for (const prefix of MLFLOW_ARTIFACT_PREFIXES) await app.register(scope(artifacts.proxy), { prefix });
  };
}
