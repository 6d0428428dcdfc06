import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Readable } from "node:stream";
import { Type } from "typebox";
import { INGEST_BODY_LIMIT } from "../body-limits.js";
import type { AppDeps } from "../deps.js";
import { type BlobRef, BlobTooLargeError, type DirectBlobUrls } from "../../blobs/blob-store.js";
import { DomainError, invalidInput, runNotFound } from "../../domain/errors.js";
import { checkFileName, contentDispositionOf, contentTypeOfFile } from "../../domain/files.js";
import {
  checkMintingKey,
  DOWNLOAD_URL_TTL_MS,
  isCanonicalNumber,
  type SignedAction,
  sign,
  UPLOAD_URL_TTL_MS,
  verify,
} from "../../domain/signed-urls.js";
import { toIso } from "../../domain/time.js";
import { UploadRecorder } from "../../services/file-uploads.js";
import { getRunInProject } from "../../services/run-lookup.js";
import type { StoredFile } from "../../store/store.js";
import { resolveIngestRun } from "../ingest-target.js";
import { ErrorResponse, STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import {
  FilesQuery,
  FilesResponse,
  RegisterFilesBody,
  RegisterFilesResponse,
  SignatureQuery,
  SignedDownloadParams,
  SignedFileParams,
} from "../schemas/files.js";
import { baseUrl, downloadUrl, uploadUrl } from "../urls.js";

/** Bytes of a file live in the blob store under its organization, project, run and ID, never under a client-chosen name. */
const blobRef = (file: StoredFile): BlobRef => ({ orgId: file.orgId, projectId: file.projectId, runId: file.runId, fileId: file.id });

const fileNotFound = () => new DomainError("NOT_FOUND", "file not found");

/** Registration and listing, with the API key (docs/semantics.md, Ingest wire format: files). */
export function fileRoutes({ store, clock, config, blobs, signingSecret }: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      "/files",
      {
        bodyLimit: INGEST_BODY_LIMIT,
        schema: {
          tags: ["files"],
          description: "Registers files of the run named by X-Run-Id and X-Project-Name; answers a signed upload URL (1 hour) per file.",
          body: RegisterFilesBody,
          response: { 200: RegisterFilesResponse, ...STANDARD_ERRORS, 413: ErrorResponse },
        },
      },
      async (request) => {
        const run = await resolveIngestRun(store, request);
        for (const [index, file] of request.body.files.entries()) {
          checkFileName(file.fileName, `files[${index}].fileName`);
          // Uploads straight to a bucket cannot be cut off as they stream: the declared size is checked
          // here, the stored size when the upload is confirmed (docs/api.md, "Files on S3").
          if (blobs.direct && file.fileSize > config.maxUploadBytes) throw tooLarge(new BlobTooLargeError(config.maxUploadBytes));
        }
        const now = clock.now();
        const stored = await store.registerFiles(request.auth.orgId, run.id, request.body.files, now);
        if (!stored) throw runNotFound(run.id);
        const base = baseUrl(request, config.publicUrl);
        // Grouped in a Map: log and file names are client strings ("__proto__" is a fine log name).
        const urls = new Map<string, Record<string, string>[]>();
        for (const file of stored) {
          const url = blobs.direct
            ? await blobs.direct.uploadUrl(blobRef(file), now, UPLOAD_URL_TTL_MS)
            : uploadUrl(base, file.id, sign(signingSecret, "upload", file.id, now + UPLOAD_URL_TTL_MS, request.auth.apiKeyId));
          let group = urls.get(file.logName);
          if (!group) urls.set(file.logName, (group = []));
          group.push(Object.fromEntries([[file.fileName, url]]));
        }
        return Object.fromEntries(urls);
      },
    );

    app.get(
      "/api/runs/files",
      { schema: { tags: ["files"], querystring: FilesQuery, response: { 200: FilesResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, projectName, logName, logGroup } = request.query;
        const run = await getRunInProject(store, request.auth.orgId, runId, projectName);
        const now = clock.now();
        const base = baseUrl(request, config.publicUrl);
        if (blobs.direct) await confirmDirectUploads(blobs.direct, request.auth.orgId, run.id, { logName, logGroup });
        const files = await store.listFiles(request.auth.orgId, run.id, { logName, logGroup });
        const url = (file: StoredFile) => {
          if (!blobs.direct) {
            const signature = sign(signingSecret, "download", file.id, now + DOWNLOAD_URL_TTL_MS, request.auth.apiKeyId);
            return downloadUrl(base, file.id, file.fileName, signature);
          }
          const contentType = contentTypeOfFile(file.fileType, file.fileName);
          const headers = { contentType, contentDisposition: contentDispositionOf(contentType, file.fileName) };
          return blobs.direct.downloadUrl(blobRef(file), headers, now, DOWNLOAD_URL_TTL_MS);
        };
        const urls = await Promise.all(files.map(url));
        return {
          files: files.map((file, index) => ({
            fileName: file.fileName,
            fileType: file.fileType,
            fileSize: file.fileSize,
            logName: file.logName,
            logGroup: file.logGroup,
            time: toIso(file.time),
            step: file.step,
            sampleIndex: file.sampleIndex,
            url: urls[index]!,
            ...(file.caption === null ? {} : { caption: file.caption }),
            ...(file.annotations === null ? {} : { annotations: file.annotations }),
          })),
        };
      },
    );
  };

  /**
   * Uploads to a bucket's presigned URLs never pass through the server, so the listing records them:
   * the files still waiting for their bytes are looked up in the bucket, and those that are there
   * are recorded with their real size. One past the size limit is deleted instead.
   */
  async function confirmDirectUploads(
    direct: DirectBlobUrls,
    orgId: string,
    runId: number,
    query: { logName?: string; logGroup?: string },
  ) {
    const pending = await store.listFiles(orgId, runId, { ...query, pending: true });
    if (pending.length === 0) return;
    const sizes = await direct.sizesOf(pending.map(blobRef));
    for (const file of pending) {
      const size = sizes.get(file.id);
      if (size === undefined) continue;
      if (size > config.maxUploadBytes) await blobs.delete(blobRef(file));
      else await store.markFileUploaded(file.id, size, clock.now());
    }
  }
}

