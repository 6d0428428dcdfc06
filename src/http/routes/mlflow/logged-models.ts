import type { FastifyInstance } from "fastify";
import { invalidParameter } from "../../../domain/mlflow/errors.js";
import { modelMaxResults, parseModelFilter, parseModelOrderBy, parseWireStatus, wireStatus } from "../../../domain/mlflow/logged-models.js";
import { checkKey } from "../../../domain/mlflow/model.js";
import type { ModelView } from "../../../services/mlflow-logged-models.js";
import type { RouteDeps } from "../../deps.js";
import {
  endpoints,
  fieldsOf,
  mlflowRoute,
  listOf,
  nextPage,
  optionalString,
  orgOf,
  paramsOfList,
  requiredString,
  tagsOf,
} from "./common.js";

const pairs = (list: readonly (readonly [string, string])[]) => list.map(([key, value]) => ({ key, value }));

/** A logged model as MLflow's server answers it (LoggedModel.to_proto): unset fields and empty lists left out. */
export function loggedModelJson(model: ModelView) {
  return {
    info: {
      model_id: model.id,
      experiment_id: model.experimentId,
      name: model.name,
      creation_timestamp_ms: model.createdAt,
      last_updated_timestamp_ms: model.updatedAt,
      artifact_uri: model.artifactUri,
      status: wireStatus(model.status),
      ...(model.modelType !== null ? { model_type: model.modelType } : {}),
      ...(model.sourceMlflowRunId !== null ? { source_run_id: model.sourceMlflowRunId } : {}),
      ...(model.tags.length > 0 ? { tags: pairs(model.tags) } : {}),
    },
    data: model.params.length > 0 ? { params: pairs(model.params) } : {},
  };
}

interface ModelParams {
  model_id: string;
}
interface TagParams extends ModelParams {
  tag_key: string;
}

/**
 * MLflow 3's logged models (docs/api.md, "MLflow's REST API: logged models"): create, finalize,
 * get, delete, search, tags, params. Their files go through the artifact proxy (artifacts.ts).
 */
export function loggedModelRoutes({ services: { mlflowLoggedModels: models } }: RouteDeps) {
  return async (app: FastifyInstance) => {
    const { get, post, postAs } = endpoints(app);
    const HIDDEN = { schema: { hide: true } };
    const modelIdOf = (request: { params: unknown }) => (request.params as ModelParams).model_id;

    post("/logged-models", async (request) => {
      const fields = fieldsOf(request);
      const model = await models.create(orgOf(request), {
        experimentId: requiredString(fields, "experiment_id"),
        name: optionalString(fields, "name"),
        modelType: optionalString(fields, "model_type"),
        sourceRunId: optionalString(fields, "source_run_id"),
        params: paramsOfList(listOf(fields, "params")),
        tags: tagsOf(listOf(fields, "tags"), "tags"),
      });
      return { model: loggedModelJson(model) };
    });

    postAs("viewer", "/logged-models/search", async (request) => {
      const fields = fieldsOf(request);
      const datasets = listOf(fields, "datasets");
      if (
        datasets.some(
          (d) =>
            typeof (d as { dataset_name?: unknown } | null)?.dataset_name !== "string" ||
            (d as { dataset_name: string }).dataset_name === "",
        )
      )
        throw invalidParameter("`dataset_name` in the `datasets` clause must be specified.");
      const result = await models.search(orgOf(request), {
        experimentIds: listOf(fields, "experiment_ids"),
        clauses: parseModelFilter(optionalString(fields, "filter")),
        order: parseModelOrderBy(listOf(fields, "order_by") as { field_name?: unknown; ascending?: unknown }[]),
        datasets: datasets.length,
        maxResults: modelMaxResults(fields.max_results),
        pageToken: optionalString(fields, "page_token") || undefined,
      });
      return { models: result.models.map(loggedModelJson), ...nextPage(result.nextPageToken) };
    });

    get("/logged-models/:model_id", async (request) => {
      const allowDeleted = String(fieldsOf(request).allow_deleted ?? "false").toLowerCase() === "true";
      return { model: loggedModelJson(await models.find(orgOf(request), modelIdOf(request), allowDeleted)) };
    });

    app.patch("/logged-models/:model_id", HIDDEN, async (request) => {
      const fields = fieldsOf(request);
      if (fields.status === undefined || fields.status === null) throw invalidParameter("Missing value for required parameter 'status'");
      return { model: loggedModelJson(await models.finalize(orgOf(request), modelIdOf(request), parseWireStatus(fields.status))) };
    });

    app.delete("/logged-models/:model_id", mlflowRoute("admin"), async (request) => {
      await models.delete(orgOf(request), modelIdOf(request));
      return {};
    });

    app.patch("/logged-models/:model_id/tags", HIDDEN, async (request) => {
      const tags = tagsOf(listOf(fieldsOf(request), "tags"), "tags");
      return { model: loggedModelJson(await models.setTags(orgOf(request), modelIdOf(request), tags)) };
    });

    app.delete("/logged-models/:model_id/tags/:tag_key", HIDDEN, async (request) => {
      const { model_id, tag_key } = request.params as TagParams;
      await models.deleteTag(orgOf(request), model_id, checkKey(tag_key, "tag_key"));
      return {};
    });

    post("/logged-models/:model_id/params", async (request) => {
      await models.logParams(orgOf(request), modelIdOf(request), paramsOfList(listOf(fieldsOf(request), "params")));
      return {};
    });
  };
}
