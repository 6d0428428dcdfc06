import type { FastifyInstance, FastifyRequest } from "fastify";
import { invalidParameter } from "../../../domain/mlflow/errors.js";
import {
  aliasesOf,
  checkAlias,
  checkModelName,
  latestVersions,
  MODEL_VERSION_FILTER,
  MODEL_VERSION_ORDER,
  parseVersion,
  REGISTERED_MODEL_FILTER,
  REGISTERED_MODEL_ORDER,
  REGISTRY_LIMITS,
  registryTag,
} from "../../../domain/mlflow/registry.js";
import { parseFilter, parseOrderBy } from "../../../domain/mlflow/search.js";
import type { ModelVersion, RegisteredModel } from "../../../store/store.js";
import type { RouteDeps } from "../../deps.js";
import type { Role } from "../../../domain/roles.js";
import { fieldsOf, listOf, maxResultsOf, mlflowRoute, nextPage, optionalString, orgOf, requiredString } from "./common.js";

const HIDDEN = { schema: { hide: true } };
const tagList = (tags: readonly [string, string][]) => tags.map(([key, value]) => ({ key, value }));
/** A repeated field as MLflow's server writes it: left out when empty. */
const listField = <T>(name: string, list: T[]) => (list.length > 0 ? { [name]: list } : {});

/** A model version as MLflow's ModelVersion message. */
export function modelVersionJson(model: RegisteredModel, v: ModelVersion) {
  return {
    name: model.name,
    version: String(v.version),
    creation_timestamp: v.createdAt,
    last_updated_timestamp: v.updatedAt,
    ...(v.userId ? { user_id: v.userId } : {}),
    current_stage: v.stage,
    // MLflow's server writes these three even when empty.
    description: v.description,
    source: v.source,
    run_id: v.runId,
    status: v.status,
    ...(v.statusMessage ? { status_message: v.statusMessage } : {}),
    ...listField("tags", tagList(v.tags)),
    run_link: v.runLink,
    ...listField("aliases", aliasesOf(model.aliases, v.version)),
  };
}

/** A registered model as MLflow's RegisteredModel message, with the latest version of each stage. */
export function registeredModelJson(model: RegisteredModel, versions: ModelVersion[]) {
  return {
    name: model.name,
    creation_timestamp: model.createdAt,
    last_updated_timestamp: model.updatedAt,
    ...(model.description ? { description: model.description } : {}),
    ...listField(
      "latest_versions",
      latestVersions(versions, []).map((v) => modelVersionJson(model, v)),
    ),
    ...listField("tags", tagList(model.tags)),
    ...listField(
      "aliases",
      model.aliases.map(([alias, version]) => ({ alias, version: String(version) })),
    ),
  };
}

/** A DELETE's fields: its JSON body (MLflow's client) or its query. */
function deleteFields(request: FastifyRequest): Record<string, unknown> {
  return { ...(request.query as Record<string, unknown>), ...fieldsOf(request) };
}

function tagsOf(list: unknown[]): [string, string][] {
  return list.map((item, i) => {
    const tag = (item ?? {}) as { key?: unknown; value?: unknown };
    return registryTag(tag.key, tag.value, `tags[${i}]`);
  });
}

function booleanOf(fields: Record<string, unknown>, name: string): boolean {
  const value = fields[name];
  if (value === undefined || value === null || value === false || value === "false") return false;
  if (value === true || value === "true") return true;
  throw invalidParameter(`Invalid value ${JSON.stringify(value)} for parameter '${name}': expected a boolean`);
}

const nameOf = (fields: Record<string, unknown>, field = "name") => checkModelName(optionalString(fields, field));
const versionField = (fields: Record<string, unknown>) => parseVersion(requiredString(fields, "version"));

/**
 * MLflow's model registry (docs/api.md, "MLflow's REST API: the model registry"): registered models,
 * versions, tags, aliases and stages, all of the caller's organization.
 */
