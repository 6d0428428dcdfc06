import type { BlobStore } from "../blobs/blob-store.js";
import type { Config } from "../config.js";
import type { Clock } from "../domain/time.js";
import type { Store } from "../store/store.js";
import { FileService } from "./files.js";
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
}

/** The services of one application (src/app.ts builds them once, so state such as upload turns is shared by every route). */
export function createServices(deps: ServiceDeps): Services {
  return { runs: new RunLifecycle(deps), files: new FileService(deps) };
}
