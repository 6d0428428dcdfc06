import { join } from "node:path";
import { type Config, ConfigError, parseBlobUrl } from "../config.js";
import type { BlobStore } from "./blob-store.js";
import { LocalBlobStore } from "./local.js";

/**
 * The blob store the configuration names (--blob-url), checked before the server takes requests:
 * a bucket that cannot be used is a configuration error at start, not a failure of the first upload.
 */
export async function openBlobStore(config: Config): Promise<BlobStore> {
  // The AWS SDK is loaded only when used: it costs about 20 MB of memory.
  const blobs = config.blobUrl
    ? new (await import("./s3.js")).S3BlobStore({
        ...parseBlobUrl(config.blobUrl),
        endpoint: config.s3Endpoint,
        region: config.s3Region,
        forcePathStyle: config.s3ForcePathStyle,
        directUrls: config.s3DirectUrls,
      })
    : new LocalBlobStore(join(config.dataDir, "files"));
  try {
    await blobs.check();
  } catch (error) {
    blobs.close();
    throw new ConfigError((error as Error).message);
  }
  return blobs;
}
