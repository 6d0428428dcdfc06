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
const APP_PATHS = ["/", "/signin", "/projects", "/projects/*"];

/** Serves the UI: hashed assets cached for a year, the app shell never cached. Public (decisions §1). */
export function webUiRoutes(root = WEB_ROOT) {
  return async (app: FastifyInstance) => {
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
