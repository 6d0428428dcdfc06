import type { Readable } from "node:stream";
import type { DatasetInput } from "../../domain/mlflow/datasets.js";
import type { MlflowStatus } from "../../domain/mlflow/model.js";

/**
 * What `stepwise import mlflow` reads from an MLflow tracking store, whichever kind it is: a running
 * server's REST API (rest-source.ts) or an mlruns directory (file-source.ts). Everything that may be
 * large comes in slices (a metric's history, an artifact's bytes, the list of runs), never whole.
 */
export interface SourceExperiment {
  id: string;
  name: string;
  tags: [string, string][];
  deleted: boolean;
}

export interface SourceRun {
  runId: string;
  experimentId: string;
  name: string;
  status: MlflowStatus;
  startTime: number;
  endTime: number | null;
  userId: string;
  deleted: boolean;
  params: [string, string][];
  tags: [string, string][];
  /** The keys of the run's metrics (their points come from metricHistory). */
  metricKeys: string[];
  inputs: DatasetInput[];
}

/** One metric point as MLflow keeps it: client time (epoch ms), value (NaN and ±Infinity included) and step. */
export interface SourcePoint {
  timestamp: number;
  value: number;
  step: number;
}

export interface SourceArtifact {
  /** Relative to the run's artifact root, `/`-separated. */
  path: string;
  size: number;
}

export interface SourceModelVersion {
  version: number;
  source: string;
  runId: string;
  runLink: string;
  description: string;
  tags: [string, string][];
  stage: string;
}

export interface SourceModel {
  name: string;
  description: string;
  tags: [string, string][];
  aliases: [string, number][];
  versions: SourceModelVersion[];
}

export interface MlflowSource {
  /** The source as messages name it (a URL without credentials, or a directory). */
  readonly label: string;
  /** Every experiment, deleted ones included. */
  experiments(): Promise<SourceExperiment[]>;
  /** The experiment's runs, deleted ones included, page by page. */
  runs(experimentId: string): AsyncIterable<SourceRun>;
  /** A metric's whole history in slices, in the source's order. */
  metricHistory(run: SourceRun, key: string): AsyncIterable<SourcePoint[]>;
  /** The run's artifact files (directories walked), with their sizes. */
  artifacts(run: SourceRun): AsyncIterable<SourceArtifact>;
  /** An artifact's bytes as a stream. */
  openArtifact(run: SourceRun, path: string): Promise<Readable>;
  /** The registered models with their versions; empty when the source has no model registry. */
  registeredModels(): Promise<SourceModel[]>;
  /**
   * A model version's source URI as a path inside a run's artifacts, when it names one
   * (`runs:/<id>/<path>`, or the run's artifact location followed by a path); undefined otherwise.
   */
  artifactPathOf(source: string, runId: string): string | undefined;
}
