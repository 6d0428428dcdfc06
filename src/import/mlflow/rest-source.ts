import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { DatasetInput } from "../../domain/mlflow/datasets.js";
import { parseMetricValue } from "../../domain/mlflow/import.js";
import { MLFLOW_STATUSES, type MlflowStatus } from "../../domain/mlflow/model.js";
import type { MlflowSource, SourceArtifact, SourceExperiment, SourceModel, SourcePoint, SourceRun } from "./source.js";

/** Points per get-history page asked for, and per slice written. */
const HISTORY_PAGE = 10_000;
const RUNS_PAGE = 500;
/** Each request's time limit, and how often a 429, a 5xx or a dropped connection is retried (with backoff 0.5 s, 1 s, 2 s, …). */
const TIMEOUT_MS = 60_000;
const RETRIES = 5;

type Body = Record<string, unknown>;

const list = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);
const text = (value: unknown): string => (value === null || value === undefined ? "" : String(value));
const keyValues = (value: unknown): [string, string][] => list(value).map((kv) => [text(kv.key), text(kv.value)]);

/** The credentials MLflow's client reads from the environment: a bearer token, or a user name and password. */
export function authorizationFrom(env: NodeJS.ProcessEnv): string | undefined {
  if (env.MLFLOW_TRACKING_TOKEN) return `Bearer ${env.MLFLOW_TRACKING_TOKEN}`;
  if (env.MLFLOW_TRACKING_USERNAME || env.MLFLOW_TRACKING_PASSWORD)
    return `Basic ${Buffer.from(`${env.MLFLOW_TRACKING_USERNAME ?? ""}:${env.MLFLOW_TRACKING_PASSWORD ?? ""}`).toString("base64")}`;
  return undefined;
}

export class SourceHttpError extends Error {}

/**
 * A running MLflow tracking server, read through its REST API 2.0 (experiments/search,
 * runs/search, metrics/get-history, artifacts/list, the mlflow-artifacts proxy,
 * registered-models/search and model-versions/search), every list paged by its page token.
 */
export class RestSource implements MlflowSource {
  readonly label: string;
  private readonly base: string;

  constructor(
    uri: string,
    private readonly authorization: string | undefined,
  ) {
    const url = new URL(uri);
    url.username = "";
    url.password = "";
    this.base = url.toString().replace(/\/+$/, "");
    this.label = this.base;
  }

  /** One request, retried on 429, 5xx and network errors with exponential backoff; a 4xx is an error at once. */
  private async request(path: string, init: { method?: string; body?: Body } = {}): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let retryable: string;
      try {
        const response = await fetch(`${this.base}${path}`, {
          method: init.method ?? "GET",
          headers: {
            ...(this.authorization ? { authorization: this.authorization } : {}),
            ...(init.body ? { "content-type": "application/json" } : {}),
          },
          body: init.body ? JSON.stringify(init.body) : undefined,
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        if (response.ok) return response;
        const detail = (await response.text()).slice(0, 300);
        if (response.status !== 429 && response.status < 500)
          throw new SourceHttpError(`${init.method ?? "GET"} ${this.base}${path}: HTTP ${response.status} ${detail}`);
        retryable = `HTTP ${response.status} ${detail}`;
      } catch (error) {
        if (error instanceof SourceHttpError) throw error;
        retryable = (error as Error).message;
      }
      if (attempt >= RETRIES)
        throw new SourceHttpError(`${init.method ?? "GET"} ${this.base}${path}: ${retryable} (after ${RETRIES} retries)`);
      await sleep(500 * 2 ** attempt);
    }
  }

  private async json(path: string, body?: Body): Promise<Body> {
    return (await (await this.request(path, body ? { method: "POST", body } : {})).json()) as Body;
  }

  async experiments(): Promise<SourceExperiment[]> {
    const out: SourceExperiment[] = [];
    let token: string | undefined;
    do {
      const page = await this.json("/api/2.0/mlflow/experiments/search", {
        max_results: 1000,
        view_type: "ALL",
        ...(token ? { page_token: token } : {}),
      });
      for (const e of list(page.experiments))
        out.push({ id: text(e.experiment_id), name: text(e.name), tags: keyValues(e.tags), deleted: e.lifecycle_stage === "deleted" });
      token = text(page.next_page_token) || undefined;
    } while (token);
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  }

  async *runs(experimentId: string): AsyncGenerator<SourceRun> {
    let token: string | undefined;
    do {
      const page = await this.json("/api/2.0/mlflow/runs/search", {
        experiment_ids: [experimentId],
        max_results: RUNS_PAGE,
        run_view_type: "ALL",
        order_by: ["attributes.start_time ASC"],
        ...(token ? { page_token: token } : {}),
      });
      for (const run of list(page.runs)) yield runOf(run);
      token = text(page.next_page_token) || undefined;
    } while (token);
  }