const SIGNED = { tags: ["files"], security: [] };
const signedErrors = { 403: ErrorResponse, 404: ErrorResponse };

/**
 * The signed upload and download routes: no API key, the signature is their authority. Bodies and
 * files stream straight between the socket and the blob store, so a file of any size costs the same
 * memory.
 */
export function signedFileRoutes({ store, clock, config, blobs, signingSecret }: AppDeps): FastifyPluginAsyncTypebox {
  const verifySignedUrl = async (action: SignedAction, fileId: number, query: Parameters<typeof verify>[3]) => {
    const now = clock.now();
    const keyId = verify(signingSecret, action, fileId, query, now);
    checkMintingKey(await store.getApiKey(keyId), now);
  };
  const uploads = new UploadRecorder(store, blobs);
  return async (app) => {
    // Clients upload with any content type (image/png, text/plain, even "mask"): every body is a byte stream here.
    app.addHook("onRequest", async (request) => {
      if (request.method === "PUT") request.headers["content-type"] = "application/octet-stream";
    });
    // Before the schema turns "01" into 1: a signed URL has one spelling of its file ID.
    app.addHook("preValidation", async (request) => {
      const { fileId } = request.params as { fileId?: unknown };
      if (typeof fileId === "string" && !isCanonicalNumber(fileId))
        throw invalidInput("fileId: a file ID is a decimal integer without leading zeros");
    });
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", (_request, payload, done) => done(null, payload));

    app.put(
      "/files/upload/:fileId",
      {
        schema: {
          ...SIGNED,
          description: "The bytes of a registered file, with any content type. Replaces earlier bytes only once all have arrived.",
          params: SignedFileParams,
          querystring: SignatureQuery,
          response: { 200: SuccessResponse, ...signedErrors, 413: ErrorResponse },
        },
      },
      async (request, reply) => {
        const { fileId } = request.params;
        await verifySignedUrl("upload", fileId, request.query);
        const file = await store.getFile(fileId);
        if (!file) throw fileNotFound();
        const declared = Number(request.headers["content-length"] ?? 0);
        if (declared > config.maxUploadBytes) {
          // The body is left unread, so the connection cannot carry another request: close it after the 413.
          reply.header("connection", "close");
          throw tooLarge(new BlobTooLargeError(config.maxUploadBytes));
        }
        const body = (request.body as Readable | undefined) ?? Readable.from([]);
        try {
          await blobs.write(blobRef(file), body, config.maxUploadBytes);
        } catch (error) {
          throw error instanceof BlobTooLargeError ? tooLarge(error) : error;
        }
        await uploads.record(file.id, blobRef(file), clock.now());
        return { success: true };
      },
    );

    app.get(
      "/files/download/:fileId/:fileName",
      {
        schema: {
          ...SIGNED,
          description: "The bytes of an uploaded file.",
          params: SignedDownloadParams,
          querystring: SignatureQuery,
          response: {
            200: {
              description: "The file's bytes.",
              content: { "application/octet-stream": { schema: Type.String({ format: "binary" }) } },
            },
            ...signedErrors,
          },
        },
      },
      async (request, reply) => {
        const { fileId } = request.params;
        await verifySignedUrl("download", fileId, request.query);
        const file = await store.getFile(fileId);
        if (!file?.uploadedAt) throw fileNotFound();
        const contentType = contentTypeOfFile(file.fileType, file.fileName);
        const blob = await blobs.read(blobRef(file));
        if (!blob) throw fileNotFound();
        // Fastify destroys a stream it was given once the response ends (removing this line leaves
        // the fd-count test in hardening-files.test.ts flat); this covers the window before Fastify
        // takes the stream, where a failing onSend hook or header write would leave the file open.
        reply.raw.once("close", () => blob.stream.destroy());
        return reply
          .header("content-type", contentType)
          .header("content-length", blob.size)
          .header("content-disposition", contentDispositionOf(contentType, file.fileName))
          .header("x-content-type-options", "nosniff")
          .header("cache-control", "private, max-age=3600")
          .send(blob.stream as never); // a stream bypasses serialization; the 200 schema documents bytes
      },
    );
  };
}

const tooLarge = (error: BlobTooLargeError) => new DomainError("PAYLOAD_TOO_LARGE", error.message);
