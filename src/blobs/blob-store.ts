import type { Readable } from "node:stream";

/**
 * Where file bytes live. The embedded store keeps them in the data directory (local.ts); an
 * object-storage implementation (S3 and compatibles) can follow behind the same interface.
 * Keys are made by the server from numeric IDs, never from client input.
 */
export interface BlobStore {
  /**
   * Streams `body` into the blob `key`, replacing any earlier content only once the whole body has
   * arrived: a blob is whole or absent, never half-written. Throws BlobTooLargeError past `maxBytes`
   * (nothing is kept). Returns the number of bytes stored.
   */
  write(key: string, body: Readable, maxBytes: number): Promise<number>;
  /** The blob's bytes as a stream with its size, or undefined when there is none. */
  read(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** Whether the store can be used (for the readiness check). */
  check(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`file is larger than the ${maxBytes} bytes this server accepts (--max-upload-size)`);
  }
}
