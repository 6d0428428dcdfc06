import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { expectedSummary, ingest, seededRandom, toNdjson } from "../helpers/ingest.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";

describe("POST /ingest/metrics", () => {
  let test: TestServer;
  const clock = new ManualClock();
  before(async () => {
    test = await startTestServer({ clock });
  });
  after(async () => test.close());

  async function newRun() {
    const org = await makeOrg(test);
    const run = await org.client.createRun({ projectName: "ingest" });
    return { ...org, run };
  }

  async function summaries(orgId: string, runId: number) {
    const list = await test.server.store.listMetricSummaries(orgId, runId);
    return new Map(list.map(({ logName, logGroup: _group, ...summary }) => [logName, summary]));
  }

  function assertSummary(actual: Record<string, unknown> | undefined, expected: ReturnType<typeof expectedSummary>) {
    assert.ok(actual, "summary exists");
    for (const key of ["count", "nonFiniteCount", "min", "max", "firstStep", "lastStep", "lastValue", "lastValueStep"] as const) {
      assert.equal(actual[key], expected[key], key);
    }
    for (const key of ["mean", "stddev"] as const) {
      assert.ok(
        Math.abs((actual[key] as number) - expected[key]) <= 1e-9 * Math.max(1, Math.abs(expected[key])),
        `${key}: ${actual[key]} vs ${expected[key]}`,
      );
    }
  }

  it("stores points, answers {accepted}, and round-trips NaN and ±Infinity through raw reads", async () => {
    const { client, run } = await newRun();
    const body = toNdjson([
      { step: 0, data: { "train/loss": 2, acc: NaN, skipped: null } },
      { step: 1, data: { "train/loss": Infinity, acc: 0.5 } },
      { step: 2, data: { "train/loss": -Infinity, acc: "NaN" } },
    ]);
    const response = await ingest(client, "metrics", run, body);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { accepted: 6 });

    const raw = await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "ingest", logName: "train/loss" });
    assert.equal(raw.status, 200);
    assert.deepEqual(
      raw.body.rows.map((row: any) => [row.logGroup, row.step, row.value, row.nonFiniteFlags]),
      [
        ["train", 0, 2, 0],
        ["train", 1, 0, 2],
        ["train", 2, 0, 4],
      ],
    );
    assert.equal(raw.body.truncated, false);
    assert.equal(raw.body.rows[0].time, new Date(clock.now()).toISOString(), "raw time is the server write time");
    const acc = await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "ingest", logName: "acc" });
    assert.deepEqual(
      acc.body.rows.map((row: any) => row.nonFiniteFlags),
      [1, 0, 1],
    );
  });

  it("adds new metric names to the run's log names as METRIC", async () => {
    const { client, run } = await newRun();
    await ingest(client, "metrics", run, toNdjson([{ step: 0, data: { "eval/acc": 1, loss: 2 } }]));
    const details = await client.get(`/api/runs/details/${run.runId}`);
    assert.deepEqual(details.body.logNames, [
      { logName: "eval/acc", logType: "METRIC", logGroup: "eval" },
      { logName: "loss", logType: "METRIC", logGroup: null },
    ]);
  });

  it("changes nothing when a batch is sent again (a client retry)", async () => {
    const { client, run, organization } = await newRun();
    const body = toNdjson(
      Array.from({ length: 50 }, (_, step) => ({ step, data: { loss: 1 / (step + 1), acc: step % 7 === 0 ? NaN : step } })),
    );
    assert.deepEqual((await ingest(client, "metrics", run, body)).body, { accepted: 100 });
    const first = await summaries(organization.id, run.runId);
    assert.deepEqual((await ingest(client, "metrics", run, body)).body, { accepted: 100 });
    assert.deepEqual(await summaries(organization.id, run.runId), first);
    const raw = await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "ingest", logName: "loss" });
    assert.equal(raw.body.rows.length, 50);
  });

  it("keeps the last write of a step and exact summaries under random overlapping batches", async () => {
    const { client, run, organization } = await newRun();
    const random = seededRandom(42);
    const model = new Map<string, Map<number, number>>([
      ["a", new Map()],
      ["b/c", new Map()],
    ]);
    for (let batch = 0; batch < 40; batch++) {
      const lines = [];
      const start = Math.floor(random() * 300);
      for (let k = 0; k < 1 + Math.floor(random() * 40); k++) {
        const step = start + Math.floor(random() * 60);
        const pick = random();
        const value = pick < 0.05 ? NaN : pick < 0.08 ? Infinity : Math.round((random() - 0.5) * 1000) / 10;
        lines.push({ step, data: { a: value, "b/c": step % 3 === 0 ? null : -value } });
      }
      const response = await ingest(client, "metrics", run, toNdjson(lines));
      assert.equal(response.status, 200, JSON.stringify(response.body));
      for (const line of lines) {
        for (const [name, value] of Object.entries(line.data)) if (value !== null) model.get(name)!.set(line.step, value as number);
      }
    }
    const actual = await summaries(organization.id, run.runId);
    for (const [name, points] of model) {
      assertSummary(actual.get(name) as Record<string, unknown>, expectedSummary(points));
      const raw = await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "ingest", logName: name, limit: 50000 });
      const expectedSteps = [...points.keys()].sort((x, y) => x - y);
      assert.deepEqual(
        raw.body.rows.map((row: any) => row.step),
        expectedSteps,
      );
      for (const row of raw.body.rows) {
        const value = points.get(row.step)!;
        assert.equal(
          row.nonFiniteFlags === 0 ? row.value : row.nonFiniteFlags,
          Number.isFinite(value) ? value : Number.isNaN(value) ? 1 : value > 0 ? 2 : 4,
        );
      }
    }
  });

  it("stores nothing of a body with one bad line, and names the line", async () => {
    const { client, run, organization } = await newRun();
    const body = [
      toNdjson([
        { step: 0, data: { loss: 1 } },
        { step: 1, data: { loss: 2 } },
      ]),
      '{"time": 1, "step": "two", "data": {}}',
    ].join("\n");
    const response = await ingest(client, "metrics", run, body);
    assert.equal(response.status, 400);
    assert.match(response.body.error, /^line 3: step/);
    assert.equal((await summaries(organization.id, run.runId)).size, 0);
    assert.deepEqual((await client.get(`/api/runs/details/${run.runId}`)).body.logNames, []);
  });

  it("refuses values other than numbers and the three non-finite spellings, and steps beyond 2^53 - 1", async () => {
    const { client, run, organization } = await newRun();
    for (const spelling of ["constructor", "__proto__", "valueOf", "toString", "nan", "inf"]) {
      const response = await ingest(client, "metrics", run, `{"time":1,"step":0,"data":{"loss":"${spelling}"}}`);
      assert.equal(response.status, 400, spelling);
      assert.match(response.body.error, /^line 1: data\.loss must be a number/);
    }
    for (const step of ["9007199254740993", "1e300", "0.5"]) {
      const response = await ingest(client, "metrics", run, `{"time":1,"step":0,"data":{"a":1}}\n{"time":1,"step":${step},"data":{"a":1}}`);
      assert.equal(response.status, 400, step);
      assert.match(response.body.error, /^line 2: step must be an integer from 0 to 9007199254740991/);
    }
    assert.equal((await summaries(organization.id, run.runId)).size, 0);
  });

  it("counts as a heartbeat of the run", async () => {
    const { client, run, organization } = await newRun();
    clock.advance(60_000);
    await ingest(client, "metrics", run, toNdjson([{ step: 0, data: { loss: 1 } }]));
    assert.equal((await test.server.store.getRun(organization.id, run.runId))!.heartbeatAt, clock.now());
  });

  it("accepts any content type and an empty body", async () => {
    const { client, run } = await newRun();
    for (const type of ["text/plain", "application/json", "mask", ""]) {
      const response = await client.raw("POST", "/ingest/metrics", toNdjson([{ step: 1, data: { x: 1 } }]), {
        "content-type": type,
        "x-run-id": String(run.runId),
        "x-project-name": "ingest",
      });
      assert.equal(response.status, 200, type);
    }
    assert.deepEqual((await ingest(client, "metrics", run, "\n\n")).body, { accepted: 0 });
  });

  it("rejects bad headers, unknown runs, other projects and other organizations' runs", async () => {
    const { client, run } = await newRun();
    const other = await makeOrg(test);
    const body = toNdjson([{ step: 0, data: { loss: 1 } }]);
    const send = (c = client, headers: Record<string, string>) => c.raw("POST", "/ingest/metrics", body, headers);
    assert.equal((await send(client, { "x-project-name": "ingest" })).status, 400);
    assert.equal((await send(client, { "x-run-id": "abc", "x-project-name": "ingest" })).status, 400);
    assert.equal((await send(client, { "x-run-id": String(run.runId) })).status, 400);
    assert.equal((await send(client, { "x-run-id": "999999", "x-project-name": "ingest" })).status, 404);
    assert.equal((await send(client, { "x-run-id": String(run.runId), "x-project-name": "elsewhere" })).status, 404);
    const foreign = await send(other.client, { "x-run-id": String(run.runId), "x-project-name": "ingest" });
    assert.equal(foreign.status, 404);
    assert.deepEqual(Object.keys(foreign.body), ["error"]);
    assert.equal((await send(client.withKey(undefined), { "x-run-id": String(run.runId), "x-project-name": "ingest" })).status, 401);
  });

  it("answers 413 above 64 MiB and stores nothing", async () => {
    const { client, run, organization } = await newRun();
    const line = `${toNdjson([{ step: 0, data: { loss: 1 } }])}\n`;
    const response = await ingest(client, "metrics", run, line.repeat(Math.ceil((64 * 1024 * 1024 + 1) / line.length)));
    assert.equal(response.status, 413);
    assert.match(response.body.error, /64 MiB/);
    assert.equal((await summaries(organization.id, run.runId)).size, 0);
  });
});

