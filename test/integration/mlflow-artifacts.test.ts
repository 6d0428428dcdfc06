import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { BLOB_TARGETS, startBlobTargets } from "../helpers/blob-targets.js";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** MLflow's artifact proxy and artifacts/list over HTTP, on each place file bytes can live. */

const API = "/api/2.0/mlflow";
const PROXY = "/api/2.0/mlflow-artifacts/artifacts";
/** Open file descriptors of this process, which is also the server's (startTestServer runs in-process). */
const openFds = () => readdirSync("/proc/self/fd").length;

startBlobTargets();

for (const target of BLOB_TARGETS) {
  describe(`MLflow artifacts (${target.name})`, () => {
    let test: TestServer;
    let client: ApiClient;
    let experimentId: string;
    let runId: string;
    let root: string;
    before(async () => {
      test = await startTestServer({ flags: target.flags() });
      client = test.client;
      experimentId = (await client.post(`${API}/experiments/create`, { name: "artifacts" })).body.experiment_id;
      runId = (await client.post(`${API}/runs/create`, { experiment_id: experimentId })).body.run.info.run_id;
      root = `${experimentId}/${runId}/artifacts`;
    });
    after(async () => test.close());

    const put = (path: string, body: Buffer | string, key = client.key) =>
      client.withKey(key).raw("PUT", `${PROXY}/${path}`, body, { "content-type": "application/octet-stream" });

    it("uploads, lists and downloads artifacts byte for byte, nested directories included", async () => {
      const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
      big[12345] = 1;
      assert.equal((await put(`${root}/hello.txt`, "hello mlflow\n")).status, 200);
      assert.equal((await put(`${root}/model/weights.bin`, big)).status, 200);
      assert.equal((await put(`${root}/model/sub/conf.json`, "{}")).status, 200);

      const proxyList = await client.get(`${PROXY}`, { path: root });
      assert.deepEqual(proxyList.body.files, [
        { path: "hello.txt", is_dir: false, file_size: 13 },
        { path: "model", is_dir: true },
      ]);
      const nested = await client.get(`${PROXY}`, { path: `${root}/model` });
      assert.deepEqual(nested.body.files, [
        { path: "sub", is_dir: true },
        { path: "weights.bin", is_dir: false, file_size: big.length },
      ]);
      const tracking = await client.get(`${API}/artifacts/list`, { run_id: runId, path: "model" });
      assert.deepEqual(tracking.body, {
        root_uri: `mlflow-artifacts:/${root}`,
        files: [
          { path: "model/sub", is_dir: true },
          { path: "model/weights.bin", is_dir: false, file_size: big.length },
        ],
      });

      const download = await fetch(`${test.url}${PROXY}/${root}/model/weights.bin`, { headers: { authorization: `Bearer ${client.key}` } });
      assert.equal(download.status, 200);
      assert.ok(Buffer.from(await download.arrayBuffer()).equals(big), "the same bytes");
      const text = await fetch(`${test.url}${PROXY}/${root}/hello.txt`, { headers: { authorization: `Bearer ${client.key}` } });
      assert.equal(await text.text(), "hello mlflow\n");

      // An upload to the same path replaces the bytes.
      assert.equal((await put(`${root}/hello.txt`, "second\n")).status, 200);
      const again = await fetch(`${test.url}${PROXY}/${root}/hello.txt`, { headers: { authorization: `Bearer ${client.key}` } });
      assert.equal(await again.text(), "second\n");
    });

    it("downloads as Stepwise's file route does: nosniff, and no file left open after many downloads, whole or abandoned", async () => {
      // An HTML artifact is the case nosniff is for: it must never be sniffed into a page.
      assert.equal((await put(`${root}/report.html`, "<script>alert(1)</script>")).status, 200);
      const url = `${test.url}${PROXY}/${root}/report.html`;
      const headers = { authorization: `Bearer ${client.key}` };
      const first = await fetch(url, { headers });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("x-content-type-options"), "nosniff");
      assert.equal(first.headers.get("content-disposition"), "attachment");
      assert.equal(await first.text(), "<script>alert(1)</script>");
      const before = openFds();
      const statuses = new Set<number>();
      for (let i = 0; i < 200; i++) {
        const answer = await fetch(url, { headers });
        statuses.add(answer.status);
        if (i % 2 === 0) await answer.arrayBuffer();
        else await answer.body?.cancel(); // the client walks away before reading the body
      }
      // Sockets of the fetch pool may linger briefly; 200 leaked files would not.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(openFds() - before < 20, `open files grew from ${before} to ${openFds()}`);
      assert.deepEqual([...statuses], [200]);
    });

    it("shows artifacts as files of the run in Stepwise's API", async () => {
      const project = (await client.get(`${API}/experiments/get`, { experiment_id: experimentId })).body.experiment.name;
      const run = (await client.get("/api/runs/list", { projectName: project })).body.runs[0];
      const files = await client.get("/api/runs/files", { runId: run.id, projectName: project });
      assert.equal(files.status, 200, JSON.stringify(files.body));
      assert.ok(JSON.stringify(files.body).includes("weights.bin"));
    });

    it("deletes an artifact and a directory", async () => {
      assert.equal((await put(`${root}/tmp/a.txt`, "a")).status, 200);
      assert.equal((await put(`${root}/tmp/b.txt`, "b")).status, 200);
      assert.equal((await client.raw("DELETE", `${PROXY}/${root}/tmp/a.txt`, undefined)).status, 200);
      assert.deepEqual((await client.get(`${PROXY}`, { path: `${root}/tmp` })).body.files, [
        { path: "b.txt", is_dir: false, file_size: 1 },
      ]);
      assert.equal((await client.raw("DELETE", `${PROXY}/${root}/tmp`, undefined)).status, 200);
      assert.deepEqual((await client.get(`${PROXY}`, { path: `${root}/tmp` })).body.files, []);
      const gone = await client.raw("DELETE", `${PROXY}/${root}/tmp`, undefined);
      assert.deepEqual([gone.status, gone.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
      const missing = await client.get(`${PROXY}/${root}/tmp/a.txt`);
      assert.deepEqual([missing.status, missing.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
    });

    it("refuses malformed paths and isolates organizations", async () => {
      for (const path of [
        `${experimentId}/${runId}/other/x`,
        `${root}/../x`,
        "x/y/artifacts/z",
        `${Number(experimentId) + 1000}/${runId}/artifacts/x`,
      ]) {
        const response = await put(path, "x");
        assert.ok([400, 404].includes(response.status), `${path}: ${response.status}`);
        assert.equal(typeof response.body.error_code, "string");
      }
      const { client: other } = await makeOrg(test);
      const upload = await other.raw("PUT", `${PROXY}/${root}/evil.txt`, "x", { "content-type": "text/plain" });
      assert.deepEqual([upload.status, upload.body.error_code], [404, "RESOURCE_DOES_NOT_EXIST"]);
      assert.equal((await other.get(`${PROXY}/${root}/hello.txt`)).status, 404);
      assert.equal((await other.get(`${PROXY}`, { path: root })).status, 404);
      assert.equal((await other.raw("DELETE", `${PROXY}/${root}/hello.txt`, undefined)).status, 404);
      assert.equal((await other.get(`${API}/artifacts/list`, { run_id: runId })).status, 404);
      const still = await fetch(`${test.url}${PROXY}/${root}/hello.txt`, { headers: { authorization: `Bearer ${client.key}` } });
      assert.equal(still.status, 200, "the owner's artifact is untouched");
      const noKey = await client.withKey(undefined).get(`${PROXY}`, { path: root });
      assert.deepEqual([noKey.status, noKey.body.error_code], [401, "UNAUTHENTICATED"]);
    });
  });
}
