import { createReadStream, existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import type { DatasetInput } from "../../domain/mlflow/datasets.js";
import { fileStoreStatus, parseMetricLine } from "../../domain/mlflow/import.js";
import type { MlflowSource, SourceArtifact, SourceExperiment, SourceModel, SourcePoint, SourceRun } from "./source.js";

/** Points per slice of a metric file: a history of millions of points is never read whole. */
const SLICE = 5_000;

type Yaml = Record<string, unknown>;

const text = (value: unknown): string => (value === null || value === undefined ? "" : String(value));

async function readYaml(path: string): Promise<Yaml> {
  const parsed: unknown = parseYaml(await readFile(path, "utf8"));
  return parsed !== null && typeof parsed === "object" ? (parsed as Yaml) : {};
}

async function entries(directory: string) {
  try {
    return await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** The files under a directory, as `/`-separated paths relative to it, walked depth first in name order. */
async function* filesUnder(root: string, directory = root): AsyncGenerator<string> {
  const found = (await entries(directory)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of found) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* filesUnder(root, path);
    else if (entry.isFile()) yield relative(root, path).split(sep).join("/");
  }
}

/** A key-per-file folder (params/, tags/): file name (or `/`-separated path, for keys with slashes) → its content. */
async function keyValues(directory: string): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const key of filesUnder(directory)) out.push([key, await readFile(join(directory, ...key.split("/")), "utf8")]);
  return out;
}

/**
 * MLflow's file store, an `mlruns` directory (mlflow/store/tracking/file_store.py): one folder per
 * experiment with its meta.yaml, one per run inside with meta.yaml, params/, tags/, metrics/ (a file
 * per key, nested for keys with slashes, one `timestamp value step` line per point), inputs/ and
 * artifacts/; deleted experiments in .trash/; registered models in models/.
 */
export class FileStoreSource implements MlflowSource {
  readonly label: string;
  private readonly root: string;
  /** Each experiment's folder (active ones in the root, deleted ones in .trash). */
  private readonly folders = new Map<string, string>();
  /** Each run's artifact directory, from its artifact_uri when that is local (file:// or a path); else the run folder's artifacts/. */
  private readonly artifactRoots = new Map<string, string>();

  constructor(directory: string) {
    this.root = resolve(directory);
    this.label = this.root;
  }

  async experiments(): Promise<SourceExperiment[]> {
    const out: SourceExperiment[] = [];
    for (const parent of [this.root, join(this.root, ".trash")]) {
      for (const entry of await entries(parent)) {
        if (!entry.isDirectory() || !/^\d+$/.test(entry.name)) continue;
        const folder = join(parent, entry.name);
        const meta = await readYaml(join(folder, "meta.yaml")).catch(() => undefined);
        if (!meta) continue;
        this.folders.set(entry.name, folder);
        out.push({
          id: entry.name,
          name: text(meta.name),
          tags: await keyValues(join(folder, "tags")),
          deleted: meta.lifecycle_stage === "deleted" || parent !== this.root,
        });
      }
    }
    return out.sort((a, b) => Number(a.id) - Number(b.id));
  }

  private folderOf(experimentId: string): string {
    return this.folders.get(experimentId) ?? join(this.root, experimentId);
  }

  private runFolder(run: SourceRun): string {
    return join(this.folderOf(run.experimentId), run.runId);
  }

  async *runs(experimentId: string): AsyncGenerator<SourceRun> {
    const folder = this.folderOf(experimentId);
    const runIds = (await entries(folder)).filter((e) => e.isDirectory() && /^[0-9a-f]{32}$/.test(e.name)).map((e) => e.name);
    for (const runId of runIds.sort()) {
      const runFolder = join(folder, runId);
      const meta = await readYaml(join(runFolder, "meta.yaml"));
      const tags = await keyValues(join(runFolder, "tags"));
      const artifactUri = text(meta.artifact_uri);
      if (artifactUri.startsWith("file://")) this.artifactRoots.set(runId, fileURLToPath(artifactUri));
      else if (artifactUri.startsWith("/")) this.artifactRoots.set(runId, artifactUri);
      const metricKeys: string[] = [];
      for await (const key of filesUnder(join(runFolder, "metrics"))) metricKeys.push(key);
      yield {
        runId,
        experimentId,
        name: text(meta.run_name) || (new Map(tags).get("mlflow.runName") ?? ""),
        status: fileStoreStatus(meta.status),
        startTime: Number(meta.start_time ?? 0),
        endTime: meta.end_time === null || meta.end_time === undefined ? null : Number(meta.end_time),
        userId: text(meta.user_id),
        deleted: meta.lifecycle_stage === "deleted",
        params: await keyValues(join(runFolder, "params")),
        tags,
        metricKeys,
        inputs: await this.inputs(folder, runFolder),
      };
    }
  }