describe("GET /api/runs/metrics/raw", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("windows by step, truncates at the limit, and 404s unknown projects and foreign runs", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "raw" });
    await ingest(client, "metrics", run, toNdjson(Array.from({ length: 100 }, (_, step) => ({ step, data: { m: step * 2 } }))));
    const query = { runId: run.runId, projectName: "raw", logName: "m" };
    const window = await client.get("/api/runs/metrics/raw", { ...query, stepMin: 10, stepMax: 19 });
    assert.deepEqual(
      window.body.rows.map((row: any) => row.value),
      Array.from({ length: 10 }, (_, i) => (i + 10) * 2),
    );
    const limited = await client.get("/api/runs/metrics/raw", { ...query, limit: 5 });
    assert.equal(limited.body.rows.length, 5);
    assert.equal(limited.body.truncated, true);
    assert.equal((await client.get("/api/runs/metrics/raw", { ...query, limit: 100 })).body.truncated, true);
    assert.equal((await client.get("/api/runs/metrics/raw", { ...query, limit: 101 })).body.truncated, false);
    assert.equal((await client.get("/api/runs/metrics/raw", { ...query, limit: 50001 })).status, 400);
    assert.equal((await client.get("/api/runs/metrics/raw", { ...query, stepMin: -1 })).status, 400);
    assert.equal((await client.get("/api/runs/metrics/raw", { runId: run.runId, projectName: "raw" })).status, 400);
    const unknown = await client.get("/api/runs/metrics/raw", { ...query, projectName: "nope" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, "project 'nope' not found");
    const other = await makeOrg(test);
    assert.equal((await other.client.get("/api/runs/metrics/raw", query)).status, 404);
  });
});
