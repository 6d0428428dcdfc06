import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RouteDeps } from "../../deps.js";
import { orderByStep } from "../../../ingest/decode.js";
import { doesNotExist, invalidParameter, MlflowError } from "../../../domain/mlflow/errors.js";
import {
  applyParams,
  applyTags,
  checkKey,
  checkName,
  checkValue,
  LIMITS,
  metricValueJson,
  parseInt64,
  parseMetricValue,
  parseTime,
  RUN_NAME_TAG,
  STEPWISE_TAGS_TAG,
  toStepwiseStatus,
  USER_TAG,
} from "../../../domain/mlflow/model.js";
import {
  compareSortValues,
  compileClause,
  EXPERIMENT_ATTRIBUTES,
  parseFilter,
  parseOrderBy,
  type SortValue,
} from "../../../domain/mlflow/search.js";
import { DomainError } from "../../../domain/errors.js";
import { NAME_LIMITS } from "../../../domain/names.js";
import { encodePageToken, pageTokenCount } from "../../../domain/page-token.js";
import { checkClientJson } from "../../../domain/json-text.js";
import {
  checkActive,
  findExperiment,
  findRun,
  findRunRef,
  latestMetrics,
  latestMetricsOfRuns,
  searchRuns,
  updateProjectMlflow,
  updateRunMlflow,
  type ViewType,
} from "../../../services/mlflow.js";
import type { MetricSeries, MlflowRunRef, Project, Run } from "../../../store/store.js";
import { actorOf } from "../../auth.js";
import { experimentJson, fieldsOf, listOf, optionalString, requiredString, runIdOf, runInfoJson, runJson } from "./common.js";

const HIDDEN = { schema: { hide: true } };
const VIEW_TYPES = new Map<string, ViewType>([
  ["ACTIVE_ONLY", "ACTIVE_ONLY"],
  ["DELETED_ONLY", "DELETED_ONLY"],
  ["ALL", "ALL"],
]);

function viewTypeOf(value: string | undefined): ViewType {
  if (value === undefined || value === "") return "ACTIVE_ONLY";
  const viewType = VIEW_TYPES.get(value);
  if (!viewType)
    throw invalidParameter(`Invalid value '${value}' for parameter 'run_view_type': expected ACTIVE_ONLY, DELETED_ONLY or ALL`);
  return viewType;
}

function maxResultsOf(fields: Record<string, unknown>, name: string, fallback: number, max: number): number {
  const value = parseInt64(Object.hasOwn(fields, name) ? fields[name] : undefined, name, fallback);
  if (value < 1 || value > max) throw invalidParameter(`Invalid value ${value} for parameter '${name}': it must be from 1 to ${max}`);
  return value;
}

interface KeyValue {
  key: string;
  value: string;
}

function tagsOf(list: unknown[], what: string): [string, string][] {
  return list.map((item, i) => {
    const tag = (item ?? {}) as Partial<KeyValue>;
    return [checkKey(tag.key, `${what}[${i}].key`), checkValue(tag.value ?? "", `${what}[${i}].value`, LIMITS.tagValueLength)];
  });
}

/** Metric points of one request as series (grouped by key, ascending by step; the last point sent for a step wins). */
function metricSeries(list: unknown[], now: number): MetricSeries[] {
  const byKey = new Map<string, MetricSeries>();
  list.forEach((item, i) => {
    const metric = (item ?? {}) as Record<string, unknown>;
    // A batch names few keys many times (10 keys × 100 steps): a key already grouped passed checkKey.
    let series = typeof metric.key === "string" ? byKey.get(metric.key) : undefined;
    const key = series ? series.logName : checkKey(metric.key, `metrics[${i}].key`);
    const value = parseMetricValue(metric.value, `metrics[${i}].value`);
    const timestamp = parseTime(metric.timestamp, `metrics[${i}].timestamp`, now);
    const step = parseInt64(metric.step, `metrics[${i}].step`, 0);
    if (!series) byKey.set(key, (series = { logName: key, steps: [], values: [], times: [] }));
    series.steps.push(step);
    series.values.push(value);
    series.times.push(timestamp);
  });
  return [...byKey.values()].map(orderByStep);
}

function checkTagWritable(key: string): void {
  if (key === STEPWISE_TAGS_TAG) throw invalidParameter(`The tag '${STEPWISE_TAGS_TAG}' is Stepwise's tag list and is read-only here`);
}

/** The name a run gets from its tags: setting mlflow.runName renames the run, as on MLflow's server. */
function nameFrom(tags: readonly (readonly [string, string])[], current: string): string {
  let name = current;
  for (const [key, value] of tags) if (key === RUN_NAME_TAG && value !== "") name = checkName(value, RUN_NAME_TAG, NAME_LIMITS.runName);
  return name;
}

