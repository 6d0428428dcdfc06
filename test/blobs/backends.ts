import { rmSync } from "node:fs";
import type { BlobStore } from "../../src/blobs/blob-store.js";
import { LocalBlobStore } from "../../src/blobs/local.js";
import { S3BlobStore } from "../../src/blobs/s3.js";
import { makeTempDir } from "../helpers/start-server.js";
import { startSwiftS3 } from "../helpers/swift.js";

/** A blob store under test: opens a fresh, empty one and removes it afterwards. */
export interface BlobBackend {
  name: string;
  open(): Promise<{ blobs: BlobStore; destroy(): Promise<void> }>;
}

export const BLOB_BACKENDS: BlobBackend[] = [
  {
    name: "data directory",
    async open() {
      const dir = makeTempDir("stepwise-blobs-");
      return { blobs: new LocalBlobStore(dir), destroy: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "S3 (Swift)",
    async open() {
      const swift = await startSwiftS3();
      Object.assign(process.env, swift.env);
      const blobs = new S3BlobStore({
        bucket: swift.bucket,
        prefix: "contract/",
        endpoint: swift.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
      });
      return {
        blobs,
        async destroy() {
          blobs.close();
          await swift.stop();
        },
      };
    },
  },
];
