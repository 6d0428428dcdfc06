import type { FastifyReply, FastifyRequest } from "fastify";
import type { Readable } from "node:stream";
import type { FileDownload, FileService } from "../services/files.js";

/**
 * The guard of every upload route (Stepwise's signed URL, MLflow's artifact proxy): a declared
 * size (Content-Length) past the limit is a 413 before a byte is read; the body is left unread, so
 * the connection cannot carry another request and is closed after the answer.
 */
export function refuseDeclaredOversize(request: FastifyRequest, reply: FastifyReply, files: FileService): number {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > files.maxUploadBytes) {
    reply.header("connection", "close");
    throw files.tooLarge();
  }
  return declared;
}

/** An upload route's body: a byte stream (its content type parser hands the payload over unread). */
export const uploadBody = (request: FastifyRequest) => request.body as Readable | undefined;

/**
 * Sends a file's bytes, as every download route does: its Content-Type with `nosniff` (a browser
 * never guesses a script out of a stored file), its length, the disposition the protocol gives.
 */
export function sendFile(
  reply: FastifyReply,
  download: FileDownload,
  headers: { contentDisposition: string; cacheControl?: string },
): FastifyReply {
  // Fastify destroys a stream it was given once the response ends (removing this line leaves
  // the fd-count tests of hardening-files.test.ts and mlflow-artifacts.test.ts flat); this covers
  // the window before Fastify takes the stream, where a failing onSend hook or header write would
  // leave the file open.
  reply.raw.once("close", () => download.stream.destroy());
  reply
    .header("content-type", download.contentType)
    .header("content-length", download.size)
    .header("content-disposition", headers.contentDisposition)
    .header("x-content-type-options", "nosniff");
  if (headers.cacheControl !== undefined) reply.header("cache-control", headers.cacheControl);
  return reply.send(download.stream as never); // a stream bypasses serialization
}
