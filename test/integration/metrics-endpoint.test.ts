import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { startTestServer, TEST_BACKEND, type TestServer } from "../helpers/start-server.js";

/** One sample of a Prometheus text exposition: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Map<string, string>;
  value: number;
}

/** Parses the Prometheus text format (version 0.0.4): `name{a="x",b="y"} value` lines, comments skipped. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const labels = new Map<string, string>();
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels.set(key!, value!);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample with this name and these labels (others may be present); undefined when none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.find((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels.get(key) === value));
  return found?.value;
}

async function scrape(test: TestServer, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${test.url}/metrics`, { headers });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await response.text());
}

const API = "/api/2.0/mlflow";
const batch = (firstStep: number, steps: number, metrics: number) =>
  toNdjson(
    Array.from({ length: steps }, (_, k) => ({
      step: firstStep + k,
      data: Object.fromEntries(Array.from({ length: metrics }, (_, m) => [`m${m}`, firstStep + k + m])),
    })),
  );

describe("GET /metrics", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("counts requests by route template and status, points by protocol and batch size, in the Prometheus text format", async () => {
    const run = await test.client.createRun({ projectName: "scraped" });
    for (let i = 0; i < 3; i++) assert.equal((await ingest(test.client, "metrics", run, batch(i * 10, 10, 3))).status, 200);
    const experiment = await test.client.post(`${API}/experiments/create`, { name: "scraped-mlflow" });
    const created = await test.client.post(`${API}/runs/create`, { experiment_id: experiment.body.experiment_id, start_time: 1 });
    const runId: string = created.body.run.info.run_id;
    const logged = await test.client.post(`${API}/runs/log-batch`, {
      run_id: runId,
      metrics: [1, 2, 3, 4].map((step) => ({ key: "loss", value: 1 / step, timestamp: 1000 + step, step })),
    });
    assert.equal(logged.status, 200, JSON.stringify(logged.body));
    assert.equal((await test.client.get(`/api/runs/details/${run.runId}`)).status, 200);
    assert.equal((await test.client.get("/api/runs/details/987654321")).status, 404);
    assert.equal((await fetch(`${test.url}/no/such/page/55555`)).status, 404);

    const samples = await scrape(test);
    assert.equal(sampleValue(samples, "stepwise_points_ingested_total", { protocol: "stepwise" }), 90);
    assert.equal(sampleValue(samples, "stepwise_points_ingested_total", { protocol: "mlflow" }), 4);
    assert.equal(sampleValue(samples, "stepwise_ingest_batch_points_count", { protocol: "stepwise" }), 3);
    assert.equal(sampleValue(samples, "stepwise_ingest_batch_points_sum", { protocol: "stepwise" }), 90);
    assert.equal(sampleValue(samples, "stepwise_ingest_batch_points_bucket", { protocol: "stepwise", le: "10" }), 0);
    assert.equal(sampleValue(samples, "stepwise_ingest_batch_points_bucket", { protocol: "stepwise", le: "100" }), 3);

    const ingests = { method: "POST", route: "/ingest/metrics", status: "200" };
    assert.equal(sampleValue(samples, "http_requests_total", ingests), 3);
    assert.equal(sampleValue(samples, "http_request_duration_seconds_count", ingests), 3);
    assert.ok(sampleValue(samples, "http_request_duration_seconds_sum", ingests)! > 0);
    const details = "/api/runs/details/:runId";
    assert.equal(sampleValue(samples, "http_requests_total", { method: "GET", route: details, status: "200" }), 1);
    assert.equal(sampleValue(samples, "http_requests_total", { method: "GET", route: details, status: "404" }), 1);
    assert.equal(sampleValue(samples, "http_requests_total", { method: "GET", route: "(unmatched)", status: "404" }), 1);
    // No label value carries what a client put in a URL: the registry cannot grow with requests.
    const labelValues = samples.flatMap((s) => [...s.labels.values()]);
    for (const fromUrl of [String(run.runId), "987654321", "55555", "/no/such/page"])
      assert.ok(!labelValues.some((value) => value.includes(fromUrl) && !/^\d+(\.\d+)?$/.test(value)), `a label holds ${fromUrl}`);

    assert.ok(sampleValue(samples, "stepwise_open_connections")! >= 1);
    assert.ok(sampleValue(samples, "stepwise_connections_accepted_total")! >= 1);
    assert.ok(sampleValue(samples, "nodejs_eventloop_lag_seconds") !== undefined, "event-loop lag");
    assert.ok(sampleValue(samples, "process_resident_memory_bytes")! > 0, "process memory");
    assert.equal(sampleValue(samples, "stepwise_alert_deliveries_total", { outcome: "delivered" }), 0);
    assert.equal(sampleValue(samples, "stepwise_store_errors_total"), undefined, "no store call has failed");
  });

  it("counts the outcomes the alert delivery worker reports", async () => {
    test.server.metrics.alertDelivery("delivered");
    test.server.metrics.alertDelivery("retry");
    test.server.metrics.alertDelivery("retry");
    const samples = await scrape(test);
    assert.equal(sampleValue(samples, "stepwise_alert_deliveries_total", { outcome: "delivered" }), 1);
    assert.equal(sampleValue(samples, "stepwise_alert_deliveries_total", { outcome: "retry" }), 2);
    assert.equal(sampleValue(samples, "stepwise_alert_deliveries_total", { outcome: "failed" }), 0);
  });

  it("reports the PostgreSQL pool's connections, and none on SQLite", async () => {
    const samples = await scrape(test);
    if (TEST_BACKEND === "postgres") {
      assert.ok(sampleValue(samples, "stepwise_db_pool_connections")! >= 1);
      assert.ok(sampleValue(samples, "stepwise_db_pool_idle_connections")! >= 0);
      assert.equal(sampleValue(samples, "stepwise_db_pool_waiting_requests"), 0);
    } else assert.equal(sampleValue(samples, "stepwise_db_pool_connections"), undefined);
  });

  it("is public by default: no API key is needed", async () => {
    assert.equal((await fetch(`${test.url}/metrics`)).status, 200);
  });
});

describe("GET /metrics with --metrics-token", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--metrics-token": "scrape-secret-1" } });
  });
  after(async () => test.close());

  it("answers 401 without the token, with a wrong one or with an API key, and 200 with it", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer scrape-secret-2" },
      { authorization: "Bearer scrape-secret-1x" },
      { authorization: "scrape-secret-1" },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${test.url}/metrics`, { headers });
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.match((await response.json()).error, /metrics token/);
    }
    const apiKey = await fetch(`${test.url}/metrics`, { headers: { authorization: `Bearer ${test.client.key}` } });
    assert.equal(apiKey.status, 401, "an API key is not the metrics token");
    const samples = await scrape(test, { authorization: "Bearer scrape-secret-1" });
    assert.equal(sampleValue(samples, "http_requests_total", { method: "GET", route: "/metrics", status: "401" }), 5);
  });
});

describe("GET /metrics with --metrics=false", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--metrics": "false" } });
  });
  after(async () => test.close());

  it("does not exist", async () => {
    const response = await fetch(`${test.url}/metrics`);
    assert.equal(response.status, 404);
    assert.match((await response.json()).error, /not found/);
  });
});

describe("503s and store errors by cause", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--store-lock-timeout": "200ms" } });
  });
  after(async () => test.close());

  it("counts writes refused because another process holds the lock as cause busy, in both counters, on both protocols", async () => {
    const run = await test.client.createRun({ projectName: "locked" });
    const experiment = await test.client.post(`${API}/experiments/create`, { name: "locked-mlflow" });
    const created = await test.client.post(`${API}/runs/create`, { experiment_id: experiment.body.experiment_id, start_time: 1 });
    const release = await holdWriteLock(test);
    try {
      const refused = await ingest(test.client, "metrics", run, batch(0, 5, 2));
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      const refusedMlflow = await test.client.post(`${API}/runs/log-batch`, {
        run_id: created.body.run.info.run_id,
        metrics: [{ key: "loss", value: 1, timestamp: 1, step: 0 }],
      });
      assert.equal(refusedMlflow.status, 503, JSON.stringify(refusedMlflow.body));
    } finally {
      await release();
    }
    const samples = await scrape(test);
    assert.equal(sampleValue(samples, "stepwise_unavailable_total", { cause: "busy" }), 2);
    assert.equal(sampleValue(samples, "stepwise_unavailable_total", { cause: "other" }), undefined);
    assert.ok(sampleValue(samples, "stepwise_store_errors_total", { cause: "busy" })! >= 2);
    assert.equal(sampleValue(samples, "http_requests_total", { method: "POST", route: "/ingest/metrics", status: "503" }), 1);
    assert.equal(
      sampleValue(samples, "http_requests_total", { method: "POST", route: "/api/2.0/mlflow/runs/log-batch", status: "503" }),
      1,
    );
    assert.equal(sampleValue(samples, "stepwise_points_ingested_total", { protocol: "stepwise" }), 0, "refused points are not counted");
    assert.equal(sampleValue(samples, "stepwise_points_ingested_total", { protocol: "mlflow" }), 0);
  });
});

/** SQLite: another connection's write transaction on the file. PostgreSQL: another connection's lock on every run's row. */
async function holdWriteLock(test: TestServer): Promise<() => Promise<void>> {
  if (TEST_BACKEND === "sqlite") {
    const other = new Database(join(test.dataDir, DATABASE_FILE));
    other.exec("BEGIN IMMEDIATE");
    return async () => {
      other.exec("ROLLBACK");
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: test.databaseUrl });
  await other.connect();
  await other.query("BEGIN");
  await other.query("SELECT id FROM runs FOR UPDATE");
  return async () => {
    await other.query("ROLLBACK");
    await other.end();
  };
}
