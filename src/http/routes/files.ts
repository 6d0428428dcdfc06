import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Readable } from "node:stream";
import { Type } from "typebox";
import type { AppDeps } from "../../app.js";
import { BlobTooLargeError } from "../../blobs/blob-store.js";
import { DomainError, runNotFound } from "../../domain/errors.js";
import { checkFileName, contentTypeOfFile, isSafeInline } from "../../domain/files.js";
import { DOWNLOAD_URL_TTL_MS, sign, UPLOAD_URL_TTL_MS, verify } from "../../domain/signed-urls.js";
import { toIso } from "../../domain/time.js";
import { getRunInProject } from "../../services/run-lookup.js";
import type { StoredFile } from "../../store/store.js";
import { resolveIngestRun } from "../ingest-target.js";
import { ErrorResponse, STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import { FilesQuery, FilesResponse, RegisterFilesBody, RegisterFilesResponse, SignatureQuery, SignedDownloadParams, SignedFileParams } from "../schemas/files.js";
import { baseUrl, downloadUrl, uploadUrl } from "../urls.js";
import { INGEST_BODY_LIMIT } from "./ingest.js";

/** Bytes of a file live in the blob store under its run and ID, never under a client-chosen name. */
const blobKey = (file: StoredFile) => `${file.runId}/${file.id}`;

const fileNotFound = () => new DomainError("NOT_FOUND", "file not found");

/** Registration and listing, with the API key (decisions §7, spec §4.14). */
export function fileRoutes({ store, clock, config, signingSecret }: AppDeps): FastifyPluginAsyncTypebox {
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
        request.body.files.forEach((file, index) => checkFileName(file.fileName, `files[${index}].fileName`));
        const now = clock.now();
        const stored = await store.registerFiles(request.auth.orgId, run.id, request.body.files, now);
        if (!stored) throw runNotFound(run.id);
        const base = baseUrl(request, config.publicUrl);
        const urls: Record<string, Record<string, string>[]> = {};
        for (const file of stored) {
          (urls[file.logName] ??= []).push({ [file.fileName]: uploadUrl(base, file.id, sign(signingSecret, "upload", file.id, now + UPLOAD_URL_TTL_MS)) });
        }
        return urls;
      },
    );

    app.get("/api/runs/files", { schema: { tags: ["files"], querystring: FilesQuery, response: { 200: FilesResponse, ...STANDARD_ERRORS } } }, async (request) => {
      const { runId, projectName, logName, logGroup } = request.query;
      const run = await getRunInProject(store, request.auth.orgId, runId, projectName);
      const expires = clock.now() + DOWNLOAD_URL_TTL_MS;
      const base = baseUrl(request, config.publicUrl);
      const files = await store.listFiles(request.auth.orgId, run.id, { logName, logGroup });
      return {
        files: files.map((file) => ({
          fileName: file.fileName,
          fileType: file.fileType,
          fileSize: file.fileSize,
          logName: file.logName,
          logGroup: file.logGroup,
          time: toIso(file.time),
          step: file.step,
          sampleIndex: file.sampleIndex,
          url: downloadUrl(base, file.id, file.fileName, sign(signingSecret, "download", file.id, expires)),
          ...(file.caption === null ? {} : { caption: file.caption }),
          ...(file.annotations === null ? {} : { annotations: file.annotations }),
        })),
      };
    });
  };
}

const SIGNED = { tags: ["files"], security: [] };
const signedErrors = { 403: ErrorResponse, 404: ErrorResponse };

/**
 * The signed upload and download routes: no API key, the signature is their authority. Bodies and
 * files stream straight between the socket and the blob store, so a file of any size costs the same
 * memory.
 */
export function signedFileRoutes({ store, clock, config, blobs, signingSecret }: AppDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Clients upload with any content type (image/png, text/plain, even "mask"): every body is a byte stream here.
    app.addHook("onRequest", async (request) => {
      if (request.method === "PUT") request.headers["content-type"] = "application/octet-stream";
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
        verify(signingSecret, "upload", fileId, request.query.expires, request.query.sig, clock.now());
        const file = await store.getFile(fileId);
        if (!file) throw fileNotFound();
        const declared = Number(request.headers["content-length"] ?? 0);
        if (declared > config.maxUploadBytes) {
          // The body is left unread, so the connection cannot carry another request: close it after the 413.
          reply.header("connection", "close");
          throw tooLarge(new BlobTooLargeError(config.maxUploadBytes));
        }
        const body = (request.body as Readable | undefined) ?? Readable.from([]);
        let size: number;
        try {
          size = await blobs.write(blobKey(file), body, config.maxUploadBytes);
        } catch (error) {
          throw error instanceof BlobTooLargeError ? tooLarge(error) : error;
        }
        await store.markFileUploaded(file.id, size, clock.now());
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
            200: { description: "The file's bytes.", content: { "application/octet-stream": { schema: Type.String({ format: "binary" }) } } },
            ...signedErrors,
          },
        },
      },
      async (request, reply) => {
        const { fileId } = request.params;
        verify(signingSecret, "download", fileId, request.query.expires, request.query.sig, clock.now());
        const file = await store.getFile(fileId);
        const blob = file?.uploadedAt ? await blobs.read(blobKey(file)) : undefined;
        if (!file || !blob) throw fileNotFound();
        const contentType = contentTypeOfFile(file.fileType, file.fileName);
        const disposition = isSafeInline(contentType) ? "inline" : "attachment";
        return reply
          .header("content-type", contentType)
          .header("content-length", blob.size)
          .header("content-disposition", `${disposition}; filename*=UTF-8''${encodeURIComponent(file.fileName.split("/").at(-1)!)}`)
          .header("x-content-type-options", "nosniff")
          .header("cache-control", "private, max-age=3600")
          .send(blob.stream as never); // a stream bypasses serialization; the 200 schema documents bytes
      },
    );
  };
}

const tooLarge = (error: BlobTooLargeError) => new DomainError("PAYLOAD_TOO_LARGE", error.message);
