import type { FastifyRequest } from "fastify";
import type { Signature } from "../domain/signed-urls.js";

/**
 * Absolute URLs start with the configured public URL, else with the scheme and Host of the
 * request (docs/semantics.md, One process, one port), so links work behind a proxy that sets Host.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string): string {
  return publicUrl || `${request.protocol}://${request.host}`;
}

/** A signed upload URL: the client PUTs the file's bytes there, without a key. */
export function uploadUrl(base: string, fileId: number, signature: Signature): string {
  return `${base}/files/upload/${fileId}?${signatureQuery(signature)}`;
}

/** A signed download URL; the file name ends the path so browsers save it under that name. */
export function downloadUrl(base: string, fileId: number, fileName: string, signature: Signature): string {
  const name = encodeURIComponent(fileName.split("/").at(-1)!);
  return `${base}/files/download/${fileId}/${name}?${signatureQuery(signature)}`;
}

function signatureQuery({ expires, key, sig }: Signature): string {
  return `expires=${expires}&key=${encodeURIComponent(key)}&sig=${sig}`;
}

/**
 * The origins this server's own pages come from: the configured public URL's, and the one the
 * request reached (scheme and Host). A browser's Origin header on a cookie-authorized write must be one.
 */
export function ownOrigins(request: FastifyRequest, publicUrl: string): string[] {
  const origins = [`${request.protocol}://${request.host}`];
  if (publicUrl) origins.push(new URL(publicUrl).origin);
  return origins;
}

/** Whether the browser reached this server over HTTPS: session cookies are then `Secure`. */
export function servedOverHttps(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === "https" || publicUrl.startsWith("https:");
}
