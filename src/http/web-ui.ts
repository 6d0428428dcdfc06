import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built web UI (web/ → dist/web by `npm run build`). Resolved from this file so that the
 * compiled server (dist/http) and the tests (src/http under tsx) find the same folder.
 */
const WEB_ROOT = fileURLToPath(new URL("../../dist/web/", import.meta.url));

/** Paths the single-page app handles itself; each answers index.html, so every view has a deep link. */
const APP_PATHS = [
  "/",
  "/signin",
  "/projects",
  "/projects/*",
  "/models",
  "/models/*",
  "/audit",
  "/keys",
  "/trash",
  "/members",
  "/invite/*",
];

/**
 * The UI loads only its own scripts, styles and API; images, audio and video also come from its
 * own origin (signed file URLs) or data:/blob: URLs, or from the bucket's origin when files live in
 * S3 (presigned URLs); nothing may frame it (clickjacking), and
 * plugins, <base> and form posts elsewhere are off. Element styles set from script (charts) are
 * not inline styles in CSP's sense, so style-src needs no 'unsafe-inline'.
 */
export const contentSecurityPolicy = (fileOrigin?: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self'${fileOrigin ? ` ${fileOrigin}` : ""} data: blob:`,
    `media-src 'self'${fileOrigin ? ` ${fileOrigin}` : ""} blob:`,
    ...CSP_TAIL,
  ].join("; ");

const CSP_TAIL = ["connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"];

function protect(reply: FastifyReply, policy: string): void {
  reply.header("content-security-policy", policy);
  reply.header("x-frame-options", "DENY");
  reply.header("x-content-type-options", "nosniff");
}

/** Prefixes of the API, ingest and file routes: an unknown path under them is an API 404 in JSON, never a page. */
const API_PREFIXES = ["/api/", "/ajax-api/", "/ingest/", "/files"];

/**
 * A browser asking for a page at a path the UI does not know (`/nonsense/path`) gets the app shell
 * with a 404 status, and the UI says there is no such page; API clients, and any path under the
 * API's prefixes, get the JSON 404 (`otherwise`). Undefined when the UI is not built.
 */
export function pageNotFound(
  otherwise: (request: FastifyRequest, reply: FastifyReply) => void,
  root = WEB_ROOT,
  fileOrigin?: string,
): (request: FastifyRequest, reply: FastifyReply) => void {
  const shell = existsSync(`${root}index.html`) ? readFileSync(`${root}index.html`) : undefined;
  const policy = contentSecurityPolicy(fileOrigin);
  return (request, reply) => {
    const path = request.url.split("?")[0]!;
    const wantsPage =
      (request.method === "GET" || request.method === "HEAD") &&
      (request.headers.accept ?? "").includes("text/html") &&
      !API_PREFIXES.some((prefix) => path.startsWith(prefix));
    if (!shell || !wantsPage) return otherwise(request, reply);
    protect(reply, policy);
    reply.status(404).header("cache-control", "no-cache").type("text/html; charset=utf-8").send(shell);
  };
}

/** Serves the UI: hashed assets cached for a year, the app shell never cached. Public (docs/semantics.md, One process, one port). */
export function webUiRoutes(root = WEB_ROOT, fileOrigin?: string) {
  const policy = contentSecurityPolicy(fileOrigin);
  return async (app: FastifyInstance) => {
    // This plugin's routes only (Fastify encapsulation): the app shell, its assets and the 503 page.
    app.addHook("onSend", async (_request, reply) => protect(reply, policy));
    const built = existsSync(`${root}index.html`);
    if (built) {
      await app.register(fastifyStatic, { root: `${root}assets`, prefix: "/assets/", maxAge: "365d", immutable: true, index: false });
    }
    for (const path of APP_PATHS) {
      app.get(path, { schema: { hide: true } }, async (_request, reply) => {
        if (!built) {
          return reply.status(503).type("text/plain").send("The web UI is not built: run `npm run build` in the Stepwise repository.\n");
        }
        return reply.sendFile("index.html", root, { maxAge: 0, immutable: false });
      });
    }
  };
}
