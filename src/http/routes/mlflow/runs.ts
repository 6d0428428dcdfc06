import { auditContext } from "../../audit-context.js";
import type { FastifyInstance } from "fastify";
import { checkClientJson } from "../../../domain/json-text.js";
import { parseDatasetInputs } from "../../../domain/mlflow/datasets.js";
import { invalidParameter } from "../../../domain/mlflow/errors.js";
import { DEFAULT_EXPERIMENT_ID } from "../../../domain/mlflow/ids.js";
import { checkBatchSizes, checkKey, checkName, LIMITS, parseTime, toStepwiseStatus, truncatedValue } from "../../../domain/mlflow/model.js";
import { checkTagWritable, newRunName, newRunTags } from "../../../domain/mlflow/tags.js";
import { viewTypeOf } from "../../../domain/mlflow/views.js";
import { NAME_LIMITS } from "../../../domain/names.js";
import { latestMetrics, latestMetricsOfRuns, searchRuns } from "../../../services/mlflow.js";
import { actorOf } from "../../auth.js";
import type { RouteDeps } from "../../deps.js";
import {
  endpoints,
  fieldsOf,
  listOf,
  maxResultsOf,
  metricSeries,
  nextPage,
  optionalString,
  orgOf,
  paramsOfList,
  requiredString,
  runIdOf,
  runInfoJson,
  runJson,
  tagsOf,
} from "./common.js";

