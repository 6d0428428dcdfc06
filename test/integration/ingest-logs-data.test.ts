import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { compareConsoleLines } from "../../src/domain/console-logs.js";
import { READ_PAGE_BYTES } from "../../src/domain/paging.js";
import type { ApiClient, ApiResponse } from "../helpers/client.js";
import { ingest } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const T0 = 1_700_000_000_000;
const line = (lineNumber: number, message: string, logType = "INFO", step?: number, time = T0 + lineNumber) =>
  JSON.stringify({ time, message, lineNumber, logType, ...(step === undefined ? {} : { step }) });

/** Every page of a read from offset 0, following nextOffset; the route's query goes in `query`. */
async function readAllPages(client: ApiClient, path: string, query: Record<string, string | number>, key: "logs" | "rows") {
  const pages: any[][] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const response: ApiResponse = await client.get(path, { ...query, offset });
    assert.equal(response.status, 200, JSON.stringify(response.body).slice(0, 200));
    pages.push(response.body[key]);
    assert.ok(response.body.nextOffset === null || Number.isInteger(response.body.nextOffset), "nextOffset is an offset or null");
    offset = response.body.nextOffset;
  }
  return pages;
}

describe("POST /ingest/logs and GET /api/runs/logs", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("stores lines verbatim, never duplicates a re-sent batch, and pages by line number", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const body = [line(2, "epoch 1\r\tloss=0.5 ✓", "PRINT", 7), line(1, "starting"), line(3, "boom", "ERROR")].join("\n");
    assert.deepEqual((await ingest(client, "logs", run, body)).body, { accepted: 3 });
    assert.deepEqual((await ingest(client, "logs", run, body)).body, { accepted: 3 });

    const all = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" });
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 3);
    assert.deepEqual(
      all.body.logs.map((l: any) => [l.lineNumber, l.message, l.logType, l.step]),
      [
        [1, "starting", "INFO", null],
        [2, "epoch 1\r\tloss=0.5 ✓", "PRINT", 7],
        [3, "boom", "ERROR", null],
      ],
    );
    assert.equal(all.body.logs[0].time, new Date(1_700_000_000_001).toISOString());

    const errors = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", logType: "ERROR" });
    assert.deepEqual([errors.body.total, errors.body.logs.length], [1, 1]);
    for (const logType of ["error", "Error"]) {
      const same = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", logType });
      assert.deepEqual(same.body, errors.body, `logType=${logType} as the client's documentation writes it`);
    }
    const page = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", limit: 1, offset: 1 });
    assert.deepEqual([page.body.total, page.body.logs[0].lineNumber, page.body.nextOffset], [3, 2, 2]);
    assert.equal(all.body.nextOffset, null);
    for (const bad of [{ limit: 0 }, { limit: 10001 }, { offset: -1 }, { logType: "LOUD" }]) {
      assert.equal(
        (await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", ...bad })).status,
        400,
        JSON.stringify(bad),
      );
    }
  });

  it("keeps line 1 of a second process beside line 1 of the first (two posts, one line each)", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    await ingest(client, "logs", run, line(1, "first process", "INFO", undefined, T0));
    await ingest(client, "logs", run, line(1, "resumed process", "INFO", undefined, T0 + 60_000));
    const read = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" });
    assert.equal(read.body.total, 2);
    assert.deepEqual(
      read.body.logs.map((l: any) => [l.lineNumber, l.message]),
      [
        [1, "first process"],
        [1, "resumed process"],
      ],
    );
  });

  it("interleaves two processes by time, and collapses every retry of a batch", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    // Two nodes of one run, each numbering from 1, writing at alternating milliseconds.
    const node = (name: string, first: number) =>
      Array.from({ length: 5 }, (_, i) => line(i + 1, `${name} ${i + 1}`, "PRINT", undefined, T0 + first + 2 * i)).join("\n");
    const a = node("a", 0);
    const b = node("b", 1);
    for (const body of [a, b, b, a, a]) assert.deepEqual((await ingest(client, "logs", run, body)).body, { accepted: 5 });
    const read = await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" });
    assert.equal(read.body.total, 10);
    assert.deepEqual(
      read.body.logs.map((l: any) => l.message),
      ["a 1", "b 1", "a 2", "b 2", "a 3", "b 3", "a 4", "b 4", "a 5", "b 5"],
    );
  });

  it("keeps all 32,000 lines of 32 concurrent writers numbering 1 to 1,000 each", { timeout: 120_000 }, async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const WRITERS = 32;
    const LINES = 1000;
    const BATCH = 100;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let start = 1; start <= LINES; start += BATCH) {
          const body = Array.from({ length: BATCH }, (_, k) => {
            const n = start + k;
            return line(n, `w${writer} l${n}`, "INFO", undefined, T0 + n * WRITERS + writer);
          }).join("\n");
          const response = await ingest(client, "logs", run, body);
          assert.equal(response.status, 200);
        }
      }),
    );
    const pages = await readAllPages(client, "/api/runs/logs", { runId: run.runId, projectName: "logs", limit: 10_000 }, "logs");
    const lines = pages.flat();
    assert.equal(lines.length, WRITERS * LINES);
    assert.equal(new Set(lines.map((l: any) => l.message)).size, WRITERS * LINES);
    const keys = lines.map((l: any) => ({ ...l, time: Date.parse(l.time) }));
    assert.deepEqual(keys, [...keys].sort(compareConsoleLines), "ordered by time, then line number, then type");
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs", limit: 1 })).body.total, WRITERS * LINES);
  });

  it(`pages by size: at most ${READ_PAGE_BYTES} bytes of messages per page at the default limit, and every line reads back`, async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const MIB = 1024 * 1024;
    const perPage = Math.floor(READ_PAGE_BYTES / MIB);
    const count = 2 * perPage + 3;
    // Lines of 1 MiB (the longest message), sent in two bodies to stay under the 64 MiB request limit.
    const lines = Array.from({ length: count }, (_, i) => line(i, String.fromCharCode(97 + (i % 26)).repeat(MIB)));
    for (const part of [lines.slice(0, perPage), lines.slice(perPage)]) {
      assert.equal((await ingest(client, "logs", run, part.join("\n"))).status, 200);
    }
    const pages = await readAllPages(client, "/api/runs/logs", { runId: run.runId, projectName: "logs" }, "logs");
    assert.deepEqual(
      pages.map((page) => page.length),
      [perPage, perPage, 3],
    );
    const read = pages.flat();
    assert.deepEqual(
      read.map((l: any) => l.lineNumber),
      lines.map((_, i) => i),
    );
    assert.ok(read.every((l: any, i: number) => l.message.length === MIB && l.message[0] === String.fromCharCode(97 + (i % 26))));
  });

  it("stores nothing of a batch with a bad line", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const response = await ingest(
      client,
      "logs",
      run,
      [line(1, "ok"), '{"time":1,"message":"x","lineNumber":2,"logType":"SHOUT"}'].join("\n"),
    );
    assert.equal(response.status, 400);
    assert.match(response.body.error, /^line 2: logType/);
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).body.total, 0);
  });

  it("refuses line numbers and steps a double cannot hold exactly, naming the line and the field", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    const cases: [string, RegExp][] = [
      ['"lineNumber":9007199254740993', /^line 2: lineNumber must be an integer from 0 to 9007199254740991$/],
      ['"lineNumber":1e300', /^line 2: lineNumber/],
      ['"lineNumber":2.5', /^line 2: lineNumber/],
      ['"lineNumber":2,"step":1e300', /^line 2: step must be an integer from 0 to 9007199254740991$/],
    ];
    for (const [fields, error] of cases) {
      const response = await ingest(client, "logs", run, `${line(1, "ok")}\n{"time":1,"message":"x","logType":"INFO",${fields}}`);
      assert.equal(response.status, 400, fields);
      assert.match(response.body.error, error);
    }
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).body.total, 0);
  });

  it("keeps other organizations out", async () => {
    const { client } = await makeOrg(test);
    const other = await makeOrg(test);
    const run = await client.createRun({ projectName: "logs" });
    await ingest(client, "logs", run, line(1, "secret"));
    assert.equal((await ingest(other.client, "logs", run, line(2, "intrusion"))).status, 404);
    assert.equal((await other.client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).status, 404);
    assert.equal((await client.get("/api/runs/logs", { runId: run.runId, projectName: "logs" })).body.total, 1);
  });
});

