import { Readable } from "node:stream";
import { type BlobRef, BlobTooLargeError } from "../blobs/blob-store.js";
import { DomainError } from "../domain/errors.js";
import { checkFileName, contentTypeOfFile } from "../domain/files.js";
import type { FileQuery, NewFile, StoredFile } from "../store/store.js";
import { UploadRecorder } from "./file-uploads.js";
import type { ServiceDeps } from "./deps.js";

/** Bytes of a file live in the blob store under its organization, project, run and ID, never under a client-chosen name. */
export const blobRefOf = (file: StoredFile): BlobRef => ({
  orgId: file.orgId,
  projectId: file.projectId,
  runId: file.runId,
  fileId: file.id,
});

/** A file's bytes ready to send: the stream (the caller must see it closed), its size and the Content-Type it is served with. */
export interface FileDownload {
  file: StoredFile;
  stream: Readable;
  size: number;
  contentType: string;
}

/**
 * The one file workflow of both protocols (Stepwise's /files and signed URLs, MLflow's artifact
 * proxy): register, receive the bytes, confirm direct uploads, list, open for download, delete.
 * One instance per application, so the upload records of a file take turns (UploadRecorder).
 */
export class FileService {
  private readonly uploads: UploadRecorder;

  constructor(private readonly deps: Omit<ServiceDeps, "metrics">) {
    this.uploads = new UploadRecorder(deps.store, deps.blobs);
  }

  get maxUploadBytes(): number {
    return this.deps.config.maxUploadBytes;
  }

  /** The 413 of a file past the size limit (--max-upload-size). */
  tooLarge(error = new BlobTooLargeError(this.maxUploadBytes)): DomainError {
    return new DomainError("PAYLOAD_TOO_LARGE", error.message);
  }

  /**
   * Registers files of a run (undefined when the run is not in the organization). Each name is a
   * label, never a path (checkFileName, `field` names it in the 400). Uploads straight to a bucket
   * cannot be cut off as they stream: their declared size is checked here, the stored size when the
   * upload is confirmed (docs/api.md, "Files on S3").
   */
  async register(
    orgId: string,
    runId: number,
    files: NewFile[],
    field: (index: number) => string,
    now: number,
  ): Promise<StoredFile[] | undefined> {
    for (const [index, file] of files.entries()) {
      checkFileName(file.fileName, field(index));
      if (this.deps.blobs.direct && file.fileSize > this.maxUploadBytes) throw this.tooLarge();
    }
    return this.deps.store.registerFiles(orgId, runId, files, now);
  }

  /** Streams an upload's body into the file's blob (413 past the limit, nothing kept), then records its size. */
  async receive(file: StoredFile, body: Readable | undefined): Promise<void> {
    try {
      await this.deps.blobs.write(blobRefOf(file), body ?? Readable.from([]), this.maxUploadBytes);
    } catch (error) {
      throw error instanceof BlobTooLargeError ? this.tooLarge(error) : error;
    }
    await this.uploads.record(file.id, blobRefOf(file), this.deps.clock.now());
  }

  /**
   * The run's uploaded files. Uploads to a bucket's presigned URLs never pass through the server,
   * so the listing first records them: the files still waiting for their bytes are looked up in the
   * bucket, and those that are there are recorded with their real size. One past the size limit is
   * deleted instead.
   */
  async list(orgId: string, runId: number, query: FileQuery): Promise<StoredFile[]> {
    const { store, blobs, clock } = this.deps;
    if (blobs.direct) {
      const pending = await store.listFiles(orgId, runId, { ...query, pending: true });
      const sizes = pending.length === 0 ? new Map<number, number>() : await blobs.direct.sizesOf(pending.map(blobRefOf));
      for (const file of pending) {
        const size = sizes.get(file.id);
        if (size === undefined) continue;
        if (size > this.maxUploadBytes) await blobs.delete(blobRefOf(file));
        else await store.markFileUploaded(file.id, size, clock.now());
      }
    }
    return store.listFiles(orgId, runId, query);
  }

  /** A file's bytes to download, or undefined when its blob is not there. */
  async open(file: StoredFile): Promise<FileDownload | undefined> {
    const blob = await this.deps.blobs.read(blobRefOf(file));
    return blob && { file, stream: blob.stream, size: blob.size, contentType: contentTypeOfFile(file.fileType, file.fileName) };
  }

  /** Deletes a file's record, then its bytes. */
  async delete(orgId: string, file: StoredFile): Promise<void> {
    await this.deps.store.deleteFile(orgId, file.id);
    await this.deps.blobs.delete(blobRefOf(file));
  }
}
