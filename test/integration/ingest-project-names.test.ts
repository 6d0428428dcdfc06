import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * POSTs over a plain socket, so header values go out as exactly these bytes: fetch refuses
 * characters above U+00FF and node:http re-encodes its strings, but clients that send UTF-8
 * header bytes exist.
 */
function post(
  url: string,
  path: string,
  headers: Record<string, string | Buffer>,
  body: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const payload = Buffer.from(body, "utf8");
  const head = [Buffer.from(`POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\nconnection: close\r\ncontent-length: ${payload.length}\r\n`)];
  for (const [name, value] of Object.entries(headers)) head.push(Buffer.from(`${name}: `), Buffer.from(value), Buffer.from("\r\n"));
  return new Promise((resolve, reject) => {
    // write, not end: Node's server drops a request whose client half-closes before the answer is
    // ready (httpAllowHalfOpen is off); `connection: close` makes the server end the socket after it.
    const socket = connect(Number(port), hostname, () => socket.write(Buffer.concat([...head, Buffer.from("\r\n"), payload])));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
  });
}

const rawUtf8 = (name: string) => Buffer.from(name, "utf8");

describe("X-Project-Name with names that are not Latin-1", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  for (const projectName of ["проект-ü", "实验项目", "🚀-runs"]) {
    it(`reaches a run of project ${projectName}, raw UTF-8 or percent-encoded, on every ingest route and file registration`, async () => {
      const { client, key } = await makeOrg(test);
      const run = await client.createRun({ projectName });
      const bodies: Record<string, [string, string]> = {
        "/ingest/metrics": ["application/x-ndjson", '{"time":1,"step":0,"data":{"loss":1}}'],
        "/ingest/logs": ["application/x-ndjson", '{"time":1,"message":"hi","lineNumber":1,"logType":"INFO"}'],
        "/ingest/data": ["application/x-ndjson", '{"time":1,"step":0,"logName":"t","dataType":"text","data":"x"}'],
        "/files": [
          "application/json",
          JSON.stringify({ files: [{ fileName: "a.png", fileType: "png", fileSize: 1, time: 1, step: 0, logName: "img" }] }),
        ],
      };
      for (const [path, [type, body]] of Object.entries(bodies)) {
        for (const header of [rawUtf8(projectName), encodeURIComponent(projectName)]) {
          const headers = { authorization: `Bearer ${key}`, "content-type": type, "x-run-id": String(run.runId), "x-project-name": header };
          const response = await post(test.url, path, headers, body);
          assert.equal(response.status, 200, `${path} ${header}: ${response.body}`);
        }
        const elsewhere = {
          authorization: `Bearer ${key}`,
          "content-type": type,
          "x-run-id": String(run.runId),
          "x-project-name": "other",
        };
        assert.equal((await post(test.url, path, elsewhere, body)).status, 404, path);
      }
      const logs = await client.get("/api/runs/logs", { runId: run.runId, projectName });
      assert.equal(logs.body.total, 1);
    });
  }
});
