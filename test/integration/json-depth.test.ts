import Database from "better-sqlite3";
import pg from "pg";
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { MAX_JSON_DEPTH } from "../../src/domain/json-depth.js";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { ingest } from "../helpers/ingest.js";
import { startTestServer, type TestServer } from "../helpers/start-server.js";

/** JSON text of objects nested `levels` deep: {"a":{"a":…1…}}. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const nestedArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const tooDeep = new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`);

describe("JSON nesting: 64 levels everywhere, readers safe at any depth", () => {
  let test: TestServer;
  let run: { runId: number; projectName: string };
  before(async () => {
    test = await startTestServer();
    run = await test.client.createRun({ projectName: "deep" });
  });
  after(async () => test.close());

  const post = (path: string, body: string) => test.client.raw("POST", path, body, { "content-type": "application/json" });

  it("JSON-text fields: 64 levels are stored, 65 or 5,000 are a 400 naming the field", async () => {
    for (const [levels, status] of [
      [MAX_JSON_DEPTH, 200],
      [MAX_JSON_DEPTH + 1, 400],
      [5000, 400],
    ] as const) {
      const created = await test.client.post("/api/runs/create", { runName: "r", projectName: "deep", config: nestedText(levels) });
      assert.equal(created.status, status, `create with config ${levels} deep: ${JSON.stringify(created.body)}`);
      if (status === 400) assert.match(created.body.error, /^config: /);
      for (const field of ["systemMetadata", "loggerSettings"]) {
        const answer = await test.client.post("/api/runs/create", { runName: "r", projectName: "deep", [field]: nestedText(levels) });
        assert.equal(answer.status, status, `${field} ${levels}`);
      }
      const updated = await test.client.post("/api/runs/config/update", { runId: run.runId, config: nestedText(levels) });
      assert.equal(updated.status, status, `config/update ${levels}`);
      const statusUpdate = await test.client.post("/api/runs/status/update", {
        runId: run.runId,
        status: "RUNNING",
        statusMetadata: nestedText(levels),
      });
      assert.equal(statusUpdate.status, status, `statusMetadata ${levels}`);
    }
  });

  it("request bodies: the model graph and any JSON body deeper than 64 levels are a 400", async () => {
    const graph = (levels: number) =>
      `{"runId":${run.runId},"graph":{"format":"f","nodes":{"n":{"type":"t","depth":0,"args":[${nestedArray(levels - 5)}]}}}}`;
    assert.equal((await post("/api/runs/modelGraph/create", graph(MAX_JSON_DEPTH))).status, 200);
    for (const levels of [MAX_JSON_DEPTH + 1, 5000, 100_000]) {
      const answer = await post("/api/runs/modelGraph/create", graph(levels));
      assert.equal(answer.status, 400, `graph ${levels}`);
      assert.match(answer.body.error, /^body: nested deeper/);
    }
    const answer = await post("/api/runs/create", `{"runName":"r","projectName":"deep","tags":${nestedArray(50_000)}}`);
    assert.equal(answer.status, 400);
    assert.match(answer.body.error, tooDeep);
  });

  it("NDJSON lines and JSON query parameters deeper than 64 levels are a 400", async () => {
    const line = (levels: number) => `{"time":1,"step":0,"data":{"loss":1},"extra":${nestedArray(levels - 1)}}`;
    const accepted = await ingest(test.client, "metrics", run, line(MAX_JSON_DEPTH));
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    for (const route of ["metrics", "logs", "data"] as const) {
      const answer = await ingest(test.client, route, run, `\n${line(MAX_JSON_DEPTH + 1)}`);
      assert.equal(answer.status, 400, route);
      assert.match(answer.body.error, /^line 2: nested deeper/);
    }
    for (const name of ["filter", "fieldFilters", "visibleColumns"]) {
      const answer = await test.client.get("/api/runs/list", { projectName: "deep", [name]: nestedArray(MAX_JSON_DEPTH + 1) });
      assert.equal(answer.status, 400, name);
      assert.match(answer.body.error, new RegExp(`^${name}: nested deeper`));
    }
  });

  it("a config stored deeper than the limit (before it existed) still lists, filters and shows", async () => {
    const legacy = await test.client.createRun({ projectName: "legacy" });
    const config = `{"lr":0.1,"deep":${nestedText(4000)}}`;
    if (test.databaseUrl) {
      const client = new pg.Client({ connectionString: test.databaseUrl });
      await client.connect();
      await client.query("UPDATE runs SET config = $1 WHERE id = $2", [config, legacy.runId]);
      await client.end();
    } else {
      const database = new Database(join(test.dataDir, DATABASE_FILE));
      database.prepare("UPDATE runs SET config = ? WHERE id = ?").run(config, legacy.runId);
      database.close();
    }
    for (const query of [
      { fieldFilters: JSON.stringify([{ source: "config", key: "lr", dataType: "number", operator: "equals", values: [0.1] }]) },
      { visibleColumns: JSON.stringify([{ source: "config", key: "lr" }]) },
      { includeFieldValues: "true" },
      { sort: "config.lr" },
    ]) {
      const answer = await test.client.get("/api/runs/list", { projectName: "legacy", ...query });
      assert.equal(answer.status, 200, `${JSON.stringify(query)}: ${JSON.stringify(answer.body).slice(0, 200)}`);
      assert.equal(answer.body.runs.length, 1);
    }
  });
});
