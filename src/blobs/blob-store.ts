import type { Readable } from "node:stream";

/**
 * Which file a blob holds. A store makes the blob's key from these IDs only, never from a
 * client-chosen name, so two files cannot share a key and no key leaves the store's root
 * (docs/decisions.md, "Files on S3").
 */
export interface BlobRef {
  orgId: string;
  projectId: number;
  runId: number;
  fileId: number;
}

/** The blobs of one run. */
export type RunBlobsRef = Omit<BlobRef, "fileId">;

/** What removing blobs freed. */
export interface FreedBlobs {
  objects: number;
  bytes: number;
}

/**
 * Where file bytes live: the data directory (local.ts) or an S3-compatible bucket (s3.ts).
 */
export interface BlobStore {
  /**
   * Streams `body` into the blob, replacing any earlier content only once the whole body has
   * arrived: a blob is whole or absent, never half-written. Throws BlobTooLargeError past `maxBytes`
   * (nothing is kept). Returns the number of bytes stored.
   */
  write(ref: BlobRef, body: Readable, maxBytes: number): Promise<number>;
  /** The blob's bytes as a stream with its size, or undefined when there is none. */
  read(ref: BlobRef): Promise<{ stream: Readable; size: number } | undefined>;
  /** The blob's size, or undefined when there is none. */
  size(ref: BlobRef): Promise<number | undefined>;
  /** Removes the blob; removing one that is not there is fine. */
  delete(ref: BlobRef): Promise<void>;
  /**
   * Removes every blob of the run, those no file record names too (an upload whose record went
   * first), and says how many there were and their bytes. Removing a run with none is fine, so a
   * purge interrupted halfway is finished by calling it again.
   */
  deleteRun(ref: RunBlobsRef): Promise<FreedBlobs>;
  /** Whether the store can be used (at start and for the readiness check); throws a message that says what is wrong. */
  check(): Promise<void>;
  /** Releases connections; the server calls it once, after its last request. */
  close(): void;
  /**
   * URLs that move bytes between clients and the store directly, when the store has them (S3
   * presigned URLs); without them the bytes pass through the server's own signed routes.
   */
  readonly direct?: DirectBlobUrls;
}

export interface DirectBlobUrls {
  /** Scheme, host and port the URLs point to (the web UI's Content-Security-Policy allows it). */
  readonly origin: string;
  /** A URL the client PUTs the bytes to, valid `ttlMs` from `now`. */
  uploadUrl(ref: BlobRef, now: number, ttlMs: number): Promise<string>;
  /** A URL that answers the bytes with these headers, valid `ttlMs` from `now` (capped at the store's maximum). */
  downloadUrl(ref: BlobRef, headers: { contentType: string; contentDisposition: string }, now: number, ttlMs: number): Promise<string>;
  /** The sizes of those of these blobs (all of one run) that exist, by file ID: how direct uploads are confirmed. */
  sizesOf(refs: BlobRef[]): Promise<Map<number, number>>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`file is larger than the ${maxBytes} bytes this server accepts (--max-upload-size)`);
  }
}
