import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built web UI (web/ → dist/web by `npm run build`). Resolved from this file so that the
 * compiled server (dist/http) and the tests (src/http under tsx) find the same folder.
 */
const WEB_ROOT = fileURLToPath(new URL("../../dist/web/", import.meta.url));

/** Paths the single-page app handles itself; each answers index.html, so every view has a deep link. */
const APP_PATHS = ["/", "/signin", "/projects", "/projects/*", "/models", "/models/*"];

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

/** Serves the UI: hashed assets cached for a year, the app shell never cached. Public (docs/semantics.md, One process, one port). */
export function webUiRoutes(root = WEB_ROOT, fileOrigin?: string) {
  const policy = contentSecurityPolicy(fileOrigin);
  return async (app: FastifyInstance) => {
    // This plugin's routes only (Fastify encapsulation): the app shell, its assets and the 503 page.
    app.addHook("onSend", async (_request, reply) => {
      reply.header("content-security-policy", policy);
      reply.header("x-frame-options", "DENY");
      reply.header("x-content-type-options", "nosniff");
    });
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
