import type { BlobStore } from "../blobs/blob-store.js";
import type { Config } from "../config.js";
import type { Clock } from "../domain/time.js";
import type { ServerMetrics } from "../observability/metrics.js";
import type { Store } from "../store/store.js";

/** What the services work over. */
export interface ServiceDeps {
  config: Config;
  store: Store;
  clock: Clock;
  blobs: BlobStore;
  /** The server's own metrics (GET /metrics): ingest counts its points, the alert worker its deliveries. */
  metrics: ServerMetrics;
}
