import { auditContext } from "../../audit-context.js";
import type { FastifyInstance } from "fastify";
import { checkKey, checkName, LIMITS } from "../../../domain/mlflow/model.js";
import { EXPERIMENT_ATTRIBUTES, parseFilter, parseOrderBy } from "../../../domain/mlflow/search.js";
import { viewTypeOf } from "../../../domain/mlflow/views.js";
import { NAME_LIMITS } from "../../../domain/names.js";
import type { RouteDeps } from "../../deps.js";
import {
  endpoints,
  experimentJson,
  fieldsOf,
  listOf,
  maxResultsOf,
  nextPage,
  optionalString,
  orgOf,
  requiredString,
  experimentTagsOf,
} from "./common.js";

/** MLflow's experiments (Stepwise projects): create, get, search, rename, delete, restore, tags. */
export function experimentRoutes({ services: { mlflowExperiments: experiments } }: RouteDeps) {
  return async (app: FastifyInstance) => {
    const { get, post, postAs, getAndPost } = endpoints(app);

    post("/experiments/create", async (request) => {
      const fields = fieldsOf(request);
      const name = checkName(requiredString(fields, "name"), "name", NAME_LIMITS.projectName);
      const tags = experimentTagsOf(listOf(fields, "tags"), "tags");
      return { experiment_id: await experiments.create(orgOf(request), name, tags) };
    });

    get("/experiments/get", async (request) => {
      return { experiment: experimentJson(await experiments.find(orgOf(request), fieldsOf(request).experiment_id)) };
    });

    get("/experiments/get-by-name", async (request) => {
      const name = requiredString(fieldsOf(request), "experiment_name");
      return { experiment: experimentJson(await experiments.getByName(orgOf(request), name)) };
    });

    getAndPost("/experiments/search", async (request) => {
      const fields = fieldsOf(request);
      const result = await experiments.search(orgOf(request), {
        maxResults: maxResultsOf(fields, "max_results", 1000, LIMITS.maxResults),
        clauses: parseFilter(optionalString(fields, "filter"), EXPERIMENT_ATTRIBUTES),
        terms: parseOrderBy(listOf(fields, "order_by").map(String), EXPERIMENT_ATTRIBUTES),
        viewType: viewTypeOf(optionalString(fields, "view_type")),
        pageToken: optionalString(fields, "page_token"),
      });
      return { experiments: result.experiments.map(experimentJson), ...nextPage(result.nextPageToken) };
    });

    post("/experiments/update", async (request) => {
      const fields = fieldsOf(request);
      const project = await experiments.find(orgOf(request), fields.experiment_id);
      const newName = checkName(requiredString(fields, "new_name"), "new_name", NAME_LIMITS.projectName);
      await experiments.rename(orgOf(request), project, newName);
      return {};
    });

    // Deleting and restoring an experiment (a project) is an admin's, as in Stepwise's own API.
    for (const [path, deleted] of [
      ["/experiments/delete", true],
      ["/experiments/restore", false],
    ] as const)
      postAs("admin", path, async (request) => {
        await experiments.setDeleted(auditContext(request), fieldsOf(request).experiment_id, deleted);
        return {};
      });

    post("/experiments/set-experiment-tag", async (request) => {
      const fields = fieldsOf(request);
      const project = await experiments.find(orgOf(request), fields.experiment_id);
      const [tag] = experimentTagsOf([{ key: fields.key, value: fields.value }], "tag");
      await experiments.setTag(orgOf(request), project, tag!);
      return {};
    });

    post("/experiments/delete-experiment-tag", async (request) => {
      const fields = fieldsOf(request);
      const project = await experiments.find(orgOf(request), fields.experiment_id);
      await experiments.deleteTag(orgOf(request), project, checkKey(fields.key, "key"));
      return {};
    });
  };
}
