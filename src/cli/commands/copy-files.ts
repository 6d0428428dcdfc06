import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { BlobRef } from "../../blobs/blob-store.js";
import { LocalBlobStore } from "../../blobs/local.js";
import { ConfigError, loadConfig, OPTIONS, parseBlobUrl } from "../../config.js";
import type { Store } from "../../store/store.js";
import { configFlags, openStore, UsageError, type Command } from "../command.js";

const COPY_OPTIONS = ["--data-dir", "--blob-url", "--s3-endpoint", "--s3-region", "--s3-force-path-style"];
/** Files copied at once: enough to hide round trips, few enough for a small machine. */
const CONCURRENCY = 4;

export const copyFilesCommand: Command = {
  summary: "copy file bytes from a data directory to S3 (resumable)",
  usage: `Usage: stepwise copy-files --data-dir DIR --blob-url s3://BUCKET/PREFIX [S3 options]

Copies the bytes of every uploaded file of the data directory to the bucket, under the keys the
server uses with that --blob-url, so a server started with it finds them. A re-run skips objects
already there with the same size and SHA-256, so an interrupted copy resumes. The server may keep
running on the data directory meanwhile; start it with --blob-url once the copy is done.
Credentials come from the AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE).

Options:
${OPTIONS.filter((o) => COPY_OPTIONS.includes(o.flag))
  .map((o) => `  ${`${o.flag} VALUE`.padEnd(28)} ${o.doc} (env ${o.env})`)
  .join("\n")}`,
  valueOptions: COPY_OPTIONS.map((flag) => flag.slice(2)),
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = loadConfig(configFlags(values));
    if (!config.blobUrl) throw new UsageError("--blob-url s3://BUCKET/PREFIX is required: where to copy to");
    const store = await openStore(values, { create: false });
    // Loaded here, not at the top: every CLI command imports this module, and the SDK costs memory.
    const { S3BlobStore } = await import("../../blobs/s3.js");
    const target = new S3BlobStore({
      ...parseBlobUrl(config.blobUrl),
      endpoint: config.s3Endpoint,
      region: config.s3Region,
      forcePathStyle: config.s3ForcePathStyle,
    });
    try {
      await target.check().catch((error: Error) => {
        throw new ConfigError(error.message);
      });
      const source = new LocalBlobStore(join(config.dataDir, "files"));
      const files = await localFiles(store, source, join(config.dataDir, "files"));
      const total = files.reduce((sum, file) => sum + file.size, 0);
      const progress = { copied: 0, skipped: 0, bytes: 0 };
      const report = () =>
        console.log(
          `${progress.copied + progress.skipped}/${files.length} files (${progress.copied} copied, ${progress.skipped} already there), ` +
            `${megabytes(progress.bytes)}/${megabytes(total)} MB`,
        );
      const ticker = setInterval(report, 2000);
      try {
        let next = 0;
        const worker = async () => {
          while (next < files.length) {
            const file = files[next++]!;
            const sha256 = await sha256Of(file.path);
            const there = await target.describe(file.ref);
            if (there?.size === file.size && there.sha256 === sha256) progress.skipped++;
            else {
              await target.putFile(file.ref, createReadStream(file.path), sha256);
              progress.copied++;
            }
            progress.bytes += file.size;
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      } finally {
        clearInterval(ticker);
      }
      report();
      console.log("done: every file of the data directory is in the bucket");
      return 0;
    } finally {
      target.close();
      await store.close();
    }
  },
};

interface LocalFile {
  ref: BlobRef;
  path: string;
  size: number;
}

/**
 * The files whose bytes are in the data directory (`<root>/<run ID>/<file ID>`), with the
 * organization and project the database records for each. A file on disk the database does not
 * know (an upload whose record was never committed) is left out.
 */
async function localFiles(store: Store, source: LocalBlobStore, root: string): Promise<LocalFile[]> {
  const found: LocalFile[] = [];
  for (const runDir of await readdir(root)) {
    if (!/^[0-9]+$/.test(runDir)) continue; // tmp/ and anything not made by the server
    for (const name of await readdir(join(root, runDir))) {
      if (!/^[0-9]+$/.test(name)) continue;
      const file = await store.getFile(Number(name));
      if (!file?.uploadedAt || file.runId !== Number(runDir)) continue;
      const ref = { orgId: file.orgId, projectId: file.projectId, runId: file.runId, fileId: file.id };
      const path = source.pathOf(ref);
      found.push({ ref, path, size: (await stat(path)).size });
    }
  }
  return found;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);
