import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { INGEST_BODY_LIMIT } from "../body-limits.js";
import type { RouteDeps } from "../deps.js";
import { DomainError, invalidInput, runNotFound } from "../../domain/errors.js";
import { contentDispositionOf, contentTypeOfFile } from "../../domain/files.js";
import {
  checkMintingKey,
  checkMintingSession,
  minterOf,
  sessionOfMinter,
  DOWNLOAD_URL_TTL_MS,
  isCanonicalNumber,
  type SignedAction,
  sign,
  UPLOAD_URL_TTL_MS,
  verify,
} from "../../domain/signed-urls.js";
import { toIso } from "../../domain/time.js";
import { blobRefOf } from "../../services/files.js";
import { getRunInProject } from "../../services/run-lookup.js";
import type { StoredFile } from "../../store/store.js";
import { refuseDeclaredOversize, sendFile, uploadBody } from "../file-transfer.js";
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

const fileNotFound = () => new DomainError("NOT_FOUND", "file not found");

/** Registration and listing, with the API key (docs/semantics.md, Ingest wire format: files). */
export function fileRoutes({ store, clock, config, blobs, signingSecret, services: { files } }: RouteDeps): FastifyPluginAsyncTypebox {
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
        const now = clock.now();
        const stored = await files.register(request.auth.orgId, run.id, request.body.files, (index) => `files[${index}].fileName`, now);
        if (!stored) throw runNotFound(run.id);
        const base = baseUrl(request, config.publicUrl);
        // Grouped in a Map: log and file names are client strings ("__proto__" is a fine log name).
        const urls = new Map<string, Record<string, string>[]>();
        for (const file of stored) {
          const url = blobs.direct
            ? await blobs.direct.uploadUrl(blobRefOf(file), now, UPLOAD_URL_TTL_MS)
            : uploadUrl(base, file.id, sign(signingSecret, "upload", file.id, now + UPLOAD_URL_TTL_MS, minterOf(request.auth)));
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
        const listed = await files.list(request.auth.orgId, run.id, { logName, logGroup });
        const url = (file: StoredFile) => {
          if (!blobs.direct) {
            const signature = sign(signingSecret, "download", file.id, now + DOWNLOAD_URL_TTL_MS, minterOf(request.auth));
            return downloadUrl(base, file.id, file.fileName, signature);
          }
          const contentType = contentTypeOfFile(file.fileType, file.fileName);
          const headers = { contentType, contentDisposition: contentDispositionOf(contentType, file.fileName) };
          return blobs.direct.downloadUrl(blobRefOf(file), headers, now, DOWNLOAD_URL_TTL_MS);
        };
        const urls = await Promise.all(listed.map(url));
        return {
          files: listed.map((file, index) => ({
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
}

const SIGNED = { tags: ["files"], security: [] };
const signedErrors = { 403: ErrorResponse, 404: ErrorResponse };

/**
 * The signed upload and download routes: no API key, the signature is their authority. Bodies and
 * files stream straight between the socket and the blob store, so a file of any size costs the same
 * memory.
 */
export function signedFileRoutes({ store, clock, signingSecret, services: { files } }: RouteDeps): FastifyPluginAsyncTypebox {
  const verifySignedUrl = async (action: SignedAction, fileId: number, query: Parameters<typeof verify>[3]) => {
    const now = clock.now();
    const minter = verify(signingSecret, action, fileId, query, now);
    const sessionId = sessionOfMinter(minter);
    if (sessionId === undefined) checkMintingKey(await store.getApiKey(minter), now);
    else checkMintingSession(await store.getSession(sessionId), now);
  };
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
        refuseDeclaredOversize(request, reply, files);
        await files.receive(file, uploadBody(request));
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
        const download = await files.open(file);
        if (!download) throw fileNotFound();
        // The 200 schema documents bytes; a stream bypasses serialization.
        return sendFile(reply, download, {
          contentDisposition: contentDispositionOf(download.contentType, file.fileName),
          cacheControl: "private, max-age=3600",
        });
      },
    );
  };
}
