import type { BlobStore } from "../blobs/blob-store.js";
import type { Config } from "../config.js";
import type { Clock } from "../domain/time.js";
import type { Store } from "../store/store.js";

/** What the HTTP application is built from (src/app.ts); every route plugin takes these. */
export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  blobs: BlobStore;
  /** HMAC secret of signed file URLs (files/signing-secret.ts). */
  signingSecret: Buffer;
}