export function registryRoutes({ services: { mlflowRegistry: registry } }: RouteDeps) {
  return async (app: FastifyInstance) => {
    type Handler = (request: FastifyRequest) => Promise<unknown>;
    const get = (path: string, handler: Handler) => app.get(path, HIDDEN, handler);
    const post = (path: string, handler: Handler) => app.post(path, HIDDEN, handler);
    const patch = (path: string, handler: Handler) => app.patch(path, HIDDEN, handler);
    /** A POST that only reads (a search): a viewer's (docs/semantics.md, "Roles"). */
    const postRead = (path: string, handler: Handler) => app.post(path, mlflowRoute("viewer"), handler);
    type DeleteHandler = (request: FastifyRequest, fields: Record<string, unknown>) => Promise<unknown>;
    const del = (path: string, handler: DeleteHandler, role?: Role) =>
      app.delete(path, mlflowRoute(role), (request) => handler(request, deleteFields(request)));

    post("/registered-models/create", async (request) => {
      const fields = fieldsOf(request);
      const name = nameOf(fields);
      const tags = tagsOf(listOf(fields, "tags"));
      const description = optionalString(fields, "description") ?? "";
      const { model, versions } = await registry.createModel(orgOf(request), { name, description, tags, aliases: [] });
      return { registered_model: registeredModelJson(model, versions) };
    });

    get("/registered-models/get", async (request) => {
      const { model, versions } = await registry.getModel(orgOf(request), nameOf(fieldsOf(request)));
      return { registered_model: registeredModelJson(model, versions) };
    });

    patch("/registered-models/update", async (request) => {
      const fields = fieldsOf(request);
      const { model, versions } = await registry.updateDescription(
        orgOf(request),
        nameOf(fields),
        optionalString(fields, "description") ?? "",
      );
      return { registered_model: registeredModelJson(model, versions) };
    });

    post("/registered-models/rename", async (request) => {
      const fields = fieldsOf(request);
      const { model, versions } = await registry.rename(orgOf(request), nameOf(fields), nameOf(fields, "new_name"));
      return { registered_model: registeredModelJson(model, versions) };
    });

    // Deleting a model (with its versions) is an admin's; its tags and aliases a member's.
    del(
      "/registered-models/delete",
      async (request, fields) => {
        await registry.deleteModel(orgOf(request), nameOf(fields));
        return {};
      },
      "admin",
    );

    const searchModels = async (request: FastifyRequest) => {
      const fields = fieldsOf(request);
      const result = await registry.searchModels(orgOf(request), {
        clauses: parseFilter(optionalString(fields, "filter"), REGISTERED_MODEL_FILTER),
        terms: parseOrderBy(listOf(fields, "order_by").map(String), REGISTERED_MODEL_ORDER),
        maxResults: maxResultsOf(fields, "max_results", REGISTRY_LIMITS.searchModelsDefault, REGISTRY_LIMITS.searchModelsMaxResults),
        pageToken: optionalString(fields, "page_token"),
      });
      return {
        ...listField(
          "registered_models",
          result.models.map((m) => registeredModelJson(m.model, m.versions)),
        ),
        ...nextPage(result.nextPageToken),
      };
    };
    get("/registered-models/search", searchModels);
    postRead("/registered-models/search", searchModels);

    const latest = async (request: FastifyRequest) => {
      const fields = fieldsOf(request);
      const { model, versions } = await registry.latestVersions(orgOf(request), nameOf(fields), listOf(fields, "stages").map(String));
      return listField(
        "model_versions",
        versions.map((v) => modelVersionJson(model, v)),
      );
    };
    get("/registered-models/get-latest-versions", latest);
    postRead("/registered-models/get-latest-versions", latest);

    post("/registered-models/set-tag", async (request) => {
      const fields = fieldsOf(request);
      await registry.setModelTag(orgOf(request), nameOf(fields), registryTag(fields.key, fields.value, "tag"));
      return {};
    });

    del("/registered-models/delete-tag", async (request, fields) => {
      await registry.deleteModelTag(orgOf(request), nameOf(fields), requiredString(fields, "key"));
      return {};
    });

    post("/registered-models/alias", async (request) => {
      const fields = fieldsOf(request);
      await registry.setAlias(orgOf(request), nameOf(fields), checkAlias(optionalString(fields, "alias")), versionField(fields));
      return {};
    });

    del("/registered-models/alias", async (request, fields) => {
      await registry.deleteAlias(orgOf(request), nameOf(fields), checkAlias(optionalString(fields, "alias")));
      return {};
    });

    get("/registered-models/alias", async (request) => {
      const fields = fieldsOf(request);
      const { model, version } = await registry.versionByAlias(orgOf(request), nameOf(fields), checkAlias(optionalString(fields, "alias")));
      return { model_version: modelVersionJson(model, version) };
    });

    post("/model-versions/create", async (request) => {
      const fields = fieldsOf(request);
      const { model, version } = await registry.createVersion(orgOf(request), nameOf(fields), {
        source: requiredString(fields, "source"),
        runId: optionalString(fields, "run_id") ?? "",
        runLink: optionalString(fields, "run_link") ?? "",
        description: optionalString(fields, "description") ?? "",
        tags: tagsOf(listOf(fields, "tags")),
      });
      return { model_version: modelVersionJson(model, version) };
    });

    get("/model-versions/get", async (request) => {
      const fields = fieldsOf(request);
      const { model, version } = await registry.getVersion(orgOf(request), nameOf(fields), versionField(fields));
      return { model_version: modelVersionJson(model, version) };
    });

    patch("/model-versions/update", async (request) => {
      const fields = fieldsOf(request);
      const { model, version } = await registry.updateVersionDescription(
        orgOf(request),
        nameOf(fields),
        versionField(fields),
        optionalString(fields, "description") ?? "",
      );
      return { model_version: modelVersionJson(model, version) };
    });

    post("/model-versions/transition-stage", async (request) => {
      const fields = fieldsOf(request);
      const { model, version } = await registry.transition(
        orgOf(request),
        nameOf(fields),
        versionField(fields),
        requiredString(fields, "stage"),
        booleanOf(fields, "archive_existing_versions"),
      );
      return { model_version: modelVersionJson(model, version) };
    });

    del(
      "/model-versions/delete",
      async (request, fields) => {
        await registry.deleteVersion(orgOf(request), nameOf(fields), versionField(fields));
        return {};
      },
      "admin",
    );

    get("/model-versions/get-download-uri", async (request) => {
      const fields = fieldsOf(request);
      const { version } = await registry.getVersion(orgOf(request), nameOf(fields), versionField(fields));
      return { artifact_uri: version.storageLocation || version.source };
    });

    const searchVersions = async (request: FastifyRequest) => {
      const fields = fieldsOf(request);
      const result = await registry.searchVersions(orgOf(request), {
        clauses: parseFilter(optionalString(fields, "filter"), MODEL_VERSION_FILTER),
        terms: parseOrderBy(listOf(fields, "order_by").map(String), MODEL_VERSION_ORDER),
        maxResults: maxResultsOf(fields, "max_results", REGISTRY_LIMITS.searchVersionsDefault, REGISTRY_LIMITS.searchVersionsMaxResults),
        pageToken: optionalString(fields, "page_token"),
      });
      return {
        ...listField(
          "model_versions",
          result.versions.map((v) => modelVersionJson(v.model, v.version)),
        ),
        ...nextPage(result.nextPageToken),
      };
    };
    get("/model-versions/search", searchVersions);
    postRead("/model-versions/search", searchVersions);

    post("/model-versions/set-tag", async (request) => {
      const fields = fieldsOf(request);
      await registry.setVersionTag(orgOf(request), nameOf(fields), versionField(fields), registryTag(fields.key, fields.value, "tag"));
      return {};
    });

    del("/model-versions/delete-tag", async (request, fields) => {
      await registry.deleteVersionTag(orgOf(request), nameOf(fields), versionField(fields), requiredString(fields, "key"));
      return {};
    });
  };
}
