import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { startServer } from "../../src/server.js";
import { ApiClient, type CreatedRun } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { makeTempDir, startTestServer, TEST_BACKEND, type TestServer } from "../helpers/start-server.js";

/**
 * A PostgreSQL store is backed up with PostgreSQL's own tools: the commands of the README's "Backup
 * and restore", run as written (pg_dump in custom format, pg_restore into an empty database), and
 * a server started on the restored database answers every read as the original did.
 */
describe("pg_dump and pg_restore of a PostgreSQL store", { skip: TEST_BACKEND !== "postgres" && "a PostgreSQL store" }, () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("restores a database whose server serves the same runs, metrics, summaries and keys", async () => {
    const runs: CreatedRun[] = [];
    for (const name of ["first", "second"]) {
      const run = await test.client.createRun({
        projectName: "dumped",
        runName: name,
        config: JSON.stringify({ lr: 0.1 }),
        tags: ["kept"],
      });
      const lines = Array.from({ length: 300 }, (_, step) => ({ step, data: { loss: 1 / (step + 1), acc: step / 300 } }));
      assert.equal((await ingest(test.client, "metrics", run, toNdjson(lines))).status, 200);
      runs.push(run);
    }
    const reads = (client: ApiClient) =>
      Promise.all(
        runs.flatMap((run) => [
          client.get(`/api/runs/details/${run.runId}`),
          client.get("/api/runs/statistics", { runId: run.runId, projectName: "dumped" }),
          client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "dumped", logName: "loss" }),
          client.get("/api/runs/metrics", { runId: run.runId, projectName: "dumped" }),
        ]),
      ).then((responses) =>
        responses.map((response) => {
          assert.equal(response.status, 200, JSON.stringify(response.body));
          // Absolute links name the server that answered; the rest must be the same.
          return JSON.parse(JSON.stringify(response.body).replaceAll(client.baseUrl, "<server>"));
        }),
      );
    const original = await reads(test.client);

    const dump = join(makeTempDir("stepwise-pg-dump-"), "stepwise.dump");
    // The README's commands, as an operator runs them (the server may keep running: pg_dump reads one snapshot).
    execFileSync("pg_dump", ["--format=custom", `--file=${dump}`, test.databaseUrl]);
    const restored = await createTestDatabase();
    try {
      execFileSync("pg_restore", ["--no-owner", "--exit-on-error", "--single-transaction", `--dbname=${restored.url}`, dump]);
      const config = loadConfig({ "--data-dir": test.dataDir, "--database-url": restored.url, "--port": "0", "--log-level": "silent" }, {});
      const server = await startServer(config);
      try {
        assert.equal(server.bootstrapKey, undefined, "the restored database has its organization: no new one is made");
        const client = new ApiClient(server.url, test.client.key);
        assert.deepEqual(await reads(client), original);
      } finally {
        await server.close();
      }
    } finally {
      await restored.drop();
    }
  });
});