  async *metricHistory(run: SourceRun, key: string): AsyncGenerator<SourcePoint[]> {
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ run_id: run.runId, metric_key: key, max_results: String(HISTORY_PAGE) });
      if (token) query.set("page_token", token);
      const page = await this.json(`/api/2.0/mlflow/metrics/get-history?${query}`);
      // MLflow 2's server answers the whole history whatever max_results says: written in slices all the same.
      const metrics = list(page.metrics);
      for (let start = 0; start < metrics.length; start += HISTORY_PAGE)
        yield metrics.slice(start, start + HISTORY_PAGE).map((m) => ({
          timestamp: Number(m.timestamp ?? 0),
          value: typeof m.value === "number" ? m.value : parseMetricValue(text(m.value)),
          step: Number(m.step ?? 0),
        }));
      token = text(page.next_page_token) || undefined;
    } while (token);
  }

  async *artifacts(run: SourceRun, directory = ""): AsyncGenerator<SourceArtifact> {
    const query = new URLSearchParams({ run_id: run.runId });
    if (directory) query.set("path", directory);
    const page = await this.json(`/api/2.0/mlflow/artifacts/list?${query}`);
    for (const file of list(page.files)) {
      const path = text(file.path);
      if (file.is_dir === true) yield* this.artifacts(run, path);
      else yield { path, size: Number(file.file_size ?? 0) };
    }
  }

  /** Through the server's artifact proxy (`mlflow-artifacts`), where a server started with --serve-artifacts keeps them. */
  async openArtifact(run: SourceRun, path: string): Promise<Readable> {
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    const response = await this.request(`/api/2.0/mlflow-artifacts/artifacts/${run.experimentId}/${run.runId}/artifacts/${encoded}`);
    if (!response.body) return Readable.from([]);
    return Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
  }

  async registeredModels(): Promise<SourceModel[]> {
    const out: SourceModel[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({ max_results: "1000" });
      if (token) query.set("page_token", token);
      let page: Body;
      try {
        page = await this.json(`/api/2.0/mlflow/registered-models/search?${query}`);
      } catch (error) {
        // A tracking server without a model registry (MLflow's file store behind a server has one; others may not).
        if (error instanceof SourceHttpError && / HTTP (404|501) /.test(error.message)) return [];
        throw error;
      }
      for (const m of list(page.registered_models))
        out.push({
          name: text(m.name),
          description: text(m.description),
          tags: keyValues(m.tags),
          aliases: list(m.aliases).map((a): [string, number] => [text(a.alias), Number(a.version)]),
          versions: [],
        });
      token = text(page.next_page_token) || undefined;
    } while (token);
    for (const model of out) {
      let versionToken: string | undefined;
      do {
        const query = new URLSearchParams({ filter: `name='${model.name.replaceAll("'", "\\'")}'`, max_results: "10000" });
        if (versionToken) query.set("page_token", versionToken);
        const page = await this.json(`/api/2.0/mlflow/model-versions/search?${query}`);
        for (const v of list(page.model_versions))
          model.versions.push({
            version: Number(v.version),
            source: text(v.source),
            runId: text(v.run_id),
            runLink: text(v.run_link),
            description: text(v.description),
            tags: keyValues(v.tags),
            stage: text(v.current_stage) || "None",
          });
        versionToken = text(page.next_page_token) || undefined;
      } while (versionToken);
    }
    return out;
  }

  artifactPathOf(source: string, runId: string): string | undefined {
    const runs = new RegExp(`^runs:/${runId}/(.*)$`).exec(source);
    if (runs) return runs[1];
    const marker = `/${runId}/artifacts/`;
    const at = source.indexOf(marker);
    return at >= 0 ? source.slice(at + marker.length) : undefined;
  }
}

function runOf(run: Body): SourceRun {
  const info = (run.info ?? {}) as Body;
  const data = (run.data ?? {}) as Body;
  const inputs = (run.inputs ?? {}) as Body;
  const status = text(info.status);
  const tags = keyValues(data.tags);
  return {
    runId: text(info.run_id ?? info.run_uuid),
    experimentId: text(info.experiment_id),
    name: text(info.run_name) || (new Map(tags).get("mlflow.runName") ?? ""),
    status: (MLFLOW_STATUSES as readonly string[]).includes(status) ? (status as MlflowStatus) : "RUNNING",
    startTime: Number(info.start_time ?? 0),
    endTime: info.end_time === undefined || info.end_time === null ? null : Number(info.end_time),
    userId: text(info.user_id),
    deleted: info.lifecycle_stage === "deleted",
    params: keyValues(data.params),
    tags,
    metricKeys: [...new Set(list(data.metrics).map((m) => text(m.key)))],
    inputs: list(inputs.dataset_inputs).map(
      (input): DatasetInput => ({
        tags: list(input.tags).map((t) => ({ key: text(t.key), value: text(t.value) })),
        dataset: (input.dataset ?? {}) as DatasetInput["dataset"],
      }),
    ),
  };
}
