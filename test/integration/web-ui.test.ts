import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import Fastify from "fastify";
import { webUiRoutes } from "../../src/http/web-ui.js";
import { makeTempDir, startTestServer, type TestServer } from "../helpers/start-server.js";

describe("web UI files", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  const get = (path: string, init?: RequestInit) => fetch(new URL(path, test.url), init);

  it("serves the app shell without a key at / and at every view's path, never cached", async () => {
    for (const path of [
      "/",
      "/signin",
      "/projects",
      "/projects/mnist",
      "/projects/mnist/runs/12?tab=logs",
      "/projects/a%20b/compare?runIds=1,2",
      "/projects/mnist/leaderboard",
    ]) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type")!, /^text\/html/, path);
      assert.match(response.headers.get("cache-control")!, /max-age=0/, path);
      assert.match(await response.text(), /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/, path);
    }
  });

  it("serves the hashed assets for a year, and unknown assets as JSON 404s", async () => {
    const shell = await (await get("/")).text();
    for (const asset of shell.match(/\/assets\/[\w.-]+/g)!) {
      const response = await get(asset);
      assert.equal(response.status, 200, asset);
      assert.match(response.headers.get("cache-control")!, /max-age=31536000.*immutable/, asset);
      assert.ok((await response.arrayBuffer()).byteLength > 0, asset);
    }
    const missing = await get("/assets/nothing.js");
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(await missing.json()), ["error"]);
  });

  it("leaves other paths and methods to the API: JSON 404s, and the UI is not in the OpenAPI document", async () => {
    for (const [method, path] of [
      ["GET", "/nothing"],
      ["POST", "/"],
      ["GET", "/nothing/deeper"],
      ["GET", "/projectsx"],
    ] as const) {
      const response = await get(path, { method });
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.deepEqual(Object.keys(await response.json()), ["error"]);
    }
    // A browser asking for a page the UI does not have gets the app shell with a 404, and the UI says so;
    // under the API's prefixes a browser gets the JSON 404 too.
    const page = { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } };
    for (const path of ["/nonsense/path", "/projectsx"]) {
      const response = await get(path, page);
      assert.equal(response.status, 404, path);
      assert.match(response.headers.get("content-type")!, /^text\/html/, path);
      assert.match(response.headers.get("content-security-policy")!, /default-src 'self'/, path);
      assert.match(await response.text(), /<script type="module"/, path);
    }
    for (const path of ["/api/runs/nothing", "/ingest/nothing", "/api/2.0/mlflow/nothing"]) {
      const response = await get(path, page);
      assert.ok(response.status === 401 || response.status === 404, `${path}: ${response.status}`);
      assert.match(response.headers.get("content-type")!, /json/, path);
    }
    assert.equal((await get("/nonsense", { method: "POST", ...page })).headers.get("content-type")?.includes("json"), true);
    const paths = Object.keys((await (await get("/api/openapi.json")).json()).paths);
    assert.ok(!paths.some((path) => path === "/" || path.startsWith("/projects") || path.startsWith("/assets")), paths.join(", "));
  });

  it("answers 503 with what to do when the UI was never built", async () => {
    const empty = makeTempDir();
    const app = Fastify();
    await app.register(webUiRoutes(`${empty}/`));
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const response = await fetch(`${url}/projects`);
      assert.equal(response.status, 503);
      assert.match(await response.text(), /npm run build/);
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
