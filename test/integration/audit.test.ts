import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import type { Role } from "../../src/domain/roles.js";
import { issueKey } from "../../src/services/accounts.js";
import type { ApiClient, LooseJson } from "../helpers/client.js";
import { BIN, ManualClock, makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** The audit log over real HTTP (docs/api.md, "Audit log"; docs/semantics.md, "Audit log"). */

const T0 = Date.UTC(2026, 2, 1, 12);

const json = (c: ApiClient, method: string, path: string, body?: unknown) =>
  c.raw(
    method,
    path,
    body === undefined ? undefined : JSON.stringify(body),
    body === undefined ? {} : { "content-type": "application/json" },
  );

async function audit(c: ApiClient, query: Record<string, string | number> = {}): Promise<LooseJson[]> {
  const answer = await c.get("/api/audit", query);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.entries;
}

/** The built CLI (`npm run build:server`) on the test server's store. */
function cli(test: TestServer, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const store = ["--data-dir", test.dataDir, ...(test.databaseUrl ? ["--database-url", test.databaseUrl] : [])];
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args, ...store], { env: { ...process.env, STEPWISE_DATA_DIR: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

/** Every entry of the log, following nextPageToken, newest first. */
async function everything(c: ApiClient, query: Record<string, string | number> = {}): Promise<LooseJson[]> {
  const entries: LooseJson[] = [];
  let pageToken: string | undefined;
  do {
    const answer = await c.get("/api/audit", { ...query, ...(pageToken ? { pageToken } : {}) });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    entries.push(...answer.body.entries);
    pageToken = answer.body.nextPageToken ?? undefined;
  } while (pageToken);
  return entries;
}

describe("audit log", () => {
  let test: TestServer;
  const clock = new ManualClock(T0);
  before(async () => {
    test = await startTestServer({ clock });
  });
  after(async () => test.close());

  it("records each wired change with its actor, time, source address and target", async () => {
    const { client, keyId } = await makeOrg(test);
    const run = await client.createRun({ projectName: "vision", runName: "baseline" });
    clock.advance(1000);
    assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
    clock.advance(1000);
    assert.equal((await client.post("/api/runs/restore", { runIds: [run.runId] })).status, 200);
    assert.equal((await json(client, "PUT", "/api/runs/retention", { projectName: "vision", policy: { maxAgeDays: 9 } })).status, 200);
    assert.equal((await json(client, "PUT", "/api/runs/retention", { projectName: "vision", policy: null })).status, 200);
    const hook = await client.post("/api/alerts/destinations", { name: "hook", kind: "webhook", url: "https://hooks.example/x" });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const destinationId = hook.body.destination.id;
    const rule = await client.post("/api/alerts/rules", {
      projectName: "vision",
      name: "loss high",
      condition: { type: "threshold", metric: "loss", op: "above", value: 10 },
      destinationIds: [destinationId],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const ruleId = rule.body.rule.id;
    assert.equal((await json(client, "PATCH", `/api/alerts/rules/${ruleId}`, { enabled: false })).status, 200);
    assert.equal((await json(client, "DELETE", `/api/alerts/rules/${ruleId}`)).status, 200);
    assert.equal((await json(client, "DELETE", `/api/alerts/destinations/${destinationId}`)).status, 200);
    clock.advance(1000);
    assert.equal((await client.post("/api/runs/projects/delete", { projectName: "vision" })).status, 200);
    assert.equal((await client.post("/api/runs/projects/restore", { projectName: "vision" })).status, 200);

    const entries = await everything(client);
    assert.deepEqual(entries.map((e) => `${e.action} ${e.target?.type}:${e.target?.id}`).reverse(), [
      `runs.delete run:${run.runId}`,
      `runs.restore run:${run.runId}`,
      "retention.set project:vision",
      "retention.set project:vision",
      `alert_destination.create alert_destination:${destinationId}`,
      `alert_rule.create alert_rule:${ruleId}`,
      `alert_rule.update alert_rule:${ruleId}`,
      `alert_rule.delete alert_rule:${ruleId}`,
      `alert_destination.delete alert_destination:${destinationId}`,
      "project.delete project:vision",
      "project.restore project:vision",
    ]);
    for (const entry of entries) {
      assert.equal(entry.actor.apiKeyId, keyId, "the key that made the request");
      assert.equal(typeof entry.actor.userId, "string");
      assert.equal(entry.actor.label, "admin", "the key's user as people read it");
      assert.equal(entry.sourceIp, "127.0.0.1", "the client's address");
    }
    const [deleted] = entries.slice(-1);
    assert.equal(deleted!.at, new Date(T0 + 1000).toISOString(), "the server's time of the change");
    assert.deepEqual(deleted!.details, { displayId: run.displayId, name: "baseline", projectName: "vision" });
    assert.equal(entries[0]!.at, new Date(T0 + 3000).toISOString());
    assert.deepEqual(entries[0]!.details, { runCount: 1 });
    const retention = entries.filter((e) => e.action === "retention.set").map((e) => e.details);
    assert.deepEqual(retention, [{ policy: null }, { policy: { maxAgeDays: 9, excludeTag: null } }]);
    const updated = entries.find((e) => e.action === "alert_rule.update");
    assert.deepEqual(updated!.details, { name: "loss high", projectName: "vision", changed: ["enabled"] });
  });

  it("records MLflow's run and experiment deletes and restores, once per move in or out of the trash", async () => {
    const { client } = await makeOrg(test);
    const mlflow = (path: string, body: unknown) => client.post(`/api/2.0/mlflow/${path}`, body);
    const experimentId = (await mlflow("experiments/create", { name: "mlflow-exp" })).body.experiment_id;
    const created = await mlflow("runs/create", { experiment_id: experimentId });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const runId = created.body.run.info.run_id;
    for (const path of ["runs/delete", "runs/delete", "runs/restore"]) assert.equal((await mlflow(path, { run_id: runId })).status, 200);
    for (const path of ["experiments/delete", "experiments/restore"]) {
      assert.equal((await mlflow(path, { experiment_id: experimentId })).status, 200);
    }
    const entries = await audit(client);
    assert.deepEqual(
      entries.map((e) => `${e.action} ${e.target.type}:${e.target.type === "project" ? e.target.id : "run"} ${e.details.via}`).reverse(),
      [
        "runs.delete run:run mlflow",
        "runs.restore run:run mlflow",
        "project.delete project:mlflow-exp mlflow",
        "project.restore project:mlflow-exp mlflow",
      ],
    );
    assert.ok(entries.every((e) => e.actor.label === "admin" && e.sourceIp === "127.0.0.1"));
  });

  it("records one entry per run of a bulk delete, and nothing for a refused change", async () => {
    const { client } = await makeOrg(test);
    const parent = await client.createRun({ projectName: "forks" });
    const child = await client.createRun({ projectName: "forks", forkRunId: parent.runId, forkStep: 0 });
    const refused = await client.post("/api/runs/delete", { runIds: [parent.runId] });
    assert.equal(refused.status, 409, "the fork rule");
    assert.equal((await client.post("/api/runs/delete", { runIds: [parent.runId, 999_999] })).status, 404);
    assert.equal((await client.post("/api/runs/projects/restore", { projectName: "forks" })).status, 404, "not in the trash");
    assert.equal((await client.post("/api/runs/projects/delete", { projectName: "nothing" })).status, 404);
    const badRule = await client.post("/api/alerts/rules", {
      projectName: "forks",
      name: "r",
      condition: { type: "client_alert" },
      destinationIds: [123_456],
    });
    assert.equal(badRule.status, 404);
    assert.equal((await json(client, "DELETE", "/api/alerts/rules/123456")).status, 404);
    assert.equal((await json(client, "PUT", "/api/runs/retention", { projectName: "nothing", policy: null })).status, 404);
    assert.deepEqual(await audit(client), [], "a refused change records nothing");

    assert.equal((await client.post("/api/runs/delete", { runIds: [child.runId, parent.runId] })).status, 200);
    assert.deepEqual(
      (await audit(client)).map((e) => e.target.id),
      [String(parent.runId), String(child.runId)],
      "one entry per run, in the order named",
    );
  });

  it("pages newest first with an opaque token, and filters by action, actor, target and time", async () => {
    const { client, keyId } = await makeOrg(test);
    const start = clock.now();
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await client.createRun({ projectName: "paging", runName: `r${i}` }));
    for (const run of runs) {
      clock.advance(10);
      assert.equal((await client.post("/api/runs/delete", { runIds: [run.runId] })).status, 200);
    }
    clock.advance(10);
    await client.post("/api/runs/restore", { runIds: [runs[0]!.runId] });
    const hook = (await client.post("/api/alerts/destinations", { name: "h", kind: "webhook", url: "https://hooks.example/y" })).body;

    const page1 = await client.get("/api/audit", { limit: 3 });
    assert.equal(page1.body.entries.length, 3);
    assert.equal(typeof page1.body.nextPageToken, "string");
    const all = await everything(client, { limit: 3 });
    assert.equal(all.length, 7);
    assert.deepEqual(all.slice(0, 3), page1.body.entries);
    const ids = all.map((e) => e.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      "newest (highest ID) first, no entry twice",
    );
    assert.equal(new Set(ids).size, 7);
    const last = await client.get("/api/audit", { limit: 7 });
    assert.equal(last.body.nextPageToken, null, "a page that ends the log says so");

    const actions = async (query: Record<string, string | number>) => (await everything(client, query)).map((e) => e.action);
    assert.deepEqual(await actions({ action: "runs.delete" }), Array(5).fill("runs.delete"));
    assert.deepEqual(await actions({ action: "runs." }), ["runs.restore", ...Array(5).fill("runs.delete")], "a prefix");
    assert.deepEqual(await actions({ action: "alert_destination." }), ["alert_destination.create"]);
    assert.deepEqual(await actions({ action: "key." }), []);
    assert.deepEqual(await actions({ actor: "admin" }), await actions({}), "by label");
    const userId = all[0]!.actor.userId;
    assert.equal((await everything(client, { actor: userId })).length, 7, "by user ID");
    assert.deepEqual(await actions({ actor: "someone-else" }), []);
    assert.deepEqual(await actions({ targetType: "alert_destination", targetId: String(hook.destination.id) }), [
      "alert_destination.create",
    ]);
    assert.deepEqual(await actions({ targetType: "run", targetId: String(runs[0]!.runId) }), ["runs.restore", "runs.delete"]);
    const window = await everything(client, {
      since: new Date(start + 20).toISOString(),
      until: new Date(start + 40).toISOString(),
    });
    assert.deepEqual(
      window.map((e) => e.target.id),
      [String(runs[2]!.runId), String(runs[1]!.runId)],
      "[since, until)",
    );
    assert.ok(all.every((e) => e.actor.apiKeyId === keyId));

    for (const [query, pattern] of [
      [{ action: "runs" }, /action: 'runs' is neither an action nor a prefix/],
      [{ action: "nope." }, /action/],
      [{ pageToken: "not-a-token" }, /page token/i],
      [{ pageToken: Buffer.from('{"beforeId":-1}').toString("base64") }, /page token/i],
      [{ since: "yesterday" }, /since/],
      [{ targetType: "galaxy" }, /targetType/],
      [{ limit: 0 }, /limit/],
      [{ limit: 201 }, /limit/],
    ] as const) {
      const refused = await client.get("/api/audit", query as Record<string, string | number>);
      assert.equal(refused.status, 400, `${JSON.stringify(query)}: ${JSON.stringify(refused.body)}`);
      assert.match(refused.body.error, pattern);
    }
  });

  it("shows an organization only its own entries", async () => {
    const mine = await makeOrg(test);
    const theirs = await makeOrg(test);
    const run = await mine.client.createRun({ projectName: "secret" });
    await mine.client.post("/api/runs/delete", { runIds: [run.runId] });
    assert.equal((await audit(mine.client)).length, 1);
    assert.deepEqual(await audit(theirs.client), []);
    assert.deepEqual(await audit(theirs.client, { targetType: "run", targetId: String(run.runId) }), []);
    assert.deepEqual(await audit(theirs.client, { actor: "admin" }), []);
    assert.equal((await theirs.client.post("/api/runs/delete", { runIds: [run.runId] })).status, 404);
    assert.deepEqual(await audit(theirs.client), [], "nor does its refused attempt on another's run record anything");
    assert.equal((await mine.client.withKey(undefined).get("/api/audit")).status, 401);
    assert.equal((await mine.client.withKey("sw_wrong").get("/api/audit")).status, 401);
  });

  it("is for admins: a member's or viewer's key gets 403, an admin's and an owner's the log", async () => {
    const { client, organization } = await makeOrg(test);
    const store = test.server.store;
    const keyOf = async (role: Role, email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`) => {
      const user = await store.createUser({ orgId: organization.id, email, name: role, kind: "person" }, Date.now());
      await store.setMembership(organization.id, user.id, role, Date.now());
      const grant = { orgId: organization.id, userId: user.id, name: role, expiresAt: null, role: null };
      return client.withKey((await issueKey(store, grant, Date.now())).key);
    };
    const deleter = await keyOf("admin", `deleter-${organization.slug}@example.com`);
    const run = await deleter.createRun({ projectName: "roles" });
    assert.equal((await deleter.post("/api/runs/delete", { runIds: [run.runId] })).status, 200, "an admin deletes");
    for (const role of ["viewer", "member"] as const) {
      const refused = await (await keyOf(role)).get("/api/audit");
      assert.equal(refused.status, 403, role);
      assert.match(refused.body.error, new RegExp(`this requires the role 'admin' \\(your role: '${role}'\\)`));
    }
    const seen = await audit(await keyOf("admin"));
    assert.deepEqual(
      seen.map((e) => [e.action, e.actor.label]),
      [["runs.delete", `deleter-${organization.slug}@example.com`]],
      "a person's deletion is labelled with their email",
    );
    assert.equal((await audit(client)).length, 1, "the owner's key reads it too");
  });

  it("is append-only: no route changes or removes an entry", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "kept" });
    await client.post("/api/runs/delete", { runIds: [run.runId] });
    const before = await audit(client);
    const id = before[0]!.id;
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const path of ["/api/audit", `/api/audit/${id}`]) {
        const answer = await json(client, method, path, method === "DELETE" ? undefined : { action: "sign_in" });
        assert.equal(answer.status, 404, `${method} ${path}`);
      }
    }
    // The purge removes the run's rows, never the log's.
    assert.deepEqual(await audit(client), before);
  });

  it("records keys made and revoked with `stepwise keys` as the actor 'cli', without an address", async () => {
    const { client, organization } = await makeOrg(test);
    const created = await cli(test, ["keys", "create", "--org", organization.slug, "--name", "ci", "--expires-in", "7d"]);
    assert.equal(created.code, 0, created.stderr);
    const keyId = /Created key (\S+)/.exec(created.stdout)![1]!;
    const revoked = await cli(test, ["keys", "revoke", keyId]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await cli(test, ["keys", "revoke", keyId])).code, 0, "revoking again keeps the first time");
    const entries = await audit(client, { action: "key." });
    assert.deepEqual(
      entries.map((e) => [e.action, e.target, e.actor, e.sourceIp]),
      [
        ["key.revoke", { type: "api_key", id: keyId }, { userId: null, apiKeyId: null, label: "cli" }, null],
        ["key.create", { type: "api_key", id: keyId }, { userId: null, apiKeyId: null, label: "cli" }, null],
      ],
      "one revocation recorded",
    );
    assert.equal(entries[1]!.details.name, "ci");
    assert.match(entries[1]!.details.displayPrefix, /^sw_/);
    assert.match(entries[1]!.details.expiresAt, /^\d{4}-\d\d-\d\dT/);
    assert.ok(!JSON.stringify(entries).includes(created.stdout.trim().split("\n").at(-1)!), "never the key itself");
  });

  it("records the connected peer's address and ignores X-Forwarded-For without --trust-proxy", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "peer" });
    await client.post("/api/runs/delete", { runIds: [run.runId] }, { "x-forwarded-for": "198.51.100.4" });
    assert.equal((await audit(client))[0]!.sourceIp, "127.0.0.1");
  });

  it("records what retention and the purge (`stepwise gc`) do as the actor 'system'", async () => {
    const { client } = await makeOrg(test);
    const expired = await client.createRun({ projectName: "aging", runName: "old" });
    assert.equal((await client.post("/api/runs/status/update", { runId: expired.runId, status: "COMPLETED" })).status, 200);
    assert.equal((await json(client, "PUT", "/api/runs/retention", { projectName: "aging", policy: { maxAgeDays: 1 } })).status, 200);
    const gone = await client.createRun({ projectName: "gone" });
    assert.equal((await client.post("/api/runs/projects/delete", { projectName: "gone" })).status, 200);
    const gc = await cli(test, ["gc", "--older-than", "0s"]);
    assert.equal(gc.code, 0, gc.stderr);
    const system = await audit(client, { actor: "system" });
    const SYSTEM = { userId: null, apiKeyId: null, label: "system" };
    // Retention first, then the purge (its runs in whichever order it takes them), then the emptied project.
    const seen = system.map((e) => JSON.stringify([e.action, e.target, e.details, e.actor, e.sourceIp])).reverse();
    const expected = [
      ["runs.delete", { type: "run", id: String(expired.runId) }, { reason: "retention" }, SYSTEM, null],
      ["runs.purge", { type: "run", id: String(expired.runId) }, { points: 0, files: 0 }, SYSTEM, null],
      ["runs.purge", { type: "run", id: String(gone.runId) }, { points: 0, files: 0 }, SYSTEM, null],
      ["project.purge", { type: "project", id: "gone" }, null, SYSTEM, null],
    ].map((e) => JSON.stringify(e));
    assert.equal(seen[0], expected[0]);
    assert.deepEqual(seen.slice(1, 3).sort(), expected.slice(1, 3).sort());
    assert.equal(seen[3], expected[3]);
  });
});

describe("audit log behind a proxy (--trust-proxy)", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { "--trust-proxy": "127.0.0.1" } });
  });
  after(async () => test.close());

  it("records the client's address the trusted proxy names", async () => {
    const { client } = await makeOrg(test);
    const run = await client.createRun({ projectName: "proxied" });
    await client.post("/api/runs/delete", { runIds: [run.runId] }, { "x-forwarded-for": "198.51.100.4" });
    assert.equal((await audit(client))[0]!.sourceIp, "198.51.100.4");
  });
});