describe("POST /ingest/data and GET /api/runs/data", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("stores rows as given, one per (logName, step), and lists their names by data type", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "data" });
    const row = (step: number, logName: string, dataType: string, data: string) =>
      JSON.stringify({ time: 5, step, logName, dataType, data });
    const body = [
      row(0, "weights/hist", "HISTOGRAM", '{"bins":[1,2]}'),
      row(0, "samples", "string-series", "hello"),
      row(1, "samples", "string-series", "world"),
    ].join("\n");
    assert.deepEqual((await ingest(client, "data", run, body)).body, { accepted: 3 });
    assert.deepEqual((await ingest(client, "data", run, row(1, "samples", "string-series", "WORLD"))).body, { accepted: 1 });

    const samples = await client.get("/api/runs/data", { runId: run.runId, projectName: "data", logName: "samples" });
    assert.deepEqual(
      samples.body.rows.map((r: any) => [r.step, r.data, r.dataType, r.logGroup]),
      [
        [0, "hello", "string-series", ""],
        [1, "WORLD", "string-series", ""],
      ],
    );
    const all = await client.get("/api/runs/data", { runId: run.runId, projectName: "data" });
    assert.equal(all.body.rows.length, 3);
    for (const step of ["9007199254740993", "1e300", "1.5"]) {
      const response = await ingest(
        client,
        "data",
        run,
        `${row(7, "samples", "text", "ok")}\n${row(0, "x", "text", "x").replace('"step":0', `"step":${step}`)}`,
      );
      assert.equal(response.status, 400, step);
      assert.match(response.body.error, /^line 2: step must be an integer from 0 to 9007199254740991$/);
    }
    const details = await client.get(`/api/runs/details/${run.runId}`);
    assert.deepEqual(details.body.logNames, [
      { logName: "samples", logType: "TEXT", logGroup: null },
      { logName: "weights/hist", logType: "HISTOGRAM", logGroup: "weights" },
    ]);
  });

  it(`pages by count and by size (${READ_PAGE_BYTES} bytes of data per page), so rows of the largest size all read back`, async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "data" });
    // The largest data row a line can carry: 4 MiB per NDJSON line, less the other fields.
    const size = 4 * 1024 * 1024 - 200;
    const perPage = Math.floor(READ_PAGE_BYTES / size);
    const count = 2 * perPage + 2;
    const rows = Array.from({ length: count }, (_, step) =>
      JSON.stringify({ time: 5, step, logName: "big", dataType: "table", data: String(step % 10).repeat(size) }),
    );
    assert.deepEqual((await ingest(client, "data", run, rows.join("\n"))).body, { accepted: count });
    const query = { runId: run.runId, projectName: "data" };
    const pages = await readAllPages(client, "/api/runs/data", query, "rows");
    assert.deepEqual(
      pages.map((page) => page.length),
      [perPage, perPage, 2],
    );
    assert.ok(pages.flat().every((row: any, step: number) => row.step === step && row.data === String(step % 10).repeat(size)));

    const byCount = await readAllPages(client, "/api/runs/data", { ...query, logName: "big", limit: 1 }, "rows");
    assert.deepEqual(
      byCount.map((page) => page.map((row: any) => row.step)),
      rows.map((_, step) => [step]),
    );
    for (const bad of [{ limit: 0 }, { limit: 10001 }, { offset: -1 }, { offset: "9223372036854775808" }]) {
      assert.equal((await client.get("/api/runs/data", { ...query, ...bad })).status, 400, JSON.stringify(bad));
    }
  });
});