/** MLflow's runs: create, get, update, delete, restore, search, and what is logged to a run (metrics, params, tags, inputs, models). */
export function runRoutes({
  store,
  clock,
  services: { mlflowRuns: runs, mlflowExperiments: experiments, mlflowLoggedModels: loggedModels },
}: RouteDeps) {
  return async (app: FastifyInstance) => {
    const { get, post, postAs } = endpoints(app);

    post("/runs/create", async (request) => {
      const fields = fieldsOf(request);
      // No experiment ID is the default experiment, as on MLflow's server.
      const project = await experiments.find(orgOf(request), optionalString(fields, "experiment_id") || DEFAULT_EXPERIMENT_ID);
      const now = clock.now();
      const tags = tagsOf(listOf(fields, "tags"), "tags");
      for (const [key] of tags) checkTagWritable(key);
      const userId = optionalString(fields, "user_id");
      if (userId !== undefined && userId.length > LIMITS.userIdLength)
        throw invalidParameter(`'user_id' exceeds the maximum length of ${LIMITS.userIdLength} characters`);
      const name = newRunName(optionalString(fields, "run_name"), tags, now);
      const createdAt = parseTime(Object.hasOwn(fields, "start_time") ? fields.start_time : undefined, "start_time", now);
      const run = { name, mlflowTags: newRunTags(tags, name), userId: userId ?? "", createdAt };
      return { run: runJson(await runs.create(orgOf(request), project, run, actorOf(request.auth), now), []) };
    });

    get("/runs/get", async (request) => {
      const run = await runs.find(orgOf(request), runIdOf(fieldsOf(request)));
      return { run: runJson(run, await latestMetrics(store, orgOf(request), run)) };
    });

    post("/runs/update", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.find(orgOf(request), runIdOf(fields));
      runs.checkActive(run);
      const status = optionalString(fields, "status");
      const endTime = Object.hasOwn(fields, "end_time") ? parseTime(fields.end_time, "end_time") : undefined;
      const name = checkName(optionalString(fields, "run_name") ?? "", "run_name", NAME_LIMITS.runName);
      const update = { name, status: status === undefined ? undefined : toStepwiseStatus(status), endTime };
      return { run_info: runInfoJson(await runs.update(orgOf(request), run, update, actorOf(request.auth))) };
    });

    // Deleting and restoring a run is an admin's, as in Stepwise's own API (docs/semantics.md, "Roles").
    for (const [path, deleted] of [
      ["/runs/delete", true],
      ["/runs/restore", false],
    ] as const)
      postAs("admin", path, async (request) => {
        await runs.setDeleted(auditContext(request), runIdOf(fieldsOf(request)), deleted);
        return {};
      });

    postAs("viewer", "/runs/search", async (request) => {
      const fields = fieldsOf(request);
      const orgId = orgOf(request);
      const experimentIds = listOf(fields, "experiment_ids").map((id) => {
        if (typeof id !== "string" && typeof id !== "number") throw invalidParameter("experiment_ids must be strings");
        return String(id);
      });
      const result = await searchRuns(store, orgId, {
        experimentIds,
        filter: optionalString(fields, "filter"),
        orderBy: listOf(fields, "order_by").map((o) => {
          if (typeof o !== "string") throw invalidParameter("order_by must be a list of strings");
          return o;
        }),
        maxResults: maxResultsOf(fields, "max_results", 1000, LIMITS.maxResults),
        pageToken: optionalString(fields, "page_token"),
        viewType: viewTypeOf(optionalString(fields, "run_view_type")),
      });
      const metrics = await latestMetricsOfRuns(store, orgId, result.runs);
      return { runs: result.runs.map((run) => runJson(run, metrics.get(run.id)!)), ...nextPage(result.nextPageToken) };
    });

    // What is logged to a run: each is a batch of the one log-batch workflow.
    post("/runs/log-metric", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findRef(orgOf(request), runIdOf(fields));
      const metrics = metricSeries([{ key: fields.key, value: fields.value, timestamp: fields.timestamp, step: fields.step }], clock.now());
      await runs.logBatch(orgOf(request), run, { params: [], tags: [], metrics });
      return {};
    });

    post("/runs/log-parameter", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findRef(orgOf(request), runIdOf(fields));
      const key = checkKey(fields.key, "key");
      const value = truncatedValue(fields.value, "value", LIMITS.paramValueLength);
      await runs.logBatch(orgOf(request), run, { params: [[key, value]], tags: [], metrics: [] });
      return {};
    });

    post("/runs/set-tag", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findRef(orgOf(request), runIdOf(fields));
      await runs.logBatch(orgOf(request), run, {
        params: [],
        tags: tagsOf([{ key: fields.key, value: fields.value }], "tag"),
        metrics: [],
      });
      return {};
    });

    post("/runs/log-batch", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findRef(orgOf(request), runIdOf(fields));
      const metrics = listOf(fields, "metrics");
      const params = listOf(fields, "params");
      const tags = listOf(fields, "tags");
      checkBatchSizes(metrics.length, params.length, tags.length);
      const batch = { params: paramsOfList(params), tags: tagsOf(tags, "tags"), metrics: metricSeries(metrics, clock.now()) };
      await runs.logBatch(orgOf(request), run, batch);
      return {};
    });

    post("/runs/delete-tag", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findActive(orgOf(request), runIdOf(fields));
      await runs.deleteTag(orgOf(request), run, checkKey(fields.key, "key"));
      return {};
    });

    post("/runs/log-inputs", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findActive(orgOf(request), runIdOf(fields));
      await runs.logInputs(orgOf(request), run, parseDatasetInputs(listOf(fields, "datasets")));
      return {};
    });

    // MLflow 3's client names the logged models a run made; Stepwise links a model to its run by the
    // model's source run, so this checks the run and the models and keeps nothing more.
    post("/runs/outputs", async (request) => {
      const fields = fieldsOf(request);
      const orgId = orgOf(request);
      await runs.findActive(orgId, runIdOf(fields));
      for (const output of listOf(fields, "models")) {
        const modelId = (output as { model_id?: unknown } | null)?.model_id;
        if (typeof modelId !== "string" || modelId === "") throw invalidParameter("Missing value for required parameter 'models.model_id'");
        await loggedModels.find(orgId, modelId);
      }
      return {};
    });

    post("/runs/log-model", async (request) => {
      const fields = fieldsOf(request);
      const run = await runs.findActive(orgOf(request), runIdOf(fields));
      const modelJson = requiredString(fields, "model_json");
      let model: unknown;
      try {
        model = JSON.parse(modelJson);
      } catch {
        throw invalidParameter("model_json must be JSON text");
      }
      checkClientJson(modelJson, model, "model_json");
      await runs.logModel(orgOf(request), run, model);
      return {};
    });
  };
}
