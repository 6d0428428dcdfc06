import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, ManualClock, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * Every run WRITE endpoint over real HTTP (docs/semantics.md: Runs, Responses and errors):
 * create (display IDs, JSON text fields, backfill, external IDs, forks), resume, status updates and
 * their timeline, tags, notes, config, log names, model graph, heartbeat, alerts, the stale monitor,
 * and what every route does with bad input, unknown runs, other organizations' runs and no key.
 */

const MAX_EPOCH_MS = 8_640_000_000_000_000;
const GRAPH = {
  format: "torch",
  nodes: {
    encoder: { type: "Linear", depth: 0, order: 1, node_type: "MODULE", params: { weight: [4, 8] }, edges: [["encoder", "head"]] },
    head: { type: "Softmax", depth: 1, kwargs: { dim: -1 }, args: [1, "x", null] },
  },
};
const ALERT = { title: "loss spiked", body: "loss went above 10", level: "WARN", timestamp: Date.UTC(2026, 0, 1, 12) };

async function details(client: ApiClient, runId: number) {
  const response = await client.get(`/api/runs/details/${runId}`);
  assert.equal(response.status, 200, `details of run ${runId}: ${JSON.stringify(response.body)}`);
  return response.body;
}

async function history(client: ApiClient, runId: number): Promise<any[]> {
  const response = await client.get("/api/runs/status/history", { runId });
  assert.equal(response.status, 200, `history of run ${runId}: ${JSON.stringify(response.body)}`);
  assert.equal(response.body.runId, runId);
  return response.body.events;
}

async function projects(client: ApiClient): Promise<{ name: string; runCount: number }[]> {
  const response = await client.get("/api/runs/projects");
  assert.equal(response.status, 200);
  return response.body.projects;
}

async function setStatus(client: ApiClient, runId: number, status: string, extra: Record<string, unknown> = {}) {
  return client.post("/api/runs/status/update", { runId, status, ...extra });
}

/** Asserts an error response: the status code, a body of exactly {error}, and a message naming `field`. */
function assertError(response: { status: number; body: any }, status: number, field: RegExp | undefined, label: string) {
  assert.equal(response.status, status, `${label}: ${JSON.stringify(response.body)}`);
  assert.deepEqual(Object.keys(response.body), ["error"], label);
  assert.equal(typeof response.body.error, "string", label);
  if (field) assert.match(response.body.error, field, label);
}

/** Every write route that names an existing run, with a valid body for it. */
function writeRoutes(runId: number): [string, Record<string, unknown>][] {
  return [
    ["/api/runs/resume", { runId }],
    ["/api/runs/status/update", { runId, status: "FAILED", statusMetadata: '{"by": "intruder"}', loggerSettings: '{"evil": true}' }],
    ["/api/runs/tags/update", { runId, tags: ["hacked"] }],
    ["/api/runs/notes/update", { runId, notes: "hacked" }],
    ["/api/runs/config/update", { runId, config: '{"lr": 999}' }],
    ["/api/runs/logName/add", { runId, logName: ["intruder/loss"], logType: "METRIC" }],
    ["/api/runs/modelGraph/create", { runId, graph: GRAPH }],
    ["/api/runs/trigger", { runId }],
    ["/api/runs/alert", { runId, alert: ALERT }],
  ];
}

