import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * Alert rules firing from real writes and their deliveries to a real HTTP receiver (docs/api.md,
 * "Alerts"; docs/semantics.md, "Alerts"). The server's clock is moved by hand, so retries are due
 * when the test says; the delivery worker itself runs on real time.
 */
const MLFLOW = "/api/2.0/mlflow";

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("alert delivery", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await WebhookReceiver.start();
    test = await startTestServer({ clock, flags: { "--alerts-allow-hosts": "127.0.0.1", "--alerts-max-attempts": "3" } });
  });
  after(async () => {
    await test.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 200 });
  });

  /** A fresh organization with a run, a webhook destination to the receiver, and one rule. */
  async function setUp(condition: Record<string, unknown>, projectName = "alerts") {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName, runName: "trainer" });
    // A path of its own: deliveries of earlier tests still retrying never count as this test's.
    const path = `/hook-${Math.random().toString(36).slice(2)}`;
    const created = await client.post("/api/alerts/destinations", { name: "receiver", kind: "webhook", url: receiver.url(path) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const rule = await client.post("/api/alerts/rules", {
      projectName,
      name: "rule",
      condition,
      destinationIds: [created.body.destination.id],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    return { client, run, path, secret: created.body.secret as string };
  }

  const points = (client: ApiClient, run: { runId: number; projectName: string }, values: number[], firstStep: number) =>
    ingest(client, "metrics", run, toNdjson(values.map((value, i) => ({ step: firstStep + i, data: { loss: value } }))));
  const events = async (client: ApiClient, projectName = "alerts") => (await client.get("/api/alerts/events", { projectName })).body.events;

  it("delivers a signed webhook once per condition change, verifiable with the destination's secret", async () => {
    const { client, run, path, secret } = await setUp({ type: "non_finite", metric: "loss" });
    assert.equal((await points(client, run, [1, 2], 0)).status, 200);
    assert.equal((await points(client, run, [Number.NaN], 2)).status, 200);
    const [received] = await receiver.waitFor(1, 15_000, path);
    const { headers, body } = received!;
    const timestamp = String(headers["x-stepwise-timestamp"]);
    const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
    assert.equal(headers["x-stepwise-signature"], expected, "HMAC-SHA256 of '<timestamp>.<raw body>'");
    assert.equal(headers["content-type"], "application/json");
    const payload = JSON.parse(body);
    assert.equal(headers["x-stepwise-delivery"], payload.deliveryId);
    assert.deepEqual(
      [payload.event.kind, payload.event.ruleName, payload.event.runId, payload.event.body, payload.run.displayId, payload.run.url],
      ["non_finite", "rule", run.runId, "loss became NaN", run.displayId, `/projects/alerts/runs/${run.runId}`],
    );
    // Still NaN: no new event. A finite value re-arms; the next ±Inf fires again.
    await points(client, run, [Number.NaN, Infinity], 3);
    await points(client, run, [0.5], 5);
    await points(client, run, [-Infinity], 6);
    await receiver.waitFor(2, 15_000, path);
    const listed = await until(
      () => events(client),
      (list) => list.length === 2 && list.every((e: { deliveries: { status: string }[] }) => e.deliveries[0]?.status === "delivered"),
      "two delivered events",
    );
    assert.deepEqual(
      listed.map((e: { body: string }) => e.body),
      ["loss became -Inf", "loss became NaN"],
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.count(path), 2, "no delivery while the value stays non-finite");
    // Another organization with a project of the same name sees none of these events, even naming the run.
    const other = (await makeOrg(test)).client;
    await other.createRun({ projectName: "alerts" });
    assert.deepEqual((await other.get("/api/alerts/events", { projectName: "alerts" })).body.events, []);
    assert.deepEqual((await other.get("/api/alerts/events", { projectName: "alerts", runId: run.runId })).body.events, []);
  });

  it("retries after the receiver answers 500, with the same delivery ID, then fails after the last attempt and is retried by hand", async () => {
    const { client, run, path } = await setUp({ type: "threshold", metric: "loss", op: "above", value: 10 });
    receiver.answer = (request) => ({ status: request.path === path && receiver.count(path) === 1 ? 500 : 200 });
    await points(client, run, [11], 0);
    await receiver.waitFor(1, 15_000, path);
    const pending = await until(
      () => events(client),
      (list) => list[0]?.deliveries[0]?.attempts === 1,
      "the first attempt recorded",
    );
    const delivery = pending[0].deliveries[0];
    assert.deepEqual([delivery.status, delivery.lastError], ["pending", "HTTP 500: receiver says no"]);
    assert.ok(delivery.nextAttemptAt <= clock.now() + 2000, "full jitter within the first backoff step (2 s)");
    clock.advance(2000);
    const [first, second] = await receiver.waitFor(2, 15_000, path);
    assert.equal(second!.headers["x-stepwise-delivery"], first!.headers["x-stepwise-delivery"], "one delivery ID for every attempt");
    await until(
      () => events(client),
      (list) => list[0]?.deliveries[0]?.status === "delivered",
      "delivered",
    );

    // A receiver that always fails: three attempts (--alerts-max-attempts 3), then failed with the last error.
    receiver.answer = () => ({ status: 503 });
    await points(client, run, [1, 12], 1);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await receiver.waitFor(2 + attempt, 15_000, path);
      // The outcome recorded before the clock moves, so the retry is due at the moved time.
      await until(
        () => events(client),
        (list) => list[0]?.deliveries[0]?.attempts === attempt,
        `attempt ${attempt} recorded`,
      );
      clock.advance(3_600_000);
    }
    const failed = await until(
      () => client.get("/api/alerts/deliveries", { status: "failed" }),
      (response) => response.body.deliveries.length === 1,
      "a failed delivery",
    );
    const [lost] = failed.body.deliveries;
    assert.deepEqual([lost.attempts, lost.lastError, lost.nextAttemptAt], [3, "HTTP 503: receiver says no", null]);
    assert.equal(receiver.count(path), 5, "two attempts of the first delivery, three of the second");
    receiver.answer = () => ({ status: 200 });
    assert.deepEqual((await client.post(`/api/alerts/deliveries/${lost.id}/retry`)).body, { success: true });
    assert.equal((await client.post(`/api/alerts/deliveries/${lost.id}/retry`)).status, 404, "no longer failed");
    assert.equal((await receiver.waitFor(6, 15_000, path))[5]!.headers["x-stepwise-delivery"], lost.id);
    await until(
      () => client.get("/api/alerts/deliveries", { status: "delivered" }),
      (r) => r.body.deliveries.some((d: { id: string }) => d.id === lost.id),
      "delivered after the retry",
    );
  });

  it("fires threshold rules after N consecutive points, from both protocols' ingest", async () => {
    const { client } = await makeOrg(test);
    const experiment = await client.post(`${MLFLOW}/experiments/create`, { name: "mlflow-alerts" });
    const path = "/mlflow-thresholds";
    const hook = (await client.post("/api/alerts/destinations", { name: "r", kind: "webhook", url: receiver.url(path) })).body.destination;
    const condition = { type: "threshold", metric: "acc", op: "below", value: 0.5, consecutive: 3 };
    await client.post("/api/alerts/rules", { projectName: "mlflow-alerts", name: "low acc", condition, destinationIds: [hook.id] });
    const created = await client.post(`${MLFLOW}/runs/create`, { experiment_id: experiment.body.experiment_id, start_time: clock.now() });
    const runId = created.body.run.info.run_id;
    const log = (value: number, step: number) =>
      client.post(`${MLFLOW}/runs/log-metric`, { run_id: runId, key: "acc", value, timestamp: clock.now(), step });
    for (const [step, value] of [0.4, 0.3, 0.9, 0.2, 0.1].entries()) assert.equal((await log(value, step)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.count(path), 0, "two below, one above, two below: no run of three yet");
    const batch = await client.post(`${MLFLOW}/runs/log-batch`, {
      run_id: runId,
      metrics: [{ key: "acc", value: 0.05, timestamp: clock.now(), step: 5 }],
    });
    assert.equal(batch.status, 200);
    const [received] = await receiver.waitFor(1, 15_000, path);
    assert.match(JSON.parse(received!.body).event.body, /acc is below 0.5 for 3 consecutive points \(0.05\)/);
  });

  it("fires status rules from the API, MLflow's run update and the stale sweep, and re-arms when the run runs again", async () => {
    const { client, run, path } = await setUp({ type: "status", statuses: ["FAILED", "TERMINATED"] });
    const status = (runId: number, value: string) => client.post("/api/runs/status/update", { runId, status: value });
    assert.equal((await status(run.runId, "COMPLETED")).status, 200);
    assert.equal((await status(run.runId, "FAILED")).status, 200);
    await receiver.waitFor(1, 15_000, path);
    assert.equal(JSON.parse((await receiver.waitFor(1, 15_000, path))[0]!.body).event.body, "the run ended FAILED");
    assert.equal((await client.post("/api/runs/resume", { runId: run.runId })).status, 200);
    assert.equal((await status(run.runId, "FAILED")).status, 200);
    await receiver.waitFor(2, 15_000, path);

    // MLflow's KILLED is Stepwise's TERMINATED.
    const experiment = await client.get(`${MLFLOW}/experiments/get-by-name`, { experiment_name: "alerts" });
    const created = await client.post(`${MLFLOW}/runs/create`, {
      experiment_id: experiment.body.experiment.experiment_id,
      start_time: clock.now(),
    });
    assert.equal((await client.post(`${MLFLOW}/runs/update`, { run_id: created.body.run.info.run_id, status: "KILLED" })).status, 200);
    await receiver.waitFor(3, 15_000, path);
    assert.equal(JSON.parse((await receiver.waitFor(3, 15_000, path))[2]!.body).event.body, "the run ended TERMINATED");

    // The stale sweep fails a silent run: its rule fires too.
    const silent = await client.createRun({ projectName: "alerts", runName: "silent" });
    clock.advance(16 * 60_000);
    assert.ok((await test.server.staleMonitor.sweep())! >= 1);
    const [, , , swept] = await receiver.waitFor(4, 15_000, path);
    assert.equal(JSON.parse(swept!.body).event.runId, silent.runId);
  });

  it("fires a stalled rule for a RUNNING run silent for afterSeconds, once, and again after data arrived", async () => {
    const { client, run, path } = await setUp({ type: "stalled", afterSeconds: 60 }, "stalls");
    assert.equal(await test.server.alerts.checkStalled(), 0);
    clock.advance(61_000);
    assert.equal(await test.server.alerts.checkStalled(), 1);
    assert.equal(await test.server.alerts.checkStalled(), 0, "not again while it stays silent");
    await receiver.waitFor(1, 15_000, path);
    assert.equal(JSON.parse((await receiver.waitFor(1, 15_000, path))[0]!.body).event.body, "no data for 60 s while RUNNING");
    await ingest(client, "logs", run, JSON.stringify({ time: clock.now(), message: "alive", lineNumber: 0, logType: "INFO" }));
    assert.equal(await test.server.alerts.checkStalled(), 0, "data arrived: re-armed");
    clock.advance(61_000);
    assert.equal(await test.server.alerts.checkStalled(), 1);
    await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED" });
    clock.advance(61_000);
    assert.equal(await test.server.alerts.checkStalled(), 0, "a finished run is not stalled");
  });

  it("neither stalls nor sweeps a run in the trash: no alert for a deleted run, and the sweep fails it once restored", async () => {
    const { client, run, path } = await setUp({ type: "stalled", afterSeconds: 60 }, "trashed");
    const failed = await client.post("/api/alerts/rules", {
      projectName: "trashed",
      name: "failed",
      condition: { type: "status", statuses: ["FAILED"] },
      destinationIds: (await client.get("/api/alerts/destinations")).body.destinations.map((d: { id: number }) => d.id),
    });
    assert.equal(failed.status, 201);
    assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
    clock.advance(16 * 60_000);
    assert.equal(await test.server.alerts.checkStalled(), 0, "a deleted run is not stalled");
    await test.server.staleMonitor.sweep();
    assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 200);
    assert.equal((await client.get(`/api/runs/details/${run.runId}`)).body.status, "RUNNING", "the sweep left it as it was");
    await test.server.staleMonitor.sweep();
    const [swept] = await receiver.waitFor(1, 15_000, path);
    assert.equal(JSON.parse(swept!.body).event.body, "the run ended FAILED", "the first alert is the restored run's failure");
  });

  it("fires client_alert rules at or above their level, with the client's title and body, to a Slack body too", async () => {
    const { client, run, path } = await setUp({ type: "client_alert", minLevel: "WARN" });
    const slack = await client.post("/api/alerts/destinations", { name: "chat", kind: "slack", url: receiver.url(`${path}-slack`) });
    const rule = (await client.get("/api/alerts/rules", { projectName: "alerts" })).body.rules[0];
    await client.raw("PATCH", `/api/alerts/rules/${rule.id}`, JSON.stringify({ destinationIds: [slack.body.destination.id] }), {
      "content-type": "application/json",
    });
    const alert = (level: string, title: string) =>
      client.post("/api/runs/alert", { runId: run.runId, alert: { title, body: "details", level, timestamp: null } });
    assert.equal((await alert("INFO", "quiet")).status, 200);
    assert.equal((await alert("ERROR", "loud")).status, 200);
    const [received] = await receiver.waitFor(1, 15_000, `${path}-slack`);
    const body = JSON.parse(received!.body);
    assert.match(body.text, /^\[ERROR\] loud \(<\/projects\/alerts\/runs\/\d+\|alerts\/[A-Z]+-\d+>\)\ndetails$/);
    assert.equal(body.blocks[0].text.text, body.text);
    assert.equal(received!.headers["x-stepwise-signature"], undefined, "a Slack body is not signed");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await receiver.waitFor(1, 0, `${path}-slack`)).length, 1, "INFO is below the rule's WARN");
  });

  it("does not follow a redirect, even from an allowed host to a refused address", async () => {
    const { client, run, path } = await setUp({ type: "non_finite", metric: "loss" });
    receiver.answer = () => ({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    await points(client, run, [Number.NaN], 0);
    await receiver.waitFor(1, 15_000, path);
    const [event] = await until(
      () => events(client),
      (list) => list[0]?.deliveries[0]?.attempts === 1,
      "the attempt",
    );
    assert.equal(event.deliveries[0].lastError, "HTTP 302: redirect to http://169.254.169.254/latest/meta-data/ not followed");
  });

  it("a receiver that never answers slows neither ingest nor the deliveries to other destinations", { timeout: 60_000 }, async () => {
    const { client } = await makeOrg(test);
    const baselineRun = await client.createRun({ projectName: "quiet", runName: "baseline" });
    const run = await client.createRun({ projectName: "hanging", runName: "busy" });
    const dead = `/dead-${Math.random().toString(36).slice(2)}`;
    const healthy = `/healthy-${Math.random().toString(36).slice(2)}`;
    receiver.answer = (request) => (request.path === dead ? "hang" : { status: 200 });
    const destination = async (name: string, path: string) =>
      (await client.post("/api/alerts/destinations", { name, kind: "webhook", url: receiver.url(path) })).body.destination.id;
    const rule = (name: string, condition: Record<string, unknown>, destinationIds: number[]) =>
      client.post("/api/alerts/rules", { projectName: "hanging", name, condition, destinationIds });
    await rule("nan", { type: "non_finite", metric: "loss" }, [await destination("dead", dead)]);
    await rule("high", { type: "threshold", metric: "acc", op: "above", value: 0.5 }, [await destination("healthy", healthy)]);

    // Each batch flips both conditions: every other batch fires both rules.
    const BATCHES = 60;
    const timed = async (target: { runId: number; projectName: string }) => {
      const durations: number[] = [];
      for (let i = 0; i < BATCHES; i++) {
        const lines = Array.from({ length: 10 }, (_, j) => ({
          step: i * 10 + j,
          data: { loss: i % 2 === 0 ? Number.NaN : 1, acc: i % 2 === 0 ? 0.9 : 0.1 },
        }));
        const started = performance.now();
        assert.equal((await ingest(client, "metrics", target, toNdjson(lines))).status, 200);
        durations.push(performance.now() - started);
      }
      return { total: durations.reduce((a, b) => a + b, 0), slowest: Math.max(...durations) };
    };
    const baseline = await timed(baselineRun);
    const busy = await timed(run);
    await receiver.waitFor(BATCHES / 2, 15_000, healthy);
    assert.ok(
      receiver.count(dead) >= 1 && receiver.count(dead) <= 2,
      `the dead receiver holds at most its share of slots (${receiver.count(dead)})`,
    );
    assert.ok(busy.slowest < 2000, `no ingest request waited on a delivery (slowest ${busy.slowest.toFixed(0)} ms; the timeout is 10 s)`);
    assert.ok(
      busy.total < baseline.total * 3 + 1000,
      `ingest with the dead receiver ${busy.total.toFixed(0)} ms vs ${baseline.total.toFixed(0)} ms`,
    );
  });
});
