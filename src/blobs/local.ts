import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { access, open, readdir, rename, rm, stat } from "node:fs/promises";
import { constants } from "node:fs";
import { dirname, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type BlobRef, BlobTooLargeError, type BlobStore, type FreedBlobs, type RunBlobsRef } from "./blob-store.js";

/**
 * Blobs as files at `<dataDir>/files/<run ID>/<file ID>` (IDs are unique in the data directory, so
 * the organization and project need not be in the path). A write goes to `tmp/` first, is fsynced,
 * then renamed over the final name (atomic on one file system) and the directory fsynced, so a
 * crash leaves the old content or the new, never a mix. What a crash leaves in `tmp/` is an upload that was never
 * acknowledged and that nothing will finish, so opening the store deletes it — but only once it has
 * not grown for ABANDONED_UPLOAD_MS: several processes may share the data directory, and another
 * one's upload in progress grows at least every --body-timeout (docs/api.md, Connections and timeouts).
 */
export class LocalBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = join(root, "tmp");
    // Owner-only directories and files, like the database and signing.key.
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o700 });
    deleteAbandonedUploads(this.tmpDir, Date.now());
  }

  async write(ref: BlobRef, body: Readable, maxBytes: number): Promise<number> {
    const target = this.pathOf(ref);
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
    // body.pipe rather than pipeline(body, ...): pipeline destroys every stream when one fails, and a
    // destroyed request resets the connection, so the client would never see the 503 of a full disk.
    // After a failed write the rest of the body is read and dropped instead.
    body.once("error", (error) => limit.destroy(error));
    body.pipe(limit);
    try {
      await pipeline(limit, createWriteStream(temp, { flags: "wx", mode: 0o600 }));
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      await fsync(temp);
      const directory = dirname(target);
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      await rename(temp, target);
      await fsync(directory);
      return size;
    } catch (error) {
      body.unpipe(limit);
      body.resume();
      await rm(temp, { force: true });
      throw error;
    }
  }

  async read(ref: BlobRef): Promise<{ stream: Readable; size: number } | undefined> {
    const path = this.pathOf(ref);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async size(ref: BlobRef): Promise<number | undefined> {
    try {
      return (await stat(this.pathOf(ref))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async delete(ref: BlobRef): Promise<void> {
    await rm(this.pathOf(ref), { force: true });
  }

  async deleteRun(ref: RunBlobsRef): Promise<FreedBlobs> {
    const directory = this.pathOf({ ...ref, fileId: 1 }).replace(/[0-9]+$/, "");
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { objects: 0, bytes: 0 };
      throw error;
    }
    let bytes = 0;
    for (const name of names) bytes += (await stat(join(directory, name)).catch(() => ({ size: 0 }))).size;
    await rm(directory, { recursive: true, force: true });
    return { objects: names.length, bytes };
  }

  async check(): Promise<void> {
    await access(this.tmpDir, constants.W_OK);
  }

  close(): void {}

  /** Where the bytes of a file are: `<root>/<run ID>/<file ID>`. */
  pathOf({ runId, fileId }: BlobRef): string {
    if (!Number.isSafeInteger(runId) || !Number.isSafeInteger(fileId) || runId < 1 || fileId < 1) {
      throw new Error(`invalid blob reference ${runId}/${fileId}`);
    }
    return join(this.root, String(runId), String(fileId));
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

/** A temporary upload file untouched this long belongs to no live upload (they must keep moving). */
export const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;

function deleteAbandonedUploads(tmpDir: string, now: number): void {
  for (const name of readdirSync(tmpDir)) {
    const path = join(tmpDir, name);
    try {
      if (now - statSync(path).mtimeMs > ABANDONED_UPLOAD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Finished (renamed) or removed by another process meanwhile: nothing left to clean.
    }
  }
}