describe("run writes", () => {
  const clock = new ManualClock(Date.UTC(2026, 4, 6, 7, 8, 9, 123));
  const NOW_ISO = "2026-05-06T07:08:09.123Z";
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock, flags: { "--stale-after": "0" } });
  });
  after(async () => test.close());

  describe("POST /api/runs/create", () => {
    it("creates the project on first use and answers with every field of the create response", async () => {
      const { client, organization } = await makeOrg(test);
      assert.deepEqual(await projects(client), []);
      const response = await client.post("/api/runs/create", { runName: "first", projectName: "my-ml-project" });
      assert.equal(response.status, 200);
      const { runId } = response.body;
      assert.ok(Number.isInteger(runId) && runId > 0);
      assert.deepEqual(response.body, {
        runId,
        number: 1,
        displayId: "MMP-1",
        projectName: "my-ml-project",
        organizationSlug: organization.slug,
        url: `${test.url}/projects/my-ml-project/runs/${runId}`,
        resumed: false,
        forkedFromRunId: null,
        forkStep: null,
      });
      assert.deepEqual(
        (await projects(client)).map((p) => ({ name: p.name, runCount: p.runCount })),
        [{ name: "my-ml-project", runCount: 1 }],
      );
      const run = await details(client, runId);
      assert.equal(run.status, "RUNNING");
      assert.equal(run.name, "first");
      assert.equal(run.createdAt, NOW_ISO);
      assert.equal(run.updatedAt, NOW_ISO);
      assert.equal(run.statusUpdated, null);
      assert.deepEqual(run.tags, []);
      assert.equal(run.externalId, null);
      const events = await history(client, runId);
      assert.equal(events.length, 1);
      assert.equal(events[0].fromStatus, null);
      assert.equal(events[0].toStatus, "RUNNING");
      assert.equal(events[0].source, "api");
    });

    it("derives display-ID prefixes from the project name and numbers runs from 1 per project", async () => {
      const { client } = await makeOrg(test);
      const prefixes: [string, string][] = [
        ["my-ml-project", "MMP"],
        ["training", "TRA"],
        ["resnet-50", "R50"],
        ["my-project", "MPR"],
        ["a-b", "AB"],
        ["ai", "AI"],
        ["my-ml_project.v2", "MMPV"],
        ["---", "RUN"],
        ["a b c d e", "ABCD"],
      ];
      for (const [projectName, prefix] of prefixes) {
        for (const number of [1, 2, 3]) {
          const created = await client.createRun({ projectName });
          assert.equal(created.number, number, projectName);
          assert.equal(created.displayId, `${prefix}-${number}`, projectName);
        }
      }
      // Another organization's project of the same name counts on its own.
      const other = await makeOrg(test);
      assert.equal((await other.client.createRun({ projectName: "training" })).displayId, "TRA-1");
      const listed = await projects(client);
      assert.equal(listed.length, prefixes.length);
      assert.ok(listed.every((p) => p.runCount === 3));
    });

    it('parses config, systemMetadata and loggerSettings as JSON text; "null" means absent', async () => {
      const { client } = await makeOrg(test);
      const full = await client.createRun({
        projectName: "json",
        config: '{"lr": 0.01, "layers": [1, 2], "opt": {"name": "adam"}}',
        systemMetadata: '{"host": "gpu-1", "cpus": 8}',
        loggerSettings: '{"mode": "online"}',
        tags: ["a", "b", "a", "c"],
      });
      const run = await details(client, full.runId);
      assert.deepEqual(run.config, { lr: 0.01, layers: [1, 2], opt: { name: "adam" } });
      assert.deepEqual(run.systemMetadata, { host: "gpu-1", cpus: 8 });
      assert.deepEqual(run.loggerSettings, { mode: "online" });
      assert.deepEqual(run.tags, ["a", "b", "c"]);

      const absent = await client.createRun({
        projectName: "json",
        config: "null",
        systemMetadata: null,
        loggerSettings: "null",
        tags: null,
        externalId: null,
      });
      const empty = await details(client, absent.runId);
      assert.equal(empty.config, null);
      assert.equal(empty.systemMetadata, null);
      assert.equal(empty.loggerSettings, null);
      assert.deepEqual(empty.tags, []);
      assert.equal(empty.externalId, null);

      for (const field of ["config", "systemMetadata", "loggerSettings"]) {
        for (const bad of ["{", "{'a': 1}", "nope", "[1,"]) {
          const response = await client.post("/api/runs/create", { runName: "bad", projectName: "json", [field]: bad });
          assertError(response, 400, new RegExp(`^${field}\\b`), `${field}=${bad}`);
        }
      }
      // The failed creates used no run number.
      assert.equal((await client.createRun({ projectName: "json" })).number, 3);
    });

    it("keeps backfilled createdAt and updatedAt (updatedAt defaults to createdAt)", async () => {
      const { client } = await makeOrg(test);
      const createdAt = Date.UTC(2020, 1, 2, 3, 4, 5, 6);
      const updatedAt = Date.UTC(2021, 6, 7, 8, 9, 10, 11);
      const both = await client.createRun({ projectName: "backfill", createdAt, updatedAt });
      const run = await details(client, both.runId);
      assert.equal(run.createdAt, "2020-02-02T03:04:05.006Z");
      assert.equal(run.updatedAt, "2021-07-07T08:09:10.011Z");
      const onlyCreated = await details(client, (await client.createRun({ projectName: "backfill", createdAt })).runId);
      assert.equal(onlyCreated.createdAt, "2020-02-02T03:04:05.006Z");
      assert.equal(onlyCreated.updatedAt, "2020-02-02T03:04:05.006Z");
      const bounds = await details(
        client,
        (await client.createRun({ projectName: "backfill", createdAt: 0, updatedAt: MAX_EPOCH_MS })).runId,
      );
      assert.equal(bounds.createdAt, "1970-01-01T00:00:00.000Z");
      assert.equal(bounds.updatedAt, new Date(MAX_EPOCH_MS).toISOString());
      const nulls = await details(client, (await client.createRun({ projectName: "backfill", createdAt: null, updatedAt: null })).runId);
      assert.equal(nulls.createdAt, NOW_ISO);
      assert.equal(nulls.updatedAt, NOW_ISO);
    });

    it("returns the existing run for a known externalId (resumed: true) and brings a finished run back to RUNNING", async () => {
      const { client } = await makeOrg(test);
      const first = await client.post("/api/runs/create", { runName: "rank0", projectName: "dist", externalId: "job-42", tags: ["x"] });
      assert.equal(first.status, 200);
      assert.equal(first.body.resumed, false);
      const again = await client.post("/api/runs/create", {
        runName: "rank1",
        projectName: "dist",
        externalId: "job-42",
        tags: ["y"],
        config: '{"a": 1}',
      });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { ...first.body, resumed: true });
      // The attach changed nothing of a RUNNING run.
      const run = await details(client, first.body.runId);
      assert.equal(run.name, "rank0");
      assert.deepEqual(run.tags, ["x"]);
      assert.equal(run.config, null);
      assert.equal(run.externalId, "job-42");
      assert.equal((await history(client, first.body.runId)).length, 1);

      assert.equal((await setStatus(client, first.body.runId, "COMPLETED")).status, 200);
      const resumed = await client.post("/api/runs/create", { runName: "rank0", projectName: "dist", externalId: "job-42" });
      assert.equal(resumed.body.resumed, true);
      assert.equal(resumed.body.runId, first.body.runId);
      assert.equal((await details(client, first.body.runId)).status, "RUNNING");
      const events = await history(client, first.body.runId);
      assert.deepEqual(
        events.map((e) => [e.fromStatus, e.toStatus, e.source]),
        [
          [null, "RUNNING", "api"],
          ["RUNNING", "COMPLETED", "api"],
          ["COMPLETED", "RUNNING", "resume"],
        ],
      );
      // External IDs are scoped to a project: the same ID elsewhere is a new run.
      const elsewhere = await client.createRun({ projectName: "dist-2", externalId: "job-42" });
      assert.notEqual(elsewhere.runId, first.body.runId);
      assert.equal(elsewhere.resumed, false);
      assert.deepEqual(
        (await projects(client)).map((p) => [p.name, p.runCount]),
        [
          ["dist", 1],
          ["dist-2", 1],
        ],
      );
    });

    it("forks a run of the same project at a step not past the parent's last step", async () => {
      const { client } = await makeOrg(test);
      const parent = await client.createRun({
        projectName: "forks",
        config: '{"lr": 0.1, "opt": {"name": "adam", "beta": 0.9}}',
        tags: ["base", "shared"],
      });
      const points = [0, 1, 2, 3, 4].map((step) => ({ step, data: { loss: 1 } }));
      const ingested = await ingest(client, "metrics", parent, toNdjson(points));
      assert.equal(ingested.status, 200, JSON.stringify(ingested.body));

      const child = await client.post("/api/runs/create", {
        runName: "child",
        projectName: "forks",
        forkRunId: parent.runId,
        forkStep: 4,
        config: '{"opt": {"name": "sgd"}, "seed": 7}',
        tags: ["shared", "mine"],
      });
      assert.equal(child.status, 200, JSON.stringify(child.body));
      assert.equal(child.body.forkedFromRunId, parent.runId);
      assert.equal(child.body.forkStep, 4);
      assert.equal(child.body.resumed, false);
      assert.equal(child.body.number, 2);
      const childRun = await details(client, child.body.runId);
      assert.equal(childRun.status, "RUNNING");
      assert.equal(childRun.forkedFromRunId, parent.runId);
      assert.equal(childRun.forkStep, 4);
      // inheritConfig defaults to true: the parent's config under the child's own keys.
      assert.deepEqual(childRun.config, { lr: 0.1, opt: { name: "sgd", beta: 0.9 }, seed: 7 });
      // inheritTags defaults to false.
      assert.deepEqual(childRun.tags, ["shared", "mine"]);

      const noInherit = await client.createRun({
        projectName: "forks",
        forkRunId: parent.runId,
        forkStep: 0,
        inheritConfig: false,
        inheritTags: true,
        config: '{"seed": 1}',
        tags: ["mine", "base"],
      });
      const noInheritRun = await details(client, noInherit.runId);
      assert.deepEqual(noInheritRun.config, { seed: 1 });
      assert.deepEqual([...noInheritRun.tags].sort(), ["base", "mine", "shared"]);
      assert.equal(new Set(noInheritRun.tags).size, noInheritRun.tags.length, "a union has no duplicates");

      const nullDefaults = await client.createRun({
        projectName: "forks",
        forkRunId: parent.runId,
        forkStep: 2,
        inheritConfig: null,
        inheritTags: null,
      });
      const nullDefaultsRun = await details(client, nullDefaults.runId);
      assert.deepEqual(nullDefaultsRun.config, { lr: 0.1, opt: { name: "adam", beta: 0.9 } });
      assert.deepEqual(nullDefaultsRun.tags, []);

      // A fork of a fork may fork at up to the step it inherits.
      const grandchild = await client.post("/api/runs/create", {
        runName: "gc",
        projectName: "forks",
        forkRunId: child.body.runId,
        forkStep: 4,
      });
      assert.equal(grandchild.status, 200, JSON.stringify(grandchild.body));
      const tooFarGrandchild = await client.post("/api/runs/create", {
        runName: "gc",
        projectName: "forks",
        forkRunId: child.body.runId,
        forkStep: 5,
      });
      assertError(tooFarGrandchild, 400, /forkStep/, "past the lineage's last step");

      // Past the parent's last step.
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkRunId: parent.runId, forkStep: 5 }),
        400,
        /forkStep/,
        "forkStep 5",
      );
      // forkStep and forkRunId go together.
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkRunId: parent.runId }),
        400,
        /forkStep/,
        "no forkStep",
      );
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkRunId: parent.runId, forkStep: null }),
        400,
        /forkStep/,
        "null forkStep",
      );
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkStep: 1 }),
        400,
        /forkRunId/,
        "no forkRunId",
      );
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkRunId: parent.runId, forkStep: -1 }),
        400,
        /forkStep/,
        "negative forkStep",
      );
      // Unknown parent, or a parent of another project: 404 naming forkRunId.
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "forks", forkRunId: 999_999_999, forkStep: 0 }),
        404,
        /forkRunId/,
        "unknown parent",
      );
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "other-project", forkRunId: parent.runId, forkStep: 0 }),
        404,
        /forkRunId/,
        "other project",
      );
      // None of the failures left a run behind: the next run of "forks" is number 6, "other-project" does not exist.
      assert.equal((await client.createRun({ projectName: "forks" })).number, 6);
      assert.deepEqual(
        (await projects(client)).map((p) => [p.name, p.runCount]),
        [["forks", 6]],
      );
    });

    it("forks a parent without any points at step 0 only", async () => {
      const { client } = await makeOrg(test);
      const parent = await client.createRun({ projectName: "empty-parent" });
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "empty-parent", forkRunId: parent.runId, forkStep: 1 }),
        400,
        /forkStep/,
        "step 1",
      );
      const child = await client.createRun({ projectName: "empty-parent", forkRunId: parent.runId, forkStep: 0 });
      assert.equal(child.number, 2);
    });
  });

  describe("concurrency", () => {
    it("32 concurrent creates with one externalId yield exactly one run with one RUNNING event", async () => {
      const { client } = await makeOrg(test);
      const responses = await Promise.all(
        Array.from({ length: 32 }, (_, rank) =>
          client.post("/api/runs/create", { runName: `rank-${rank}`, projectName: "ddp", externalId: "ddp-job" }),
        ),
      );
      for (const response of responses) assert.equal(response.status, 200, JSON.stringify(response.body));
      const runIds = new Set(responses.map((r) => r.body.runId));
      assert.equal(runIds.size, 1);
      assert.equal(responses.filter((r) => r.body.resumed === false).length, 1, "exactly one create made the run");
      assert.ok(responses.every((r) => r.body.number === 1 && r.body.displayId === "DDP-1"));
      assert.deepEqual(
        (await projects(client)).map((p) => [p.name, p.runCount]),
        [["ddp", 1]],
      );
      const events = await history(client, [...runIds][0]!);
      assert.deepEqual(
        events.map((e) => [e.fromStatus, e.toStatus]),
        [[null, "RUNNING"]],
      );
      assert.equal((await client.createRun({ projectName: "ddp" })).number, 2);
    });

    it("32 concurrent status updates of mixed terminal statuses end FAILED with one event per real transition", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "ranks" });
      const statuses = ["COMPLETED", "TERMINATED", "CANCELLED", "COMPLETED", "FAILED", "COMPLETED", "CANCELLED", "TERMINATED"];
      const responses = await Promise.all(
        Array.from({ length: 32 }, (_, i) => setStatus(client, run.runId, statuses[i % statuses.length]!)),
      );
      for (const response of responses) {
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.success, true);
      }
      assert.equal((await details(client, run.runId)).status, "FAILED");

      const events = await history(client, run.runId);
      assert.deepEqual([events[0].fromStatus, events[0].toStatus], [null, "RUNNING"]);
      const transitions = events.slice(1);
      assert.equal(transitions.length, responses.filter((r) => r.body.applied === true).length, "one event per applied write");
      assert.equal(transitions.at(-1).toStatus, "FAILED");
      assert.equal(transitions.filter((e: { toStatus: string }) => e.toStatus === "FAILED").length, 1);
      const rank: Record<string, number> = { COMPLETED: 1, TERMINATED: 2, CANCELLED: 3, FAILED: 4 };
      for (let i = 1; i < events.length; i++) {
        assert.equal(events[i].fromStatus, events[i - 1].toStatus, "the timeline is a chain");
        assert.notEqual(events[i].toStatus, events[i - 1].toStatus, "no repeated status");
        if (i > 1) assert.ok(rank[events[i].toStatus]! > rank[events[i - 1].toStatus]!, "precedence only goes up");
      }
      assert.ok(transitions.length <= 4);
    });
  });

  describe("POST /api/runs/resume", () => {
    it("resumes by runId, displayId (with or without projectName) and externalId with projectName", async () => {
      const { client, organization } = await makeOrg(test);
      const run = await client.createRun({ projectName: "resumable", externalId: "ext-7" });
      await client.createRun({ projectName: "resumable" });
      const expected = {
        runId: run.runId,
        number: 1,
        displayId: "RES-1",
        projectName: "resumable",
        organizationSlug: organization.slug,
        url: `${test.url}/projects/resumable/runs/${run.runId}`,
        resumed: true,
      };
      const references: Record<string, unknown>[] = [
        { runId: run.runId },
        { runId: run.runId, projectName: "resumable" },
        { displayId: "RES-1" },
        { displayId: "res-1", projectName: "resumable" },
        { externalId: "ext-7", projectName: "resumable" },
        { runId: run.runId, displayId: null, externalId: null, projectName: null },
      ];
      for (const reference of references) {
        const response = await client.post("/api/runs/resume", reference);
        assert.equal(response.status, 200, `${JSON.stringify(reference)}: ${JSON.stringify(response.body)}`);
        // Fork fields are not part of the resume response (docs/semantics.md, Runs).
        assert.deepEqual(
          { ...response.body, forkedFromRunId: undefined, forkStep: undefined },
          { ...expected, forkedFromRunId: undefined, forkStep: undefined },
        );
      }
      // Resuming a RUNNING run changes nothing.
      assert.equal((await history(client, run.runId)).length, 1);

      assert.equal((await setStatus(client, run.runId, "FAILED")).status, 200);
      const resumed = await client.post("/api/runs/resume", { displayId: "RES-1", projectName: "resumable" });
      assert.equal(resumed.status, 200);
      assert.equal(resumed.body.resumed, true);
      const after = await details(client, run.runId);
      assert.equal(after.status, "RUNNING");
      assert.equal(after.statusUpdated, NOW_ISO);
      assert.deepEqual(
        (await history(client, run.runId)).map((e) => [e.fromStatus, e.toStatus, e.source]),
        [
          [null, "RUNNING", "api"],
          ["RUNNING", "FAILED", "api"],
          ["FAILED", "RUNNING", "resume"],
        ],
      );
    });

    it("400 for externalId without projectName or an empty reference, 404 for unknown runs", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "resumable", externalId: "ext-1" });
      assertError(await client.post("/api/runs/resume", { externalId: "ext-1" }), 400, /projectName/, "externalId alone");
      assertError(await client.post("/api/runs/resume", {}), 400, undefined, "no reference");
      assertError(
        await client.post("/api/runs/resume", { externalId: "", projectName: "resumable" }),
        400,
        /externalId/,
        "empty externalId",
      );
      assertError(await client.post("/api/runs/resume", { runId: 0 }), 400, /runId/, "runId 0");
      assertError(await client.post("/api/runs/resume", { runId: 999_999_999 }), 404, undefined, "unknown runId");
      assertError(
        await client.post("/api/runs/resume", { runId: run.runId, projectName: "elsewhere" }),
        404,
        undefined,
        "runId in another project",
      );
      assertError(await client.post("/api/runs/resume", { displayId: "RES-2" }), 404, undefined, "unknown displayId");
      assertError(await client.post("/api/runs/resume", { displayId: "RES" }), 400, /displayId/, "malformed displayId");
      assertError(
        await client.post("/api/runs/resume", { externalId: "ext-2", projectName: "resumable" }),
        404,
        undefined,
        "unknown externalId",
      );
      assertError(
        await client.post("/api/runs/resume", { externalId: "ext-1", projectName: "elsewhere" }),
        404,
        undefined,
        "externalId in another project",
      );
    });
  });

  describe("POST /api/runs/status/update and GET /api/runs/status/history", () => {
    it("applies precedence, records one event per change and reports applied", async () => {
      const { client, keyId } = await makeOrg(test);
      const run = await client.createRun({ projectName: "status" });
      const failedAt = Date.UTC(2025, 11, 31, 23, 59, 59, 999);
      const failed = await setStatus(client, run.runId, "FAILED", { statusUpdated: failedAt, statusMetadata: '{"exitCode": 1}' });
      assert.equal(failed.status, 200);
      assert.deepEqual(failed.body, { success: true, applied: true });
      let run1 = await details(client, run.runId);
      assert.equal(run1.status, "FAILED");
      assert.equal(run1.statusUpdated, "2025-12-31T23:59:59.999Z");
      assert.deepEqual(run1.statusMetadata, { exitCode: 1 });
      assert.equal(run1.updatedAt, NOW_ISO);

      // Lower precedence: ignored, nothing stored.
      for (const status of ["COMPLETED", "TERMINATED", "CANCELLED", "FAILED"]) {
        const ignored = await setStatus(client, run.runId, status, {
          statusUpdated: 5,
          statusMetadata: '{"ignored": true}',
          loggerSettings: '{"ignored": true}',
        });
        assert.equal(ignored.status, 200, status);
        assert.deepEqual(ignored.body, { success: true, applied: false }, status);
      }
      run1 = await details(client, run.runId);
      assert.equal(run1.status, "FAILED");
      assert.equal(run1.statusUpdated, "2025-12-31T23:59:59.999Z");
      assert.deepEqual(run1.statusMetadata, { exitCode: 1 });
      assert.equal(run1.loggerSettings, null);

      let events = await history(client, run.runId);
      assert.equal(events.length, 2);
      const event = events[1];
      assert.deepEqual(Object.keys(event).sort(), [
        "actorId",
        "apiKeyId",
        "createdAt",
        "fromStatus",
        "id",
        "metadata",
        "runId",
        "source",
        "toStatus",
      ]);
      assert.equal(typeof event.id, "string");
      assert.notEqual(event.id, events[0].id);
      assert.equal(event.runId, run.runId);
      assert.equal(event.fromStatus, "RUNNING");
      assert.equal(event.toStatus, "FAILED");
      assert.equal(event.source, "api");
      assert.deepEqual(event.metadata, { exitCode: 1 });
      assert.equal(event.apiKeyId, keyId);
      assert.equal(typeof event.actorId, "string");
      assert.match(event.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      // RUNNING after a terminal status is allowed; statusUpdated defaults to the server time.
      const running = await setStatus(client, run.runId, "RUNNING");
      assert.deepEqual(running.body, { success: true, applied: true });
      assert.equal((await details(client, run.runId)).statusUpdated, NOW_ISO);
      // Repeat of the current status records no event.
      assert.deepEqual((await setStatus(client, run.runId, "RUNNING")).body, { success: true, applied: false });
      // COMPLETED then a higher-precedence status.
      assert.deepEqual((await setStatus(client, run.runId, "COMPLETED")).body, { success: true, applied: true });
      assert.deepEqual((await setStatus(client, run.runId, "COMPLETED")).body, { success: true, applied: false });
      assert.deepEqual((await setStatus(client, run.runId, "TERMINATED", { statusUpdated: 0 })).body, { success: true, applied: true });
      assert.equal((await details(client, run.runId)).statusUpdated, "1970-01-01T00:00:00.000Z");
      assert.deepEqual((await setStatus(client, run.runId, "CANCELLED", { statusUpdated: MAX_EPOCH_MS })).body, {
        success: true,
        applied: true,
      });
      assert.equal((await details(client, run.runId)).statusUpdated, "+275760-09-13T00:00:00.000Z");
      assert.deepEqual((await setStatus(client, run.runId, "COMPLETED")).body, { success: true, applied: false });
      assert.equal((await details(client, run.runId)).status, "CANCELLED");

      events = await history(client, run.runId);
      assert.deepEqual(
        events.map((e) => [e.fromStatus, e.toStatus]),
        [
          [null, "RUNNING"],
          ["RUNNING", "FAILED"],
          ["FAILED", "RUNNING"],
          ["RUNNING", "COMPLETED"],
          ["COMPLETED", "TERMINATED"],
          ["TERMINATED", "CANCELLED"],
        ],
      );
      assert.ok(events.every((e) => e.source === "api"));
    });

    it("deep-merges loggerSettings and stores or clears statusMetadata", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({
        projectName: "settings",
        loggerSettings: '{"a": {"b": 1, "c": [1, 2]}, "keep": "yes", "gone": 1}',
      });
      const response = await setStatus(client, run.runId, "COMPLETED", {
        loggerSettings: '{"a": {"c": [3], "d": 4}, "gone": null, "new": {"x": true}}',
        statusMetadata: '{"note": "done", "list": [1]}',
      });
      assert.deepEqual(response.body, { success: true, applied: true });
      let run1 = await details(client, run.runId);
      assert.deepEqual(run1.loggerSettings, { a: { b: 1, c: [3], d: 4 }, keep: "yes", gone: null, new: { x: true } });
      assert.deepEqual(run1.statusMetadata, { note: "done", list: [1] });
      // A write without statusMetadata stores none; without loggerSettings keeps them.
      assert.deepEqual((await setStatus(client, run.runId, "FAILED", { statusMetadata: "null", loggerSettings: null })).body, {
        success: true,
        applied: true,
      });
      run1 = await details(client, run.runId);
      assert.equal(run1.statusMetadata, null);
      assert.deepEqual(run1.loggerSettings, { a: { b: 1, c: [3], d: 4 }, keep: "yes", gone: null, new: { x: true } });
      // Settings on a run without any: stored as given.
      const bare = await client.createRun({ projectName: "settings" });
      await setStatus(client, bare.runId, "RUNNING");
      await setStatus(client, bare.runId, "COMPLETED", { loggerSettings: '{"z": [1]}' });
      assert.deepEqual((await details(client, bare.runId)).loggerSettings, { z: [1] });
    });

    it("GET /status/history: 400 without or with a bad runId, 404 for an unknown run", async () => {
      const { client } = await makeOrg(test);
      assertError(await client.get("/api/runs/status/history"), 400, /runId/, "no runId");
      assertError(await client.get("/api/runs/status/history", { runId: "abc" }), 400, /runId/, "runId abc");
      assertError(await client.get("/api/runs/status/history", { runId: 999_999_999 }), 404, undefined, "unknown");
    });
  });

  describe("run attributes", () => {
    it("tags/update replaces the tags, deduplicated in order; more than 50 is a 400 naming tags", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "tags", tags: ["old", "older"] });
      assert.deepEqual((await client.post("/api/runs/tags/update", { runId: run.runId, tags: ["b", "a", "b", "c", "a"] })).body, {
        success: true,
      });
      assert.deepEqual((await details(client, run.runId)).tags, ["b", "a", "c"]);
      const fifty = Array.from({ length: 50 }, (_, i) => `t${i}`);
      assert.equal((await client.post("/api/runs/tags/update", { runId: run.runId, tags: fifty })).status, 200);
      assert.deepEqual((await details(client, run.runId)).tags, fifty);
      assertError(await client.post("/api/runs/tags/update", { runId: run.runId, tags: [...fifty, "t50"] }), 400, /^tags\b/, "51 tags");
      assert.deepEqual((await details(client, run.runId)).tags, fifty, "a rejected update changes nothing");
      assert.equal((await client.post("/api/runs/tags/update", { runId: run.runId, tags: [] })).status, 200);
      assert.deepEqual((await details(client, run.runId)).tags, []);
    });

    it('notes/update sets notes, null and "" clear them, more than 1000 characters is a 400', async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "notes" });
      assert.equal((await details(client, run.runId)).notes, null);
      const max = "n".repeat(1000);
      assert.deepEqual((await client.post("/api/runs/notes/update", { runId: run.runId, notes: max })).body, { success: true });
      assert.equal((await details(client, run.runId)).notes, max);
      assertError(
        await client.post("/api/runs/notes/update", { runId: run.runId, notes: "n".repeat(1001) }),
        400,
        /^notes\b/,
        "1001 chars",
      );
      assert.equal((await details(client, run.runId)).notes, max);
      assert.equal((await client.post("/api/runs/notes/update", { runId: run.runId, notes: null })).status, 200);
      assert.equal((await details(client, run.runId)).notes, null);
      await client.post("/api/runs/notes/update", { runId: run.runId, notes: "again ✓" });
      assert.equal((await details(client, run.runId)).notes, "again ✓");
      assert.equal((await client.post("/api/runs/notes/update", { runId: run.runId, notes: "" })).status, 200);
      assert.equal((await details(client, run.runId)).notes, null);
      assertError(await client.post("/api/runs/notes/update", { runId: run.runId }), 400, /notes/, "notes missing");
    });

    it("config/update deep-merges into the existing config", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({
        projectName: "config",
        config: '{"lr": 0.1, "opt": {"name": "adam", "betas": [0.9, 0.99]}, "drop": 1}',
      });
      assert.deepEqual(
        (
          await client.post("/api/runs/config/update", {
            runId: run.runId,
            config: '{"opt": {"betas": [0.8], "eps": 1e-8}, "drop": null, "epochs": 3}',
          })
        ).body,
        { success: true },
      );
      assert.deepEqual((await details(client, run.runId)).config, {
        lr: 0.1,
        opt: { name: "adam", betas: [0.8], eps: 1e-8 },
        drop: null,
        epochs: 3,
      });
      const empty = await client.createRun({ projectName: "config" });
      assert.equal((await client.post("/api/runs/config/update", { runId: empty.runId, config: '{"a": {"b": 1}}' })).status, 200);
      assert.deepEqual((await details(client, empty.runId)).config, { a: { b: 1 } });
      for (const bad of ["{", "null", "", "   "]) {
        assertError(
          await client.post("/api/runs/config/update", { runId: empty.runId, config: bad }),
          400,
          /^config\b/,
          `config=${JSON.stringify(bad)}`,
        );
      }
      assertError(await client.post("/api/runs/config/update", { runId: empty.runId }), 400, /config/, "config missing");
      assert.deepEqual((await details(client, empty.runId)).config, { a: { b: 1 } });
    });

    it("logName/add records names with their type and group, listed in details", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "lognames" });
      assert.deepEqual(
        (await client.post("/api/runs/logName/add", { runId: run.runId, logName: ["train/loss", "train/acc", "lr"], logType: "METRIC" }))
          .body,
        { success: true },
      );
      assert.equal(
        (await client.post("/api/runs/logName/add", { runId: run.runId, logName: ["media/images/sample", "train/loss"], logType: "IMAGE" }))
          .status,
        200,
      );
      for (const logType of ["VIDEO", "AUDIO", "FILE", "TEXT", "ARTIFACT", "HISTOGRAM", "TABLE", "DATA"]) {
        assert.equal(
          (await client.post("/api/runs/logName/add", { runId: run.runId, logName: [`t/${logType.toLowerCase()}`], logType })).status,
          200,
          logType,
        );
      }
      const logNames = (await details(client, run.runId)).logNames as { logName: string; logType: string; logGroup: string | null }[];
      const byName = new Map(logNames.map((l) => [l.logName, l]));
      assert.equal(logNames.length, 4 + 8);
      assert.deepEqual(byName.get("train/loss"), { logName: "train/loss", logType: "METRIC", logGroup: "train" });
      assert.deepEqual(byName.get("lr"), { logName: "lr", logType: "METRIC", logGroup: null });
      assert.deepEqual(byName.get("media/images/sample"), { logName: "media/images/sample", logType: "IMAGE", logGroup: "media/images" });
      assert.deepEqual(byName.get("t/histogram"), { logName: "t/histogram", logType: "HISTOGRAM", logGroup: "t" });
      assertError(
        await client.post("/api/runs/logName/add", { runId: run.runId, logName: ["x"], logType: "BOGUS" }),
        400,
        /logType/,
        "bad type",
      );
      assertError(
        await client.post("/api/runs/logName/add", { runId: run.runId, logName: [], logType: "METRIC" }),
        400,
        /logName/,
        "no names",
      );
      assertError(await client.post("/api/runs/logName/add", { runId: run.runId, logType: "METRIC" }), 400, /logName/, "missing names");
      assert.equal((await details(client, run.runId)).logNames.length, 12);
    });

    it("modelGraph/create stores the graph, GET /modelGraph reads it; an invalid graph is a 400", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "graphs" });
      assert.deepEqual((await client.get("/api/runs/modelGraph", { runId: run.runId })).body, { runId: run.runId, graph: null });
      assert.deepEqual((await client.post("/api/runs/modelGraph/create", { runId: run.runId, graph: GRAPH })).body, { success: true });
      const read = await client.get("/api/runs/modelGraph", { runId: run.runId });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, { runId: run.runId, graph: GRAPH });
      const invalid: [string, unknown, RegExp][] = [
        ["missing format", { nodes: {} }, /format/],
        ["missing nodes", { format: "torch" }, /nodes/],
        ["node without depth", { format: "torch", nodes: { a: { type: "Linear" } } }, /depth/],
        ["bad node_type", { format: "torch", nodes: { a: { type: "Linear", depth: 0, node_type: "LAYER" } } }, /node_type/],
        ["not an object", "graph", /graph/],
      ];
      for (const [label, graph, field] of invalid) {
        assertError(await client.post("/api/runs/modelGraph/create", { runId: run.runId, graph }), 400, field, label);
      }
      assertError(await client.post("/api/runs/modelGraph/create", { runId: run.runId }), 400, /graph/, "graph missing");
      assert.deepEqual(
        (await client.get("/api/runs/modelGraph", { runId: run.runId })).body.graph,
        GRAPH,
        "rejected graphs changed nothing",
      );
      const replacement = { format: "onnx", nodes: { only: { type: "Identity", depth: 0 } } };
      assert.equal((await client.post("/api/runs/modelGraph/create", { runId: run.runId, graph: replacement })).status, 200);
      assert.deepEqual((await client.get("/api/runs/modelGraph", { runId: run.runId })).body.graph, replacement);
      assertError(await client.get("/api/runs/modelGraph", { runId: 999_999_999 }), 404, undefined, "unknown run");
    });

    it("trigger answers the run's status and no triggers", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "trigger" });
      assert.deepEqual((await client.post("/api/runs/trigger", { runId: run.runId })).body, { status: "RUNNING", triggers: [] });
      await setStatus(client, run.runId, "CANCELLED");
      assert.deepEqual((await client.post("/api/runs/trigger", { runId: run.runId })).body, { status: "CANCELLED", triggers: [] });
      // A heartbeat is not a resume.
      assert.equal((await details(client, run.runId)).status, "CANCELLED");
      assertError(await client.post("/api/runs/trigger", {}), 400, /runId/, "no runId");
    });

    it("alert stores alerts, listed in order by GET /alerts", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "alerts" });
      assert.deepEqual((await client.get("/api/runs/alerts", { runId: run.runId })).body, { alerts: [] });
      assert.deepEqual((await client.post("/api/runs/alert", { runId: run.runId, alert: ALERT })).body, { success: true });
      assert.deepEqual(
        (await client.post("/api/runs/alert", { runId: run.runId, alert: { title: "done", body: "", level: "INFO", timestamp: null } }))
          .body,
        { success: true },
      );
      const listed = await client.get("/api/runs/alerts", { runId: run.runId });
      assert.equal(listed.status, 200);
      assert.equal(listed.body.alerts.length, 2);
      const [first, second] = listed.body.alerts;
      assert.ok(Number.isInteger(first.id) && second.id > first.id);
      assert.deepEqual(
        { ...first, id: 0 },
        { id: 0, title: ALERT.title, body: ALERT.body, level: ALERT.level, timestamp: "2026-01-01T12:00:00.000Z", createdAt: NOW_ISO },
      );
      assert.deepEqual({ ...second, id: 0 }, { id: 0, title: "done", body: "", level: "INFO", timestamp: null, createdAt: NOW_ISO });
      const bad: [string, unknown, RegExp][] = [
        ["missing title", { body: "b", level: "INFO" }, /title/],
        ["empty title", { title: "", body: "b", level: "INFO" }, /title/],
        ["missing level", { title: "t", body: "b" }, /level/],
        ["negative timestamp", { ...ALERT, timestamp: -1 }, /timestamp/],
      ];
      for (const [label, alert, field] of bad)
        assertError(await client.post("/api/runs/alert", { runId: run.runId, alert }), 400, field, label);
      assertError(await client.post("/api/runs/alert", { runId: run.runId }), 400, /alert/, "alert missing");
      // The whole timestamp range reads back, years past 9999 included.
      assert.equal((await client.post("/api/runs/alert", { runId: run.runId, alert: { ...ALERT, timestamp: MAX_EPOCH_MS } })).status, 200);
      const all = await client.get("/api/runs/alerts", { runId: run.runId });
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.deepEqual(
        all.body.alerts.map((a: { timestamp: string | null }) => a.timestamp),
        ["2026-01-01T12:00:00.000Z", null, "+275760-09-13T00:00:00.000Z"],
      );
      await client.post("/api/runs/alert", { runId: run.runId, alert: { ...ALERT, timestamp: 0 } });
      assert.equal((await client.get("/api/runs/alerts", { runId: run.runId })).body.alerts.length, 4);
      assertError(await client.get("/api/runs/alerts", { runId: 999_999_999 }), 404, undefined, "unknown run");
    });
  });

  describe("bad input and access", () => {
    it("rejects values outside the documented limits with a 400 naming the field, storing nothing", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "limits" });
      const tags51 = Array.from({ length: 51 }, (_, i) => `t${i}`);
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["/api/runs/create", { runName: "x", projectName: "limits-new", tags: tags51 }, /^tags\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", tags: [""] }, /^tags/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", externalId: "" }, /^externalId\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", createdAt: -1 }, /^createdAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", createdAt: MAX_EPOCH_MS + 1 }, /^createdAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", createdAt: 1.5 }, /^createdAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", createdAt: "yesterday" }, /^createdAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", updatedAt: -1 }, /^updatedAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", updatedAt: MAX_EPOCH_MS + 1 }, /^updatedAt\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", config: "{" }, /^config\b/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", forkRunId: 0, forkStep: 0 }, /^forkRunId\b/],
        ["/api/runs/create", { projectName: "limits-new" }, /runName/],
        ["/api/runs/create", { runName: "x" }, /projectName/],
        ["/api/runs/create", { runName: "x", projectName: "" }, /projectName/],
        ["/api/runs/create", { runName: "", projectName: "limits-new" }, /runName/],
        ["/api/runs/create", { runName: "x", projectName: "limits-new", inheritConfig: "maybe" }, /inheritConfig/],
        ["/api/runs/resume", { externalId: "", projectName: "limits" }, /externalId/],
        ["/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusUpdated: -1 }, /^statusUpdated\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusUpdated: MAX_EPOCH_MS + 1 }, /^statusUpdated\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusUpdated: 1.5 }, /^statusUpdated\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "DONE" }, /^status\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "completed" }, /^status\b/],
        ["/api/runs/status/update", { runId: run.runId }, /status/],
        ["/api/runs/status/update", { status: "COMPLETED" }, /runId/],
        ["/api/runs/status/update", { runId: "abc", status: "COMPLETED" }, /^runId\b/],
        ["/api/runs/status/update", { runId: -3, status: "COMPLETED" }, /^runId\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusMetadata: "{oops" }, /^statusMetadata\b/],
        ["/api/runs/status/update", { runId: run.runId, status: "COMPLETED", loggerSettings: "{oops" }, /^loggerSettings\b/],
        ["/api/runs/tags/update", { runId: run.runId, tags: tags51 }, /^tags\b/],
        ["/api/runs/tags/update", { runId: run.runId }, /tags/],
        ["/api/runs/tags/update", { runId: run.runId, tags: [{ tag: "a" }] }, /tags/],
        ["/api/runs/notes/update", { runId: run.runId, notes: "x".repeat(1001) }, /^notes\b/],
        ["/api/runs/config/update", { runId: run.runId, config: "[1," }, /^config\b/],
        ["/api/runs/logName/add", { runId: run.runId, logName: [""], logType: "METRIC" }, /logName/],
        ["/api/runs/modelGraph/create", { runId: run.runId, graph: { nodes: {} } }, /format/],
        ["/api/runs/trigger", { runId: "x" }, /runId/],
        ["/api/runs/alert", { runId: run.runId, alert: { ...ALERT, timestamp: MAX_EPOCH_MS + 1 } }, /timestamp/],
      ];
      const before = await details(client, run.runId);
      for (const [path, body, field] of cases) {
        assertError(await client.post(path, body), 400, field, `${path} ${JSON.stringify(body).slice(0, 120)}`);
      }
      assert.deepEqual(await details(client, run.runId), before);
      assert.equal((await history(client, run.runId)).length, 1);
      assert.deepEqual(
        (await projects(client)).map((p) => [p.name, p.runCount]),
        [["limits", 1]],
      );
      // The edges of the ranges are accepted.
      assert.equal((await setStatus(client, run.runId, "COMPLETED", { statusUpdated: MAX_EPOCH_MS })).status, 200);
    });

    it("400 for a malformed JSON body, 415 for a non-JSON content type, 413 for a body over 1 MiB", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "bodies" });
      const routes = ["/api/runs/create", ...writeRoutes(run.runId).map(([path]) => path)];
      const valid: Record<string, unknown> = Object.fromEntries([
        ["/api/runs/create", { runName: "x", projectName: "bodies-new" }],
        ...writeRoutes(run.runId),
      ]);
      for (const path of routes) {
        assertError(await client.raw("POST", path, '{"runId": ', { "content-type": "application/json" }), 400, /JSON/, `malformed ${path}`);
        assertError(
          await client.raw("POST", path, JSON.stringify(valid[path]), { "content-type": "text/plain" }),
          415,
          undefined,
          `text/plain ${path}`,
        );
        assertError(
          await client.raw("POST", path, `runId=${run.runId}`, { "content-type": "application/x-www-form-urlencoded" }),
          415,
          undefined,
          `form ${path}`,
        );
      }
      const big = JSON.stringify({ runId: run.runId, notes: "x".repeat(1024 * 1024 + 10) });
      for (const path of ["/api/runs/notes/update", "/api/runs/create", "/api/runs/config/update"]) {
        assertError(await client.raw("POST", path, big, { "content-type": "application/json" }), 413, undefined, `big ${path}`);
      }
      const bigConfig = JSON.stringify({
        runName: "x",
        projectName: "bodies-new",
        config: JSON.stringify({ blob: "y".repeat(1024 * 1024) }),
      });
      assertError(
        await client.raw("POST", "/api/runs/create", bigConfig, { "content-type": "application/json" }),
        413,
        undefined,
        "big create",
      );
      const after = await details(client, run.runId);
      assert.equal(after.notes, null);
      assert.equal(after.status, "RUNNING");
      assert.deepEqual(
        (await projects(client)).map((p) => p.name),
        ["bodies"],
      );
    });

    it("404 for an unknown run on every write route", async () => {
      const { client } = await makeOrg(test);
      for (const [path, body] of writeRoutes(999_999_999)) {
        assertError(await client.post(path, body), 404, /999999999/, path);
      }
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "p", forkRunId: 999_999_999, forkStep: 0 }),
        404,
        /forkRunId/,
        "create fork",
      );
      assert.deepEqual(await projects(client), []);
    });

    it("404 for another organization's run on every write route, and nothing changes in it", async () => {
      const owner = await makeOrg(test);
      const intruder = await makeOrg(test);
      const run = await owner.client.createRun({
        projectName: "private",
        externalId: "secret-ext",
        tags: ["mine"],
        config: '{"lr": 1}',
        loggerSettings: '{"a": 1}',
      });
      assert.equal((await ingest(owner.client, "metrics", run, toNdjson([{ step: 3, data: { loss: 1 } }]))).status, 200);
      await owner.client.post("/api/runs/notes/update", { runId: run.runId, notes: "owner's" });
      await owner.client.post("/api/runs/modelGraph/create", { runId: run.runId, graph: { format: "mine", nodes: {} } });
      await owner.client.post("/api/runs/alert", { runId: run.runId, alert: { title: "own", body: "", level: "INFO" } });
      await owner.client.post("/api/runs/logName/add", { runId: run.runId, logName: ["loss"], logType: "METRIC" });
      await setStatus(owner.client, run.runId, "COMPLETED", { statusMetadata: '{"ok": true}' });
      const snapshot = async () => ({
        details: await details(owner.client, run.runId),
        history: await history(owner.client, run.runId),
        graph: (await owner.client.get("/api/runs/modelGraph", { runId: run.runId })).body,
        alerts: (await owner.client.get("/api/runs/alerts", { runId: run.runId })).body,
        projects: await projects(owner.client),
      });
      const before = await snapshot();

      for (const [path, body] of writeRoutes(run.runId)) {
        assertError(await intruder.client.post(path, body), 404, undefined, path);
      }
      assertError(await intruder.client.post("/api/runs/resume", { displayId: run.displayId }), 404, undefined, "resume by displayId");
      assertError(
        await intruder.client.post("/api/runs/resume", { displayId: run.displayId, projectName: "private" }),
        404,
        undefined,
        "resume by displayId+project",
      );
      assertError(
        await intruder.client.post("/api/runs/resume", { externalId: "secret-ext", projectName: "private" }),
        404,
        undefined,
        "resume by externalId",
      );
      assertError(
        await intruder.client.post("/api/runs/create", { runName: "x", projectName: "private", forkRunId: run.runId, forkStep: 0 }),
        404,
        /forkRunId/,
        "fork another organization's run",
      );
      for (const path of ["/api/runs/status/history", "/api/runs/modelGraph", "/api/runs/alerts"]) {
        assertError(await intruder.client.get(path, { runId: run.runId }), 404, undefined, path);
      }
      // Creating with the owner's externalId in a same-named project makes the intruder's own run.
      const own = await intruder.client.createRun({ projectName: "private", externalId: "secret-ext" });
      assert.notEqual(own.runId, run.runId);
      assert.equal(own.resumed, false);
      assert.equal(own.number, 1);

      assert.deepEqual(await snapshot(), before);
      assert.equal(before.details.status, "COMPLETED");
    });

    it("401 without a key (or with an unknown one) on every write route", async () => {
      const { client } = await makeOrg(test);
      const run = await client.createRun({ projectName: "auth" });
      const anonymous = client.withKey(undefined);
      const wrong = client.withKey("sw_not-a-real-key");
      const routes: [string, Record<string, unknown>][] = [
        ["/api/runs/create", { runName: "x", projectName: "auth-new" }],
        ...writeRoutes(run.runId),
      ];
      for (const [path, body] of routes) {
        const missing = await anonymous.post(path, body);
        assertError(missing, 401, undefined, `${path} no key`);
        assert.equal(missing.body.error, "missing API key");
        const invalid = await wrong.post(path, body);
        assertError(invalid, 401, undefined, `${path} bad key`);
        assert.equal(invalid.body.error, "invalid API key");
      }
      const after = await details(client, run.runId);
      assert.equal(after.status, "RUNNING");
      assert.deepEqual(after.tags, []);
      assert.deepEqual(
        (await projects(client)).map((p) => p.name),
        ["auth"],
      );
    });

    it("a failed create leaves no project, run or run number behind", async () => {
      const { client } = await makeOrg(test);
      const parent = await client.createRun({ projectName: "seed" });
      const failures: Record<string, unknown>[] = [
        { runName: "x", projectName: "fresh", config: "{bad" },
        { runName: "x", projectName: "fresh", systemMetadata: "{bad" },
        { runName: "x", projectName: "fresh", loggerSettings: "{bad" },
        { runName: "x", projectName: "fresh", forkRunId: parent.runId, forkStep: 0 },
        { runName: "x", projectName: "fresh", forkRunId: 999_999_999, forkStep: 0 },
        { runName: "x", projectName: "fresh", forkRunId: parent.runId },
        { runName: "x", projectName: "fresh", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        { runName: "x", projectName: "fresh", createdAt: -1 },
      ];
      for (const body of failures) {
        const response = await client.post("/api/runs/create", body);
        assert.ok(response.status === 400 || response.status === 404, `${JSON.stringify(body)}: ${response.status}`);
      }
      assert.deepEqual(
        (await projects(client)).map((p) => p.name),
        ["seed"],
      );
      // Failures inside an existing project use no number either.
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "seed", forkRunId: parent.runId, forkStep: 1 }),
        400,
        /forkStep/,
        "fork step too large",
      );
      assertError(
        await client.post("/api/runs/create", { runName: "x", projectName: "seed", config: "nope" }),
        400,
        /config/,
        "bad config",
      );
      const fresh = await client.createRun({ projectName: "fresh" });
      assert.equal(fresh.number, 1);
      assert.equal(fresh.displayId, "FRE-1");
      assert.equal((await client.createRun({ projectName: "seed" })).number, 2);
      assert.deepEqual(
        (await projects(client)).map((p) => [p.name, p.runCount]),
        [
          ["fresh", 1],
          ["seed", 2],
        ],
      );
    });
  });
});

