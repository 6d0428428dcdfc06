import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeTestStoreLocation, spawnServer, type ServerProcess, type TestStoreLocation } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * Alert delivery across processes (docs/decisions.md, "Alert delivery"): the outbox in the store
 * survives a restart, and several processes on one store deliver each alert once. Real server
 * processes (`bin/stepwise serve`) on the store the run selects, with a real receiver.
 */
const ALLOW = ["--alerts-allow-hosts", "127.0.0.1"];
const processes: ServerProcess[] = [];
const locations: TestStoreLocation[] = [];
const receivers: WebhookReceiver[] = [];

async function stop(server: ServerProcess) {
  server.child.kill("SIGTERM");
  await server.exited;
}

after(async () => {
  for (const server of processes) if (server.child.exitCode === null) await stop(server);
  for (const receiver of receivers) await receiver.close();
  for (const location of locations) await location.remove();
});

async function serve(location: TestStoreLocation) {
  const server = await spawnServer(location.dataDir, [...location.args, ...ALLOW]);
  processes.push(server);
  return server;
}

async function setUp(client: ApiClient, url: string) {
  const destination = (await client.post("/api/alerts/destinations", { name: "hook", kind: "webhook", url })).body.destination;
  const rule = await client.post("/api/alerts/rules", {
    projectName: "shared",
    name: "nan",
    condition: { type: "non_finite", metric: "loss" },
    destinationIds: [destination.id],
  });
  assert.equal(rule.status, 201, JSON.stringify(rule.body));
}

describe("alert delivery across processes", () => {
  it("delivers after a restart what was queued while the receiver was down", { timeout: 90_000 }, async () => {
    const location = await makeTestStoreLocation();
    locations.push(location);
    // A port to a receiver that is not there yet: the first attempts are refused connections.
    const placeholder = await WebhookReceiver.start();
    const port = placeholder.port;
    await placeholder.close();
    const first = await serve(location);
    const key = /sw_[A-Za-z0-9_-]{43}/.exec(first.stdout())![0];
    const client = new ApiClient(first.url, key);
    const run = await client.createRun({ projectName: "shared" });
    await setUp(client, `http://127.0.0.1:${port}/hook`);
    assert.equal((await ingest(client, "metrics", run, toNdjson([{ step: 0, data: { loss: Number.NaN } }]))).status, 200);
    const queued = await waitFor(
      async () => {
        const [delivery] = (await client.get("/api/alerts/deliveries")).body.deliveries;
        return delivery?.attempts >= 1 && delivery;
      },
      { what: "a failed first attempt" },
    );
    assert.equal(queued.status, "pending");
    assert.match(queued.lastError, /ECONNREFUSED/);
    await stop(first);

    const receiver = await WebhookReceiver.start(port);
    receivers.push(receiver);
    const second = await serve(location);
    const [received] = await receiver.waitFor(1, 30_000);
    assert.equal(received!.headers["x-stepwise-delivery"], queued.id, "the same delivery, from the outbox in the store");
    const after = new ApiClient(second.url, key);
    await waitFor(async () => (await after.get("/api/alerts/deliveries", { status: "delivered" })).body.deliveries.length === 1, {
      what: "the delivery marked delivered",
    });
    await stop(second);
  });

  it("three processes on one store fire each change once and deliver each delivery ID once", { timeout: 120_000 }, async () => {
    const location = await makeTestStoreLocation();
    locations.push(location);
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    const servers = [await serve(location)];
    servers.push(...(await Promise.all([serve(location), serve(location)])));
    const key = servers.flatMap((server) => /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout()) ?? [])[0]!;
    const clients = servers.map((server) => new ApiClient(server.url, key));
    const runs = [];
    for (let i = 0; i < 12; i++) runs.push(await clients[i % 3]!.createRun({ projectName: "shared", runName: `run-${i}` }));
    await setUp(clients[0]!, receiver.url());
    // Each run's NaN sent through all three processes at once, twice over: one event per run.
    const body = toNdjson([{ step: 0, data: { loss: Number.NaN } }]);
    await Promise.all(runs.flatMap((run) => [...clients, ...clients].map((client) => ingest(client, "metrics", run, body))));
    await receiver.waitFor(runs.length, 30_000);
    // Time for a second delivery of any of them to arrive, were there one.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const ids = receiver.received.map((request) => String(request.headers["x-stepwise-delivery"]));
    assert.equal(ids.length, runs.length, "one delivery per run");
    assert.equal(new Set(ids).size, runs.length, "each delivery ID once");
    const runIds = receiver.received.map((request) => JSON.parse(request.body).event.runId as number);
    assert.deepEqual(
      runIds.sort((a, b) => a - b),
      runs.map((run) => run.runId).sort((a, b) => a - b),
    );
    const events = (await clients[1]!.get("/api/alerts/events", { projectName: "shared", limit: 200 })).body.events;
    assert.equal(events.length, runs.length, "one event per run");
    for (const server of servers) await stop(server);
  });
});
