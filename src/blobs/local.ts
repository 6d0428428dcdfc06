import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync } from "node:fs";
import { access, open, rename, rm, stat } from "node:fs/promises";
import { constants } from "node:fs";
import { dirname, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BlobTooLargeError, type BlobStore } from "./blob-store.js";

/** Keys are server-made: digits and single slashes, e.g. "12/345". Anything else is a bug. */
const KEY_PATTERN = /^[0-9]+(\/[0-9]+)*$/;

/**
 * Blobs as files under `<dataDir>/files`. A write goes to `tmp/` first, is fsynced, then renamed
 * over the final name (atomic on one file system) and the directory fsynced, so a crash leaves the
 * old content or the new, never a mix.
 */
export class LocalBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = join(root, "tmp");
    mkdirSync(this.tmpDir, { recursive: true });
  }

  async write(key: string, body: Readable, maxBytes: number): Promise<number> {
    const target = this.pathOf(key);
    const temp = join(this.tmpDir, randomUUID());
    let size = 0;
    // Past the limit the rest of the body is read and dropped rather than failing the stream:
    // failing would reset the connection, and the client would never see the 413.
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(null, size > maxBytes ? undefined : chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(temp, { flags: "wx" }));
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      await fsync(temp);
      const directory = dirname(target);
      mkdirSync(directory, { recursive: true });
      await rename(temp, target);
      await fsync(directory);
      return size;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    const path = this.pathOf(key);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async check(): Promise<void> {
    await access(this.tmpDir, constants.W_OK);
  }

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid blob key '${key}'`);
    return join(this.root, key);
  }
}

async function fsync(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
