import { invalidParameter } from "./errors.js";
import { isMlflowRunId } from "./ids.js";

/**
 * MLflow artifacts as Stepwise files (docs/api.md, "MLflow's REST API: artifacts"): each artifact is a
 * file of its run under one log name, its file name the artifact's path relative to the run's root.
 */
export const ARTIFACT_LOG_NAME = "mlflow-artifacts";

/**
 * The log name of logged models' files (MLflow 3): a model's files are files of its source run under
 * this log name, each file name `<model id>/<path>`, apart from the run's own artifacts.
 */
export const MODEL_ARTIFACT_LOG_NAME = "mlflow-model-artifacts";

/** The Stepwise file an artifact upload registers: typed by its extension ("bin" without one), at step 0. */
export function artifactFile(relative: string, declaredSize: number, now: number, logName: string = ARTIFACT_LOG_NAME) {
  const extension = /\.([A-Za-z0-9]{1,16})$/.exec(relative)?.[1]?.toLowerCase() ?? "bin";
  return { logName, fileName: relative, fileType: extension, fileSize: declaredSize, time: now, step: 0 };
}

/** A relative artifact path without leading, trailing or doubled slashes; `.` and `..` segments are refused. */
export function normalizeArtifactPath(path: string): string {
  const parts = path.split("/").filter((part) => part !== "");
  if (parts.some((part) => part === "." || part === "..")) throw invalidParameter(`Invalid artifact path '${path}'`);
  return parts.join("/");
}

/** A proxy path of a logged model's files, `<experiment id>/models/<model id>/artifacts[/<relative path>]` (MLflow 3). */
export function parseModelArtifactPath(path: string): { experimentId: string; modelId: string; relative: string } | undefined {
  const [experimentId, models, modelId, root, ...rest] = normalizeArtifactPath(path).split("/");
  if (
    models !== "models" ||
    !experimentId ||
    !/^\d+$/.test(experimentId) ||
    !modelId ||
    !/^m-[0-9a-f]{32}$/.test(modelId) ||
    root !== "artifacts"
  )
    return undefined;
  return { experimentId, modelId, relative: rest.join("/") };
}

/** A proxy path `<experiment id>/<run id>/artifacts[/<relative path>]`. */
export function parseArtifactPath(path: string): { experimentId: string; runId: string; relative: string } {
  const parts = normalizeArtifactPath(path).split("/");
  const [experimentId, runId, root, ...rest] = parts;
  if (!experimentId || !runId || root !== "artifacts" || !/^\d+$/.test(experimentId) || !isMlflowRunId(runId))
    throw invalidParameter(`Invalid artifact path '${path}': expected <experiment id>/<run id>/artifacts/<path>`);
  return { experimentId, runId, relative: rest.join("/") };
}

export interface DirectoryEntry {
  name: string;
  isDir: boolean;
  size: number;
}

/** The direct children of a directory, from the files' paths: files with their sizes, then directories, by name. */
export function listDirectory(files: readonly { fileName: string; fileSize: number }[], directory: string): DirectoryEntry[] {
  const prefix = directory === "" ? "" : `${directory}/`;
  const entries = new Map<string, DirectoryEntry>();
  for (const file of files) {
    if (!file.fileName.startsWith(prefix)) continue;
    const rest = file.fileName.slice(prefix.length);
    const slash = rest.indexOf("/");
    const name = slash === -1 ? rest : rest.slice(0, slash);
    if (name === "") continue;
    entries.set(name, slash === -1 ? { name, isDir: false, size: file.fileSize } : { name, isDir: true, size: 0 });
  }
  return [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