  /** A run's dataset inputs: inputs/<id>/meta.yaml names a dataset of the experiment's datasets/ folder. */
  private async inputs(experimentFolder: string, runFolder: string): Promise<DatasetInput[]> {
    const out: DatasetInput[] = [];
    for (const entry of await entries(join(runFolder, "inputs"))) {
      if (!entry.isDirectory()) continue;
      const input = await readYaml(join(runFolder, "inputs", entry.name, "meta.yaml"));
      if (input.source_type !== "DATASET" || !/^[0-9a-f]+$/.test(text(input.source_id))) continue;
      const dataset = await readYaml(join(experimentFolder, "datasets", text(input.source_id), "meta.yaml"));
      const tags = input.tags !== null && typeof input.tags === "object" ? Object.entries(input.tags as Yaml) : [];
      out.push({
        tags: tags.map(([key, value]) => ({ key, value: text(value) })),
        dataset: {
          name: text(dataset.name),
          digest: text(dataset.digest),
          source_type: text(dataset.source_type),
          source: text(dataset.source),
          ...(dataset.schema !== undefined && dataset.schema !== null ? { schema: text(dataset.schema) } : {}),
          ...(dataset.profile !== undefined && dataset.profile !== null ? { profile: text(dataset.profile) } : {}),
        },
      });
    }
    return out;
  }

  async *metricHistory(run: SourceRun, key: string): AsyncGenerator<SourcePoint[]> {
    const lines = createInterface({
      input: createReadStream(join(this.runFolder(run), "metrics", ...key.split("/"))),
      crlfDelay: Infinity,
    });
    let slice: SourcePoint[] = [];
    for await (const line of lines) {
      if (line.trim() === "") continue;
      slice.push(parseMetricLine(line));
      if (slice.length >= SLICE) {
        yield slice;
        slice = [];
      }
    }
    if (slice.length > 0) yield slice;
  }

  async *artifacts(run: SourceRun): AsyncGenerator<SourceArtifact> {
    const root = this.artifactRootOf(run);
    for await (const path of filesUnder(root)) yield { path, size: (await stat(join(root, ...path.split("/")))).size };
  }

  /** An mlruns directory moved from where it was written keeps the old absolute artifact_uri: then the run folder's artifacts/ is read. */
  private artifactRootOf(run: SourceRun): string {
    const recorded = this.artifactRoots.get(run.runId);
    return recorded !== undefined && existsSync(recorded) ? recorded : join(this.runFolder(run), "artifacts");
  }

  async openArtifact(run: SourceRun, path: string): Promise<Readable> {
    return createReadStream(join(this.artifactRootOf(run), ...path.split("/")));
  }

  async registeredModels(): Promise<SourceModel[]> {
    const out: SourceModel[] = [];
    const folder = join(this.root, "models");
    for (const entry of await entries(folder)) {
      if (!entry.isDirectory()) continue;
      const modelFolder = join(folder, entry.name);
      const meta = await readYaml(join(modelFolder, "meta.yaml")).catch(() => undefined);
      if (!meta) continue;
      const aliases = meta.aliases !== null && typeof meta.aliases === "object" ? Object.entries(meta.aliases as Yaml) : [];
      const model: SourceModel = {
        name: text(meta.name),
        description: text(meta.description),
        tags: await keyValues(join(modelFolder, "tags")),
        aliases: aliases.map(([alias, version]): [string, number] => [alias, Number(version)]),
        versions: [],
      };
      for (const versionEntry of await entries(modelFolder)) {
        if (!versionEntry.isDirectory() || !/^version-\d+$/.test(versionEntry.name)) continue;
        const versionFolder = join(modelFolder, versionEntry.name);
        const version = await readYaml(join(versionFolder, "meta.yaml"));
        if (version.current_stage === "Deleted_Internal") continue;
        model.versions.push({
          version: Number(version.version),
          source: text(version.source),
          runId: text(version.run_id),
          runLink: text(version.run_link),
          description: text(version.description),
          tags: await keyValues(join(versionFolder, "tags")),
          stage: text(version.current_stage) || "None",
        });
      }
      out.push(model);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  artifactPathOf(source: string, runId: string): string | undefined {
    const runs = new RegExp(`^runs:/${runId}/(.*)$`).exec(source);
    if (runs) return runs[1];
    const local = /^file:\/\/(.*)$/.exec(source)?.[1] ?? (source.startsWith("/") ? source : undefined);
    const marker = `/${runId}/artifacts/`;
    const at = local?.indexOf(marker) ?? -1;
    return local && at >= 0 ? local.slice(at + marker.length) : undefined;
  }
}
