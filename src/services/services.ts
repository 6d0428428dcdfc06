import type { BlobStore } from "../blobs/blob-store.js";
import type { Config } from "../config.js";
import type { Clock } from "../domain/time.js";
import type { Store } from "../store/store.js";
import { FileService } from "./files.js";
import { MlflowExperiments } from "./mlflow-experiments.js";
import { MlflowRuns } from "./mlflow-runs.js";
import { RunLifecycle } from "./runs.js";

/** What the services work over. */
export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  blobs: BlobStore;
}

/** The write workflows, one service each; both protocols' routes call these (docs/architecture.md). */
export interface Services {
  /** Create, resume, status, tags, notes, config, ... of a run. */
  runs: RunLifecycle;
  /** Register, upload, list, download and delete files (and MLflow's artifacts). */
  files: FileService;
  /** MLflow's experiments (Stepwise projects). */
  mlflowExperiments: MlflowExperiments;
  /** MLflow's run writes: create, update, log-batch (through ingest.ts), tags, inputs, models. */
  mlflowRuns: MlflowRuns;
}

/** The services of one application (src/app.ts builds them once, so state such as upload turns is shared by every route). */
export function createServices(deps: ServiceDeps): Services {
  const runs = new RunLifecycle(deps);
  return {
    runs,
    files: new FileService(deps),
    mlflowExperiments: new MlflowExperiments(deps),
    mlflowRuns: new MlflowRuns(deps, runs),
  };
}