describe("stale run monitor", () => {
  const clock = new ManualClock(Date.UTC(2026, 6, 1, 0, 0, 0, 0));
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ clock });
  });
  after(async () => test.close());

  it("fails RUNNING runs silent for more than 15 minutes; trigger pings, ingest and status writes keep runs alive", async () => {
    const { client } = await makeOrg(test);
    const silent = await client.createRun({ projectName: "stale", runName: "silent" });
    const pinged = await client.createRun({ projectName: "stale", runName: "pinged" });
    const ingesting = await client.createRun({ projectName: "stale", runName: "ingesting" });
    const restarted = await client.createRun({ projectName: "stale", runName: "restarted" });
    const finished = await client.createRun({ projectName: "stale", runName: "finished" });
    assert.equal((await setStatus(client, finished.runId, "COMPLETED")).status, 200);

    clock.advance(10 * 60 * 1000);
    assert.equal(await test.server.staleMonitor.sweep(), 0, "nothing is stale after 10 minutes");
    assert.deepEqual((await client.post("/api/runs/trigger", { runId: pinged.runId })).body, { status: "RUNNING", triggers: [] });
    assert.equal((await ingest(client, "metrics", ingesting, toNdjson([{ step: 0, data: { loss: 1 } }]))).status, 200);
    await setStatus(client, restarted.runId, "COMPLETED");
    await setStatus(client, restarted.runId, "RUNNING");

    clock.advance(6 * 60 * 1000);
    assert.equal(await test.server.staleMonitor.sweep(), 1);
    const failedAt = new Date(clock.now()).toISOString();

    const run = await details(client, silent.runId);
    assert.equal(run.status, "FAILED");
    assert.deepEqual(run.statusMetadata, { reason: "stale" });
    assert.equal(run.statusUpdated, failedAt);
    const events = await history(client, silent.runId);
    assert.equal(events.length, 2);
    assert.deepEqual(
      { ...events[1], id: undefined },
      {
        id: undefined,
        runId: silent.runId,
        fromStatus: "RUNNING",
        toStatus: "FAILED",
        source: "stale",
        metadata: { reason: "stale" },
        actorId: null,
        apiKeyId: null,
        createdAt: failedAt,
      },
    );
    for (const alive of [pinged, ingesting, restarted]) assert.equal((await details(client, alive.runId)).status, "RUNNING");
    assert.equal((await details(client, finished.runId)).status, "COMPLETED");
    assert.equal((await history(client, finished.runId)).length, 2, "a finished run gets no stale event");

    // A second sweep changes nothing; a resume brings the stale run back, and it goes stale again later.
    assert.equal(await test.server.staleMonitor.sweep(), 0);
    assert.equal((await history(client, silent.runId)).length, 2);
    const resumed = await client.post("/api/runs/resume", { runId: silent.runId });
    assert.equal(resumed.body.resumed, true);
    assert.equal((await details(client, silent.runId)).status, "RUNNING");
    assert.deepEqual(
      (await history(client, silent.runId)).map((e) => e.source),
      ["api", "stale", "resume"],
    );
    clock.advance(16 * 60 * 1000);
    assert.equal(await test.server.staleMonitor.sweep(), 4);
    assert.deepEqual(
      (await history(client, silent.runId)).map((e) => e.source),
      ["api", "stale", "resume", "stale"],
    );
  });
});