/** MLflow's tracking API: experiments, runs, metrics (docs/api.md, "MLflow's REST API"). */
export function trackingRoutes({ store, clock }: RouteDeps) {
  return async (app: FastifyInstance) => {
    const orgOf = (request: FastifyRequest) => request.auth.orgId;
    const post = (path: string, handler: (request: FastifyRequest) => Promise<unknown>) => app.post(path, HIDDEN, handler);
    const get = (path: string, handler: (request: FastifyRequest) => Promise<unknown>) => app.get(path, HIDDEN, handler);
    const getAndPost = (path: string, handler: (request: FastifyRequest) => Promise<unknown>) => {
      get(path, handler);
      post(path, handler);
    };

    // Experiments.
    post("/experiments/create", async (request) => {
      const fields = fieldsOf(request);
      const name = checkName(requiredString(fields, "name"), "name", NAME_LIMITS.projectName);
      const tags = tagsOf(listOf(fields, "tags"), "tags");
      let project: Project;
      try {
        project = await store.createProject(orgOf(request), name, clock.now());
      } catch (error) {
        if (error instanceof DomainError && error.code === "CONFLICT")
          throw new MlflowError("RESOURCE_ALREADY_EXISTS", `Experiment(name=${name}) already exists.`);
        throw error;
      }
      if (tags.length > 0)
        await updateProjectMlflow(
          store,
          orgOf(request),
          project.id,
          (s) => ({ ...s, mlflowTags: applyTags(s.mlflowTags, tags) }),
          clock.now(),
        );
      return { experiment_id: String(project.id) };
    });

    get("/experiments/get", async (request) => {
      return { experiment: experimentJson(await findExperiment(store, orgOf(request), fieldsOf(request).experiment_id)) };
    });

    get("/experiments/get-by-name", async (request) => {
      const name = requiredString(fieldsOf(request), "experiment_name");
      const project = await store.getProjectByName(orgOf(request), name);
      if (!project) throw doesNotExist(`Could not find experiment with name '${name}'`);
      return { experiment: experimentJson(project) };
    });

    getAndPost("/experiments/search", async (request) => {
      const fields = fieldsOf(request);
      const maxResults = maxResultsOf(fields, "max_results", 1000, LIMITS.maxResults);
      const clauses = parseFilter(optionalString(fields, "filter"), EXPERIMENT_ATTRIBUTES);
      const terms = parseOrderBy(listOf(fields, "order_by").map(String), EXPERIMENT_ATTRIBUTES);
      const viewType = viewTypeOf(optionalString(fields, "view_type"));
      const token = optionalString(fields, "page_token");
      const offset = token ? pageTokenCount(token, "offset") : 0;
      const tests = clauses.map((clause) => ({ clause, test: compileClause(clause) }));
      const experimentValue = (project: Project, entity: string, key: string): string | number | undefined => {
        if (entity === "tag") return new Map(project.mlflowTags).get(key);
        if (entity !== "attribute") return undefined;
        if (key === "name") return project.name;
        if (key === "experiment_id") return String(project.id);
        return key === "creation_time" ? project.createdAt : project.updatedAt;
      };
      for (const clause of clauses)
        if (clause.entity !== "tag" && clause.entity !== "attribute")
          throw invalidParameter(`Invalid entity type in experiment filter: ${clause.entity}`);
      const projects = (await store.listProjects(orgOf(request))).filter(
        (p) =>
          (viewType === "ALL" || (p.deletedAt === null) === (viewType === "ACTIVE_ONLY")) &&
          tests.every(({ clause, test }) => test(experimentValue(p, clause.entity, clause.key))),
      );
      const keyOf = (p: Project): SortValue[] => [...terms.map((t) => experimentValue(p, t.entity, t.key) ?? null), p.createdAt, p.id];
      const keys = new Map(projects.map((p) => [p.id, keyOf(p)]));
      projects.sort((a, b) => {
        const ka = keys.get(a.id)!;
        const kb = keys.get(b.id)!;
        for (let i = 0; i < ka.length; i++) {
          const ascending = i < terms.length ? terms[i]!.ascending : i !== terms.length;
          const c = compareSortValues(ka[i]!, kb[i]!, ascending);
          if (c !== 0) return c;
        }
        return 0;
      });
      const page = projects.slice(offset, offset + maxResults);
      const nextToken = offset + maxResults < projects.length ? encodePageToken({ offset: offset + maxResults }) : undefined;
      return { experiments: page.map(experimentJson), ...(nextToken ? { next_page_token: nextToken } : {}) };
    });

    post("/experiments/update", async (request) => {
      const fields = fieldsOf(request);
      const project = await findExperiment(store, orgOf(request), fields.experiment_id);
      const newName = checkName(requiredString(fields, "new_name"), "new_name", NAME_LIMITS.projectName);
      try {
        await updateProjectMlflow(store, orgOf(request), project.id, (s) => ({ ...s, name: newName }), clock.now());
      } catch (error) {
        if (error instanceof DomainError && error.code === "CONFLICT")
          throw new MlflowError("RESOURCE_ALREADY_EXISTS", `Experiment(name=${newName}) already exists.`);
        throw error;
      }
      return {};
    });

    for (const [path, deleted] of [
      ["/experiments/delete", true],
      ["/experiments/restore", false],
    ] as const)
      post(path, async (request) => {
        const project = await findExperiment(store, orgOf(request), fieldsOf(request).experiment_id);
        const now = clock.now();
        await updateProjectMlflow(
          store,
          orgOf(request),
          project.id,
          (s) => ({ ...s, deletedAt: deleted ? (s.deletedAt ?? now) : null }),
          now,
        );
        return {};
      });

    post("/experiments/set-experiment-tag", async (request) => {
      const fields = fieldsOf(request);
      const project = await findExperiment(store, orgOf(request), fields.experiment_id);
      const [tag] = tagsOf([{ key: fields.key, value: fields.value }], "tag");
      await updateProjectMlflow(
        store,
        orgOf(request),
        project.id,
        (s) => ({ ...s, mlflowTags: applyTags(s.mlflowTags, [tag!]) }),
        clock.now(),
      );
      return {};
    });

    post("/experiments/delete-experiment-tag", async (request) => {
      const fields = fieldsOf(request);
      const project = await findExperiment(store, orgOf(request), fields.experiment_id);
      const key = checkKey(fields.key, "key");
      await updateProjectMlflow(
        store,
        orgOf(request),
        project.id,
        (s) => {
          if (!s.mlflowTags.some(([k]) => k === key)) throw doesNotExist(`No tag with name: ${key} in experiment ${project.id}`);
          return { ...s, mlflowTags: applyTags(s.mlflowTags, [], [key]) };
        },
        clock.now(),
      );
      return {};
    });

    // Runs.
    post("/runs/create", async (request) => {
      const fields = fieldsOf(request);
      const project = await findExperiment(store, orgOf(request), fields.experiment_id);
      const now = clock.now();
      const tags = tagsOf(listOf(fields, "tags"), "tags");
      for (const [key] of tags) checkTagWritable(key);
      const userId = optionalString(fields, "user_id");
      if (userId !== undefined && userId.length > LIMITS.userIdLength)
        throw invalidParameter(`'user_id' exceeds the maximum length of ${LIMITS.userIdLength} characters`);
      const name =
        checkName(optionalString(fields, "run_name") ?? "", "run_name", NAME_LIMITS.runName) ||
        nameFrom(tags, "") ||
        `run-${now.toString(36)}`;
      const startTime = parseTime(Object.hasOwn(fields, "start_time") ? fields.start_time : undefined, "start_time", now);
      let mlflowTags = applyTags(tags, [[RUN_NAME_TAG, name]]);
      if (userId && !mlflowTags.some(([key]) => key === USER_TAG)) mlflowTags = applyTags(mlflowTags, [[USER_TAG, userId]]);
      let created: Run;
      try {
        ({ run: created } = await store.createRun(
          orgOf(request),
          { projectName: project.name, name, tags: [], mlflowTags, createdAt: startTime, now },
          actorOf(request.auth),
        ));
      } catch (error) {
        // The store refuses a deleted project inside its transaction (checkProjectTakesRuns), in MLflow's words here.
        if (error instanceof DomainError && error.code === "CONFLICT")
          throw invalidParameter(`The experiment ${project.id} must be in the 'active' state. Current state is deleted.`);
        throw error;
      }
      return { run: runJson(created, []) };
    });

    get("/runs/get", async (request) => {
      const run = await findRun(store, orgOf(request), runIdOf(fieldsOf(request)));
      return { run: runJson(run, await latestMetrics(store, orgOf(request), run)) };
    });

    post("/runs/update", async (request) => {
      const fields = fieldsOf(request);
      const orgId = orgOf(request);
      let run = await findRun(store, orgId, runIdOf(fields));
      checkActive(run);
      const status = optionalString(fields, "status");
      const endTime = Object.hasOwn(fields, "end_time") ? parseTime(fields.end_time, "end_time") : undefined;
      const runName = checkName(optionalString(fields, "run_name") ?? "", "run_name", NAME_LIMITS.runName);
      const now = clock.now();
      const stepwiseStatus = status === undefined ? undefined : toStepwiseStatus(status);
      if (runName)
        run = (await updateRunMlflow(
          store,
          orgId,
          run.id,
          (s) => ({ ...s, name: runName, mlflowTags: applyTags(s.mlflowTags, [[RUN_NAME_TAG, runName]]) }),
          now,
        ))!;
      if (stepwiseStatus !== undefined) {
        await store.updateRunStatus(
          orgId,
          run.id,
          { status: stepwiseStatus, statusUpdated: stepwiseStatus === "RUNNING" ? undefined : (endTime ?? now), source: "api", now },
          actorOf(request.auth),
        );
        run = (await store.getRun(orgId, run.id))!;
      }
      return { run_info: runInfoJson(run) };
    });

    for (const [path, deleted] of [
      ["/runs/delete", true],
      ["/runs/restore", false],
    ] as const)
      post(path, async (request) => {
        const run = await findRunRef(store, orgOf(request), runIdOf(fieldsOf(request)));
        const now = clock.now();
        await updateRunMlflow(store, orgOf(request), run.id, (s) => ({ ...s, deletedAt: deleted ? (s.deletedAt ?? now) : null }), now);
        return {};
      });

    post("/runs/search", async (request) => {
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
      const runs = result.runs.map((run) => runJson(run, metrics.get(run.id)!));
      return { runs, ...(result.nextPageToken ? { next_page_token: result.nextPageToken } : {}) };
    });

    /** Logs params, tags and metrics of one run: params and tags in one transaction (write-once checked), then metrics. */
    async function logBatch(
      request: FastifyRequest,
      run: MlflowRunRef,
      items: { params: [string, string][]; tags: [string, string][]; metrics: MetricSeries[] },
    ): Promise<void> {
      const orgId = orgOf(request);
      const now = clock.now();
      checkActive(run);
      if (items.params.length > 0 || items.tags.length > 0) {
        for (const [key] of items.tags) checkTagWritable(key);
        await updateRunMlflow(
          store,
          orgId,
          run.id,
          (s) => ({
            ...s,
            name: nameFrom(items.tags, s.name),
            config: applyParams(s.config, items.params),
            mlflowTags: applyTags(s.mlflowTags, items.tags),
          }),
          now,
        );
      }
      if (items.metrics.length > 0) {
        const stored = await store.appendMetricPoints(orgId, run.id, items.metrics, now);
        if (stored === undefined) throw doesNotExist(`Run with id=${run.mlflowId} not found`);
      }
    }

    post("/runs/log-metric", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      const metrics = metricSeries([{ key: fields.key, value: fields.value, timestamp: fields.timestamp, step: fields.step }], clock.now());
      await logBatch(request, run, { params: [], tags: [], metrics });
      return {};
    });

    post("/runs/log-parameter", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      const key = checkKey(fields.key, "key");
      const value = checkValue(fields.value, "value", LIMITS.paramValueLength);
      await logBatch(request, run, { params: [[key, value]], tags: [], metrics: [] });
      return {};
    });

    post("/runs/set-tag", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      await logBatch(request, run, { params: [], tags: tagsOf([{ key: fields.key, value: fields.value }], "tag"), metrics: [] });
      return {};
    });

    post("/runs/delete-tag", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      checkActive(run);
      const key = checkKey(fields.key, "key");
      checkTagWritable(key);
      await updateRunMlflow(
        store,
        orgOf(request),
        run.id,
        (s) => {
          if (!s.mlflowTags.some(([k]) => k === key)) throw doesNotExist(`No tag with name: ${key} in run with id ${run.mlflowId}`);
          return { ...s, mlflowTags: applyTags(s.mlflowTags, [], [key]) };
        },
        clock.now(),
      );
      return {};
    });

    post("/runs/log-batch", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      const metrics = listOf(fields, "metrics");
      const params = listOf(fields, "params");
      const tags = listOf(fields, "tags");
      if (metrics.length > LIMITS.batchMetrics)
        throw invalidParameter(
          `A batch logging request can contain at most ${LIMITS.batchMetrics} metrics. Got ${metrics.length} metrics.`,
        );
      if (params.length > LIMITS.batchParams)
        throw invalidParameter(`A batch logging request can contain at most ${LIMITS.batchParams} params. Got ${params.length} params.`);
      if (tags.length > LIMITS.batchTags)
        throw invalidParameter(`A batch logging request can contain at most ${LIMITS.batchTags} tags. Got ${tags.length} tags.`);
      const total = metrics.length + params.length + tags.length;
      if (total > LIMITS.batchItems)
        throw invalidParameter(
          `A batch logging request can contain at most ${LIMITS.batchItems} total metrics, params and tags. Got ${total}.`,
        );
      const parsedParams = params.map((item, i): [string, string] => {
        const param = (item ?? {}) as Partial<KeyValue>;
        return [checkKey(param.key, `params[${i}].key`), checkValue(param.value, `params[${i}].value`, LIMITS.paramValueLength)];
      });
      await logBatch(request, run, { params: parsedParams, tags: tagsOf(tags, "tags"), metrics: metricSeries(metrics, clock.now()) });
      return {};
    });

    post("/runs/log-inputs", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      checkActive(run);
      const datasets = listOf(fields, "datasets");
      await updateRunMlflow(
        store,
        orgOf(request),
        run.id,
        (s) => ({ ...s, mlflowInputs: [...(Array.isArray(s.mlflowInputs) ? s.mlflowInputs : []), ...(datasets as never[])] }),
        clock.now(),
      );
      return {};
    });

    post("/runs/log-model", async (request) => {
      const fields = fieldsOf(request);
      const run = await findRunRef(store, orgOf(request), runIdOf(fields));
      checkActive(run);
      const modelJson = requiredString(fields, "model_json");
      let model: unknown;
      try {
        model = JSON.parse(modelJson);
      } catch {
        throw invalidParameter("model_json must be JSON text");
      }
      checkClientJson(modelJson, model, "model_json");
      // As MLflow's server: the model's description is appended to the run's mlflow.log-model.history tag.
      await updateRunMlflow(
        store,
        orgOf(request),
        run.id,
        (s) => {
          const history = new Map(s.mlflowTags).get("mlflow.log-model.history");
          let list: unknown[] = [];
          try {
            const parsed = history === undefined ? [] : JSON.parse(history);
            list = Array.isArray(parsed) ? parsed : [];
          } catch {
            list = [];
          }
          return { ...s, mlflowTags: applyTags(s.mlflowTags, [["mlflow.log-model.history", JSON.stringify([...list, model])]]) };
        },
        clock.now(),
      );
      return {};
    });

    // Metrics.
    get("/metrics/get-history", async (request) => {
      const fields = fieldsOf(request);
      const orgId = orgOf(request);
      const run = await findRunRef(store, orgId, runIdOf(fields));
      const key = requiredString(fields, "metric_key");
      const maxResults = maxResultsOf(fields, "max_results", LIMITS.historyMaxResults, LIMITS.historyMaxResults);
      const token = optionalString(fields, "page_token");
      const from = token ? pageTokenCount(token, "step") : 0;
      const points = await store.readMetricPoints(orgId, run.id, key, from, Number.MAX_SAFE_INTEGER, maxResults + 1);
      const page = points.slice(0, maxResults);
      const next = points.length > maxResults ? encodePageToken({ step: points[maxResults]!.step }) : undefined;
      return {
        metrics: page.map((p) => ({ key, value: metricValueJson(p.value), timestamp: p.time, step: p.step })),
        ...(next ? { next_page_token: next } : {}),
      };
    });

    get("/metrics/get-history-bulk-interval", async (request) => {
      const fields = fieldsOf(request);
      const orgId = orgOf(request);
      const runIds = listOf(fields, "run_ids").map(String);
      if (runIds.length === 0) throw invalidParameter("Missing value for required parameter 'run_ids'");
      if (runIds.length > 100) throw invalidParameter("GetMetricHistoryBulkInterval request must specify at most 100 run_ids");
      const key = requiredString(fields, "metric_key");
      const start = Object.hasOwn(fields, "start_step") ? parseInt64(fields.start_step, "start_step") : 0;
      const end = Object.hasOwn(fields, "end_step") ? parseInt64(fields.end_step, "end_step") : Number.MAX_SAFE_INTEGER;
      if (start > end) throw invalidParameter("end_step must be greater than start_step");
      const maxResults = maxResultsOf(fields, "max_results", 320, 1000);
      const metrics = [];
      for (const runId of runIds) {
        const run = await findRunRef(store, orgId, runId);
        for (const p of await store.sampleMetricPoints(orgId, run.id, key, start, end, maxResults))
          metrics.push({ key, value: metricValueJson(p.value), timestamp: p.time, step: p.step, run_id: run.mlflowId });
      }
      return { metrics };
    });

    post("/logged-models/search", async (request) => {
      const fields = fieldsOf(request);
      for (const id of listOf(fields, "experiment_ids")) await findExperiment(store, orgOf(request), String(id));
      return { models: [] };
    });
  };
}
