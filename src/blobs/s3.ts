import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Transform, type Readable } from "node:stream";
import { type BlobRef, type BlobStore, BlobTooLargeError, type DirectBlobUrls, type FreedBlobs, type RunBlobsRef } from "./blob-store.js";

export interface S3Options {
  bucket: string;
  /** Ends with "/" unless empty. */
  prefix: string;
  /** Empty: AWS itself. */
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  /** Hand out presigned URLs (the default); without them bytes pass through the server. */
  directUrls?: boolean;
}

/** SigV4 presigned URLs live at most 7 days. */
export const S3_MAX_URL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Uploads through the server buffer at most PART_SIZE × PARTS_IN_FLIGHT bytes each (S3's smallest part is 5 MiB). */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** Up to this many blobs are looked up one by one; more are found by listing the run's keys (1,000 per request). */
const LOOKUPS_BEFORE_LISTING = 16;
const LOOKUP_CONCURRENCY = 8;
/** Organization IDs are UUIDs; anything else in a key would be a bug, not a name to store under. */
const ORG_ID_PATTERN = /^[0-9a-zA-Z-]{1,64}$/;

/**
 * Blobs as objects in an S3-compatible bucket, at
 * `<prefix>orgs/<organization ID>/projects/<project ID>/runs/<run ID>/files/<file ID>`
 * (docs/decisions.md, "Files on S3"). Clients move the bytes with presigned URLs;
 * the server's signed routes stream through in parts when they are used instead.
 */
export class S3BlobStore implements BlobStore {
  readonly direct: DirectBlobUrls | undefined;
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      // With the defaults, streamed uploads use aws-chunked encoding with a checksum trailer that many
      // S3-compatible servers reject, and presigned PUT URLs carry the checksum of an empty body.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    const origin = options.endpoint
      ? new URL(options.endpoint).origin
      : `https://${options.forcePathStyle ? "s3" : `${options.bucket}.s3`}.${options.region}.amazonaws.com`;
    this.direct =
      options.directUrls === false
        ? undefined
        : {
            origin,
            uploadUrl: (ref, now, ttlMs) =>
              getSignedUrl(this.client, new PutObjectCommand({ Bucket: options.bucket, Key: this.keyOf(ref) }), {
                signingDate: new Date(now),
                expiresIn: Math.floor(Math.min(ttlMs, S3_MAX_URL_TTL_MS) / 1000),
              }),
            downloadUrl: (ref, headers, now, ttlMs) =>
              getSignedUrl(
                this.client,
                new GetObjectCommand({
                  Bucket: options.bucket,
                  Key: this.keyOf(ref),
                  ResponseContentType: headers.contentType,
                  ResponseContentDisposition: headers.contentDisposition,
                }),
                { signingDate: new Date(now), expiresIn: Math.floor(Math.min(ttlMs, S3_MAX_URL_TTL_MS) / 1000) },
              ),
            sizesOf: (refs) => this.sizesOf(refs),
          };
  }

  /** The object key of a file (README, "Files on S3": layout). */
  keyOf({ orgId, projectId, runId, fileId }: BlobRef): string {
    if (!ORG_ID_PATTERN.test(orgId) || ![projectId, runId, fileId].every((id) => Number.isSafeInteger(id) && id > 0)) {
      throw new Error(`invalid blob reference ${orgId}/${projectId}/${runId}/${fileId}`);
    }
    return `${this.options.prefix}orgs/${orgId}/projects/${projectId}/runs/${runId}/files/${fileId}`;
  }

  /** The run's folder of keys: `keyOf` up to the file ID. */
  private runPrefixOf(ref: BlobRef): string {
    return this.keyOf(ref).replace(/[0-9]+$/, "");
  }

  private async sizesOf(refs: BlobRef[]): Promise<Map<number, number>> {
    const sizes = new Map<number, number>();
    if (refs.length <= LOOKUPS_BEFORE_LISTING) {
      let next = 0;
      const worker = async () => {
        while (next < refs.length) {
          const ref = refs[next++]!;
          const size = await this.size(ref);
          if (size !== undefined) sizes.set(ref.fileId, size);
        }
      };
      await Promise.all(Array.from({ length: LOOKUP_CONCURRENCY }, worker));
      return sizes;
    }
    const wanted = new Set(refs.map((ref) => ref.fileId));
    const prefix = this.runPrefixOf(refs[0]!);
    if (refs.some((ref) => this.runPrefixOf(ref) !== prefix)) throw new Error("sizesOf takes blobs of one run");
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        const fileId = Number(object.Key!.slice(prefix.length));
        if (wanted.has(fileId)) sizes.set(fileId, object.Size ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return sizes;
  }

  async write(ref: BlobRef, body: Readable, maxBytes: number): Promise<number> {
    let size = 0;
    // Past the limit the upload fails (an unfinished multipart upload is aborted, so nothing is
    // kept) and the rest of the body is read and dropped, so the client still sees the 413.
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(size > maxBytes ? new BlobTooLargeError(maxBytes) : null, chunk);
      },
    });
    body.once("error", (error) => limit.destroy(error));
    body.pipe(limit);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.keyOf(ref), Body: limit },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
    });
    try {
      await upload.done();
      return size;
    } catch (error) {
      body.unpipe(limit);
      body.resume();
      throw size > maxBytes ? new BlobTooLargeError(maxBytes) : error;
    }
  }

  async read(ref: BlobRef): Promise<{ stream: Readable; size: number } | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(ref) }));
      return { stream: answer.Body as Readable, size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async size(ref: BlobRef): Promise<number | undefined> {
    return (await this.describe(ref))?.size;
  }

  /** Size and the SHA-256 `putFile` recorded with the object, or undefined when there is no object. */
  async describe(ref: BlobRef): Promise<{ size: number; sha256: string | undefined } | undefined> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(ref) }));
      return { size: answer.ContentLength ?? 0, sha256: answer.Metadata?.sha256 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Uploads a whole local file, recording its SHA-256 with the object so a later copy can tell it is already there. */
  async putFile(ref: BlobRef, body: Readable, sha256: string): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.keyOf(ref), Body: body, Metadata: { sha256 } },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
    });
    await upload.done();
  }

  async delete(ref: BlobRef): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.keyOf(ref) }));
  }

  /** Lists the run's keys a page (up to 1,000) at a time and deletes each page's objects, LOOKUP_CONCURRENCY at once. */
  async deleteRun(ref: RunBlobsRef): Promise<FreedBlobs> {
    const prefix = this.runPrefixOf({ ...ref, fileId: 1 });
    const freed = { objects: 0, bytes: 0 };
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const objects = page.Contents ?? [];
      let next = 0;
      const worker = async () => {
        while (next < objects.length) {
          const object = objects[next++]!;
          await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: object.Key! }));
          freed.objects += 1;
          freed.bytes += object.Size ?? 0;
        }
      };
      await Promise.all(Array.from({ length: LOOKUP_CONCURRENCY }, worker));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return freed;
  }

  /** Reaches the bucket, and says what is wrong when it cannot: no credentials, bad ones, no bucket, wrong endpoint. */
  async check(): Promise<void> {
    const where = `bucket '${this.options.bucket}' at ${this.options.endpoint || `AWS (${this.options.region})`}`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (error) {
      throw new Error(`cannot use S3 ${where}: ${explainS3Error(error)}`);
    }
  }

  close(): void {
    this.client.destroy();
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.$metadata.httpStatusCode === 404 || error.name === "NoSuchKey");
}

/** The cause of a failed bucket check in words an operator can act on. */
export function explainS3Error(error: unknown): string {
  const name = (error as { name?: string }).name ?? "";
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const code = (error as { code?: string }).code ?? "";
  if (name === "CredentialsProviderError") {
    return "no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)";
  }
  if (status === 404 || name === "NotFound" || name === "NoSuchBucket") return "the bucket does not exist";
  if (status === 403 || name === "InvalidAccessKeyId" || name === "SignatureDoesNotMatch") {
    return "access denied: the credentials are wrong or lack permission on this bucket";
  }
  if (status === 301 || name === "PermanentRedirect") return "the bucket is in another region (set --s3-region)";
  if (["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH"].includes(code)) {
    return `the endpoint cannot be reached (${code}): check --s3-endpoint`;
  }
  if (status !== undefined)
    return `the endpoint answered HTTP ${status} (${name || "no error code"}): check --s3-endpoint and the credentials`;
  return (error as Error).message ?? String(error);
}
