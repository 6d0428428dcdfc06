import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { BLOB_TARGETS, startBlobTargets } from "../helpers/blob-targets.js";
import { startTestServer, type TestServer } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

type Run = { runId: number; projectName: string };

/** Open file descriptors of this process, which is also the server's (startTestServer runs in-process). */
const openFds = () => readdirSync("/proc/self/fd").length;

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

startBlobTargets();

for (const target of BLOB_TARGETS) {
  describe(`files (${target.name}): Object.prototype names and open files`, () => {
    let test: TestServer;
    before(async () => {
      test = await startTestServer({ flags: target.flags() });
    });
    after(async () => test.close());

    async function registerAndUpload(run: Run, file: { fileName: string; fileType: string; logName: string }) {
      const response = await test.client.raw(
        "POST",
        "/files",
        JSON.stringify({ files: [{ fileSize: 5, step: 0, time: 1_700_000_000_000, ...file }] }),
        {
          "content-type": "application/json",
          "x-run-id": String(run.runId),
          "x-project-name": run.projectName,
        },
      );
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.deepEqual(Object.keys(response.body), [file.logName], "the log name is an own key of the answer");
      const [entry] = response.body[file.logName] as Record<string, string>[];
      assert.deepEqual(Object.keys(entry!), [file.fileName]);
      const upload = await fetch(entry![file.fileName]!, { method: "PUT", body: "bytes" });
      assert.equal(upload.status, 200, await upload.text());
    }

    it("serves files typed or named after Object.prototype members as bytes, under any log name", async () => {
      const run = await test.client.createRun({ projectName: "proto-files" });
      for (const name of PROTOTYPE_NAMES) {
        await registerAndUpload(run, { fileName: `a-${name}.bin`, fileType: name, logName: name });
        await registerAndUpload(run, { fileName: `b.${name}`, fileType: "", logName: `x/${name}` });
      }
      const list = await test.client.get("/api/runs/files", run);
      assert.equal(list.status, 200);
      assert.equal(list.body.files.length, PROTOTYPE_NAMES.length * 2);
      for (const file of list.body.files) {
        const answer = await fetch(file.url);
        assert.equal(answer.status, 200, `${file.fileName}: ${answer.status}`);
        assert.equal(answer.headers.get("content-type"), "application/octet-stream");
        assert.equal(await answer.text(), "bytes");
      }
    });

    it("leaves no file open after many downloads, whole or abandoned", async () => {
      const run = await test.client.createRun({ projectName: "fd-count" });
      await registerAndUpload(run, { fileName: "c.constructor", fileType: "constructor", logName: "files" });
      const [file] = (await test.client.get("/api/runs/files", run)).body.files;
      const before = openFds();
      const statuses = new Set<number>();
      for (let i = 0; i < 200; i++) {
        const answer = await fetch(file.url);
        statuses.add(answer.status);
        if (i % 2 === 0) await answer.arrayBuffer();
        else await answer.body?.cancel(); // the client walks away before reading the body
      }
      // Sockets of the fetch pool may linger briefly; 200 leaked files would not.
      await waitFor(() => openFds() - before < 20, {
        timeoutMs: 5000,
        what: `fewer than ${before + 20} open files (${before} before the downloads)`,
      });
      assert.deepEqual([...statuses], [200]);
    });
  });
}
