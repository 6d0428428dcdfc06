import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

/** The alert routes over real HTTP (docs/api.md, "Alerts"): destinations, rules, events, deliveries, and organization isolation. */
describe("alert routes", () => {
  let test: TestServer;
  let client: ApiClient;
  let other: ApiClient;
  before(async () => {
    // No --alerts-allow-hosts: the default address policy.
    test = await startTestServer();
    client = (await makeOrg(test)).client;
    other = (await makeOrg(test)).client;
    await client.createRun({ projectName: "vision" });
    await other.createRun({ projectName: "vision" });
  });
  after(async () => test.close());

  const patch = (c: ApiClient, path: string, body: unknown) =>
    c.raw("PATCH", path, JSON.stringify(body), { "content-type": "application/json" });
  const destination = (c: ApiClient, body: Record<string, unknown>) =>
    c.post("/api/alerts/destinations", { kind: "webhook", url: "https://hooks.example/x", ...body });

  it("creates a webhook destination with a generated secret answered once, and a slack one without", async () => {
    const created = await destination(client, { name: "ops" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { destination: made, secret } = created.body;
    assert.deepEqual(made, { id: made.id, name: "ops", kind: "webhook", url: "https://hooks.example/x", createdAt: made.createdAt });
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
    const given = await destination(client, { name: "given", secret: "a-secret-of-my-own-choosing" });
    assert.equal(given.body.secret, "a-secret-of-my-own-choosing");
    const slack = await client.post("/api/alerts/destinations", { name: "chat", kind: "slack", url: "https://hooks.slack.example/T/B/x" });
    assert.deepEqual([slack.status, slack.body.secret], [201, null]);
    const listed = await client.get("/api/alerts/destinations");
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.destinations.map((d: { name: string }) => d.name),
      ["ops", "given", "chat"],
    );
    assert.ok(!JSON.stringify(listed.body).includes(secret) && !JSON.stringify(listed.body).includes("secret"), "no secret is read back");
    assert.equal(slack.body.destination.url, "https://hooks.slack.example/T/B/x", "the create answers the URL as given");
    assert.equal(listed.body.destinations[2].url, "https://hooks.slack.example/T/B/…", "a Slack URL's token is its secret: never listed");
    assert.deepEqual((await other.get("/api/alerts/destinations")).body.destinations, [], "another organization sees none");
  });

  it("refuses duplicates, bad URLs, refused literal addresses, short secrets and a slack secret", async () => {
    assert.equal((await destination(client, { name: "dup" })).status, 201);
    assert.equal((await destination(client, { name: "dup" })).status, 409);
    for (const url of [
      "ftp://x.example/",
      "not a url",
      "http://127.0.0.1:9/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest",
      "http://10.1.2.3/",
      "http://0x7f.1/",
    ]) {
      const refused = await destination(client, { name: `bad ${url}`, url });
      assert.equal(refused.status, 400, url);
      assert.match(refused.body.error, /url/);
    }
    assert.equal((await destination(client, { name: "short", secret: "short" })).status, 400);
    assert.equal(
      (await client.post("/api/alerts/destinations", { name: "s", kind: "slack", url: "https://x.example", secret: "x".repeat(20) }))
        .status,
      400,
    );
    assert.equal((await destination(client, { name: "   " })).status, 400);
    assert.equal((await destination(client, { name: "k", kind: "email" })).status, 400);
  });

  it("creates, lists, updates and deletes rules with defaults filled in; another organization's IDs are 404", async () => {
    const hook = (await destination(client, { name: "rules-hook" })).body.destination;
    const theirs = (await destination(other, { name: "theirs" })).body.destination;
    const created = await client.post("/api/alerts/rules", {
      projectName: "vision",
      name: "loss too high",
      condition: { type: "threshold", metric: "loss", op: "above", value: 10 },
      destinationIds: [hook.id],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { rule } = created.body;
    assert.deepEqual(rule, {
      id: rule.id,
      projectName: "vision",
      name: "loss too high",
      condition: { type: "threshold", metric: "loss", op: "above", value: 10, consecutive: 1 },
      destinationIds: [hook.id],
      enabled: true,
      createdAt: rule.createdAt,
      updatedAt: rule.updatedAt,
    });
    const client_alert = await client.post("/api/alerts/rules", {
      projectName: "vision",
      name: "c",
      condition: { type: "client_alert" },
      destinationIds: [],
    });
    assert.deepEqual(client_alert.body.rule.condition, { type: "client_alert", minLevel: "INFO" });
    const listed = await client.get("/api/alerts/rules", { projectName: "vision" });
    assert.deepEqual(
      listed.body.rules.map((r: { name: string }) => r.name),
      ["loss too high", "c"],
    );
    assert.deepEqual((await other.get("/api/alerts/rules", { projectName: "vision" })).body.rules, []);
    assert.equal((await client.get("/api/alerts/rules", { projectName: "nope" })).status, 404);

    const updated = await patch(client, `/api/alerts/rules/${rule.id}`, {
      enabled: false,
      condition: { type: "status", statuses: ["FAILED", "FAILED"] },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.deepEqual([updated.body.rule.enabled, updated.body.rule.condition], [false, { type: "status", statuses: ["FAILED"] }]);
    assert.equal((await patch(other, `/api/alerts/rules/${rule.id}`, { enabled: true })).status, 404);
    assert.equal((await other.raw("DELETE", `/api/alerts/rules/${rule.id}`, undefined)).status, 404);

    // Another organization's destination is as unknown as a missing one.
    const withTheirs = await client.post("/api/alerts/rules", {
      projectName: "vision",
      name: "x",
      condition: { type: "non_finite", metric: "*" },
      destinationIds: [theirs.id],
    });
    assert.equal(withTheirs.status, 404);
    assert.equal((await patch(client, `/api/alerts/rules/${rule.id}`, { destinationIds: [theirs.id] })).status, 404);
    assert.equal(
      (await other.post("/api/alerts/rules", { projectName: "vision", name: "y", condition: nanCondition, destinationIds: [hook.id] }))
        .status,
      404,
    );

    assert.deepEqual((await client.raw("DELETE", `/api/alerts/rules/${rule.id}`, undefined)).body, { success: true });
    assert.equal((await client.raw("DELETE", `/api/alerts/rules/${rule.id}`, undefined)).status, 404);
  });

  const nanCondition = { type: "non_finite", metric: "loss" };

  it("refuses bad conditions", async () => {
    // Each refusal names the field of the condition's own type, not of the first type.
    const bad: [unknown, RegExp][] = [
      [{ type: "threshold", metric: "loss", op: "above" }, /value/],
      [{ type: "threshold", metric: "loss", op: "sideways", value: 1 }, /op/],
      [{ type: "threshold", metric: "loss", op: "above", value: 1, consecutive: 0 }, /consecutive/],
      [{ type: "threshold", metric: "loss", op: "above", value: 1, consecutive: 10_001 }, /consecutive/],
      [{ type: "stalled", afterSeconds: 9 }, /afterSeconds/],
      [{ type: "stalled", afterSeconds: 10.5 }, /afterSeconds/],
      [{ type: "status", statuses: [] }, /statuses/],
      [{ type: "status", statuses: ["RUNNING"] }, /statuses/],
      [{ type: "client_alert", minLevel: "DEBUG" }, /minLevel/],
      [{ type: "non_finite", metric: "" }, /metric/],
      [{ type: "nope" }, /type/],
      [{ metric: "loss" }, /type/],
      ["threshold", /condition: must be object/],
      [null, /condition: must be object/],
      [[], /condition: must be object/],
    ];
    for (const [condition, names] of bad) {
      const response = await client.post("/api/alerts/rules", { projectName: "vision", name: "bad", condition, destinationIds: [] });
      assert.equal(response.status, 400, JSON.stringify(condition));
      assert.match(response.body.error, names, `${JSON.stringify(condition)}: ${response.body.error}`);
    }
    assert.equal((await patch(client, "/api/alerts/rules/1", {})).status, 400, "a change must name a field");
  });

  it("deleting a destination removes it from rules; its test queues a delivery; another organization's is 404", async () => {
    const hook = (await destination(client, { name: "to delete" })).body.destination;
    const { rule } = (
      await client.post("/api/alerts/rules", { projectName: "vision", name: "d", condition: nanCondition, destinationIds: [hook.id] })
    ).body;
    const tested = await client.post(`/api/alerts/destinations/${hook.id}/test`);
    assert.equal(tested.status, 202);
    assert.match(tested.body.deliveryId, /^[0-9a-f-]{36}$/);
    const deliveries = (await client.get("/api/alerts/deliveries")).body.deliveries as { id: string; title: string }[];
    assert.ok(deliveries.some((d) => d.id === tested.body.deliveryId && d.title === "Test delivery from Stepwise"));
    assert.deepEqual((await other.get("/api/alerts/deliveries")).body.deliveries, []);
    assert.equal((await other.post(`/api/alerts/destinations/${hook.id}/test`)).status, 404);
    assert.equal((await other.raw("DELETE", `/api/alerts/destinations/${hook.id}`, undefined)).status, 404);
    assert.equal((await other.post(`/api/alerts/deliveries/${tested.body.deliveryId}/retry`)).status, 404);
    assert.deepEqual((await client.raw("DELETE", `/api/alerts/destinations/${hook.id}`, undefined)).body, { success: true });
    const rules = (await client.get("/api/alerts/rules", { projectName: "vision" })).body.rules as {
      id: number;
      destinationIds: number[];
    }[];
    assert.deepEqual(rules.find((r) => r.id === rule.id)?.destinationIds, []);
    assert.equal((await client.raw("DELETE", `/api/alerts/destinations/${hook.id}`, undefined)).status, 404);
  });

  it("refuses at delivery a host name that resolves to a loopback address: the receiver on 127.0.0.1 sees nothing", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const url = `http://localhost:${receiver.port}/hook`;
      const created = await destination(client, { name: "via localhost", url });
      assert.equal(created.status, 201, "a host name is checked when it is resolved, at delivery");
      const { deliveryId } = (await client.post(`/api/alerts/destinations/${created.body.destination.id}/test`)).body;
      const deadline = Date.now() + 15_000;
      let delivery: { attempts: number; lastError: string | null } | undefined;
      while (!delivery?.attempts && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        delivery = (
          (await client.get("/api/alerts/deliveries")).body.deliveries as { id: string; attempts: number; lastError: string }[]
        ).find((d) => d.id === deliveryId);
      }
      assert.equal(delivery?.attempts, 1);
      assert.match(delivery!.lastError!, /^localhost \((127\.0\.0\.1|::1)\) is a loopback address, refused/);
      assert.equal(receiver.received.length, 0);
    } finally {
      await receiver.close();
    }
  });

  it("lists events of a project only, validates paging, and refuses requests without a key", async () => {
    assert.deepEqual((await client.get("/api/alerts/events", { projectName: "vision" })).body, { events: [], nextCursor: null });
    assert.equal((await client.get("/api/alerts/events", {})).status, 400);
    assert.equal((await client.get("/api/alerts/events", { projectName: "vision", limit: 201 })).status, 400);
    assert.equal((await client.get("/api/alerts/events", { projectName: "vision", cursor: "abc" })).status, 400);
    assert.equal((await client.get("/api/alerts/events", { projectName: "nope" })).status, 404);
    assert.equal((await client.get("/api/alerts/deliveries", { status: "lost" })).status, 400);
    assert.equal((await client.withKey(undefined).get("/api/alerts/destinations")).status, 401);
    assert.equal((await client.withKey(undefined).get("/api/alerts/rules", { projectName: "vision" })).status, 401);
  });
});
