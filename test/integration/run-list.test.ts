import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { STATEMENT_CACHE_CAP } from "../../src/store/sqlite/statements.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** The runs of the project, as written; every expectation below is computed from this table. */
interface Spec {
  name: string;
  tags: string[];
  status: "RUNNING" | "COMPLETED" | "FAILED" | "TERMINATED" | "CANCELLED";
  config: Record<string, unknown> | null;
  systemMetadata: Record<string, unknown> | null;
  /** loss values at steps 0, 1, 2, ...; the LAST is the final one. */
  loss?: number[];
  createdAt: number;
}

const T0 = Date.UTC(2026, 0, 1);
const SPECS: Spec[] = [
  {
    name: "resnet-baseline",
    tags: ["baseline", "cv"],
    status: "COMPLETED",
    config: { lr: 0.1, optim: { name: "sgd" }, layers: 50 },
    systemMetadata: { gpu: "A100", host: "node-1" },
    loss: [2, 1.5, 1.2],
    createdAt: T0 + 1000,
  },
  {
    name: "ResNet-Wide",
    tags: ["cv"],
    status: "FAILED",
    config: { lr: 0.01, optim: { name: "adam" }, layers: 101 },
    systemMetadata: { gpu: "H100" },
    loss: [3, 2.5],
    createdAt: T0 + 2000,
  },
  {
    name: "bert-small",
    tags: ["nlp"],
    status: "RUNNING",
    config: { lr: 0.001, optim: { name: "adam" }, date: "2026-03-01" },
    systemMetadata: { gpu: "A100", host: "node-2" },
    loss: [4, 3, 2, 0.9],
    createdAt: T0 + 3000,
  },
  {
    name: "bert-large",
    tags: ["nlp", "big"],
    status: "TERMINATED",
    config: { lr: 0.0005, optim: { name: "adamw" }, date: "2026-05-10" },
    systemMetadata: null,
    createdAt: T0 + 4000,
  },
  { name: "gpt-tiny", tags: [], status: "CANCELLED", config: null, systemMetadata: { gpu: "T4" }, loss: [5, 4.4], createdAt: T0 + 5000 },
  {
    name: "mixer_50%",
    tags: ["cv", "big"],
    status: "COMPLETED",
    config: { lr: "auto", optim: { name: "sgd" } },
    systemMetadata: { gpu: "a100" },
    loss: [1, 0.5],
    createdAt: T0 + 6000,
  },
];

const last = (spec: Spec) => spec.loss?.at(-1);

describe("GET /api/runs/list", () => {
  let test: TestServer;
  let client: ApiClient;
  const ids = new Map<string, number>();
  before(async () => {
    test = await startTestServer();
    client = test.client;
    for (const spec of SPECS) {
      const run = await client.createRun({
        projectName: "list",
        runName: spec.name,
        tags: spec.tags,
        config: JSON.stringify(spec.config),
        systemMetadata: JSON.stringify(spec.systemMetadata),
        createdAt: spec.createdAt,
        updatedAt: spec.createdAt,
      });
      ids.set(spec.name, run.runId);
      if (spec.loss) {
        const body = toNdjson(spec.loss.map((value, step) => ({ step, data: { loss: value } })));
        assert.equal((await ingest(client, "metrics", run, body)).status, 200);
      }
      if (spec.status !== "RUNNING") {
        const update = await client.post("/api/runs/status/update", { runId: run.runId, status: spec.status });
        assert.equal(update.status, 200);
      }
    }
  });
  after(async () => test.close());

  async function list(query: Record<string, string | number | undefined>) {
    const response = await client.get("/api/runs/list", { projectName: "list", ...query });
    assert.equal(response.status, 200, `${JSON.stringify(query)}: ${JSON.stringify(response.body)}`);
    return response.body as { runs: { id: number; name: string; [key: string]: unknown }[]; total: number };
  }
  const names = async (query: Record<string, string | number | undefined>) => (await list(query)).runs.map((run) => run.name);
  const newestFirst = (specs: Spec[]) => [...specs].sort((a, b) => b.createdAt - a.createdAt).map((spec) => spec.name);

  async function listError(query: Record<string, string | number | undefined>, status = 400) {
    const response = await client.get("/api/runs/list", { projectName: "list", ...query });
    assert.equal(response.status, status, `${JSON.stringify(query)}: ${JSON.stringify(response.body)}`);
    return response.body.error as string;
  }

  it("lists newest first with the list item fields, pages with limit and offset, and counts every match", async () => {
    const all = await list({});
    assert.equal(all.total, SPECS.length);
    assert.deepEqual(
      all.runs.map((run) => run.name),
      newestFirst(SPECS),
    );
    const first = all.runs.find((run) => run.name === "bert-large")!;
    assert.deepEqual(first, {
      id: ids.get("bert-large"),
      name: "bert-large",
      number: 4,
      displayId: "LIS-4",
      projectName: "list",
      status: "TERMINATED",
      tags: ["nlp", "big"],
      createdAt: new Date(T0 + 4000).toISOString(),
      updatedAt: first.updatedAt,
      statusUpdated: first.statusUpdated,
    });
    const page = await list({ limit: 2, offset: 1 });
    assert.deepEqual(
      page.runs.map((run) => run.name),
      newestFirst(SPECS).slice(1, 3),
    );
    assert.equal(page.total, SPECS.length, "total ignores paging");
    assert.deepEqual((await list({ offset: 100 })).runs, []);
  });

  it("searches names case-insensitively by substring, and filters by tags (any of) and statuses", async () => {
    assert.deepEqual(await names({ search: "RESNET" }), newestFirst(SPECS.filter((s) => s.name.toLowerCase().includes("resnet"))));
    assert.deepEqual(await names({ search: "50%" }), ["mixer_50%"], "no wildcards in a search");
    assert.deepEqual(await names({ search: "_" }), ["mixer_50%"]);
    assert.deepEqual(
      await names({ tags: "big,baseline" }),
      newestFirst(SPECS.filter((s) => s.tags.some((t) => ["big", "baseline"].includes(t)))),
    );
    assert.deepEqual(
      await names({ status: "completed,FAILED" }),
      newestFirst(SPECS.filter((s) => ["COMPLETED", "FAILED"].includes(s.status))),
    );
    assert.deepEqual(await names({ status: "finished" }), newestFirst(SPECS.filter((s) => s.status === "COMPLETED")), "alias");
    const combined = await list({ search: "e", tags: "cv", status: "COMPLETED" });
    assert.deepEqual(
      combined.runs.map((r) => r.name),
      newestFirst(SPECS.filter((s) => s.name.includes("e") && s.tags.includes("cv") && s.status === "COMPLETED")),
    );
    assert.equal(combined.total, combined.runs.length);
  });

  it("sorts by duration: to the last status change once finished, to now while running", async () => {
    const made = [];
    for (const [name, finishedAfter] of [
      ["slow", 99_000],
      ["quick", 10_000],
      ["live", null],
    ] as const) {
      const run = await client.createRun({ projectName: "durations", runName: name, createdAt: T0 });
      if (finishedAfter !== null)
        assert.equal(
          (await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusUpdated: T0 + finishedAfter }))
            .status,
          200,
        );
      made.push(run);
    }
    const byDuration = async (sort: string, extra: Record<string, string> = {}) =>
      ((await client.get("/api/runs/list", { projectName: "durations", sort, ...extra })).body.runs as { name: string }[]).map(
        (run) => run.name,
      );
    assert.deepEqual(await byDuration("duration"), ["quick", "slow", "live"]);
    assert.deepEqual(await byDuration("-duration"), ["live", "slow", "quick"]);
    assert.deepEqual(await byDuration("-duration", { filter: '{"status": "COMPLETED"}' }), ["slow", "quick"], "with a filter too");
  });

  it("sorts by columns, config and system metadata keys and summary metrics, with missing values last", async () => {
    const byName = [...SPECS].map((s) => s.name).sort();
    assert.deepEqual(await names({ sort: "name" }), byName);
    assert.deepEqual(await names({ sort: "-name" }), [...byName].reverse());
    assert.deepEqual(await names({ sort: "createdAt" }), [...newestFirst(SPECS)].reverse());
    const withLoss = SPECS.filter((s) => last(s) !== undefined);
    const byLoss = [...withLoss].sort((a, b) => last(a)! - last(b)!).map((s) => s.name);
    const lacking = newestFirst(SPECS.filter((s) => last(s) === undefined));
    assert.deepEqual(await names({ sort: "summary_metrics.loss" }), [...byLoss, ...lacking]);
    assert.deepEqual(await names({ sort: "-summary_metrics.loss" }), [...[...byLoss].reverse(), ...lacking]);
    // config.lr holds numbers and one string: numbers order before strings (MongoDB's order of types).
    const numeric = SPECS.filter((s) => typeof s.config?.lr === "number").sort(
      (a, b) => (a.config!.lr as number) - (b.config!.lr as number),
    );
    assert.deepEqual(await names({ sort: "config.lr" }), [...numeric.map((s) => s.name), "mixer_50%", "gpt-tiny"]);
    assert.deepEqual(
      (await names({ sort: "config.optim.name" }))[0],
      "bert-small",
      "nested keys by their dotted path; ties keep newest first",
    );
    assert.deepEqual((await names({ sort: "-systemMetadata.gpu" })).slice(0, 2), ["mixer_50%", "gpt-tiny"]);
    const paged = await list({ sort: "summary_metrics.loss", limit: 2, offset: 1 });
    assert.deepEqual(
      paged.runs.map((r) => r.name),
      byLoss.slice(1, 3),
    );
    assert.equal(paged.total, SPECS.length);
  });

  it("attaches flattened field values on request, restricted by visibleColumns", async () => {
    assert.ok(!("_flatConfig" in (await list({})).runs[0]!), "absent by default");
    for (const flag of ["yes", "false", "0"]) assert.ok(!("_flatConfig" in (await list({ includeFieldValues: flag })).runs[0]!), flag);
    for (const flag of ["true", "1"]) {
      const run = (await list({ includeFieldValues: flag, search: "resnet-baseline" })).runs[0]!;
      assert.deepEqual(run._flatConfig, { lr: 0.1, "optim.name": "sgd", layers: 50 });
      assert.deepEqual(run._flatSystemMetadata, { gpu: "A100", host: "node-1" });
    }
    const columns = JSON.stringify([
      { source: "config", key: "optim.name" },
      { source: "systemMetadata", key: "host" },
      { source: "config", key: "missing" },
    ]);
    const selected = await list({ includeFieldValues: "true", visibleColumns: columns });
    for (const run of selected.runs) {
      const spec = SPECS.find((s) => s.name === run.name)!;
      assert.deepEqual(run._flatConfig, spec.config?.optim ? { "optim.name": (spec.config.optim as { name: string }).name } : {}, run.name);
      assert.deepEqual(run._flatSystemMetadata, spec.systemMetadata?.host ? { host: spec.systemMetadata.host } : {}, run.name);
    }
    const none = await list({ includeFieldValues: "1", visibleColumns: "[]" });
    assert.ok(none.runs.every((run) => JSON.stringify(run._flatConfig) === "{}" && JSON.stringify(run._flatSystemMetadata) === "{}"));
  });

  it("applies run filters with every leaf operator over fields and prefixes", async () => {
    const cases: [unknown, (s: Spec) => boolean][] = [
      [{ name: "bert-small" }, (s) => s.name === "bert-small"],
      [{ displayName: { $ne: "bert-small" } }, (s) => s.name !== "bert-small"],
      [{ display_name: { $regex: "^res" } }, (s) => /^res/.test(s.name)],
      [{ name: { $in: ["gpt-tiny", "nope"] } }, (s) => s.name === "gpt-tiny"],
      [{ name: { $nin: ["gpt-tiny"] } }, (s) => s.name !== "gpt-tiny"],
      [{ status: "COMPLETED" }, (s) => s.status === "COMPLETED"],
      [{ state: { $in: ["crashed", "killed"] } }, (s) => ["FAILED", "TERMINATED"].includes(s.status)],
      [{ tags: "cv" }, (s) => s.tags.includes("cv")],
      [{ tags: { $ne: "cv" } }, (s) => !s.tags.includes("cv")],
      [{ tags: { $in: ["nlp", "baseline"] } }, (s) => s.tags.some((t) => ["nlp", "baseline"].includes(t))],
      [{ tags: { $nin: ["big"] } }, (s) => !s.tags.includes("big")],
      [{ tags: { $regex: "^b" } }, (s) => s.tags.some((t) => t.startsWith("b"))],
      [{ createdAt: { $gt: T0 + 3000 } }, (s) => s.createdAt > T0 + 3000],
      [{ created_at: { $lte: new Date(T0 + 2000).toISOString() } }, (s) => s.createdAt <= T0 + 2000],
      [{ createdAt: { $gte: T0 + 2000, $lt: T0 + 5000 } }, (s) => s.createdAt >= T0 + 2000 && s.createdAt < T0 + 5000],
      [{ heartbeatAt: { $gt: 0 } }, () => true],
      [{ "config.lr": { $gte: 0.01 } }, (s) => typeof s.config?.lr === "number" && s.config.lr >= 0.01],
      [{ "config.lr": { $lt: 0.01 } }, (s) => typeof s.config?.lr === "number" && s.config.lr < 0.01],
      [{ "config.lr": "auto" }, (s) => s.config?.lr === "auto"],
      [{ "config.optim.name": { $in: ["adam", "adamw"] } }, (s) => ["adam", "adamw"].includes((s.config?.optim as { name: string })?.name)],
      [{ "config.optim.name": { $ne: "sgd" } }, (s) => (s.config?.optim as { name: string } | undefined)?.name !== "sgd"],
      [{ "config.layers": { $nin: [50] } }, (s) => s.config?.layers !== 50],
      [{ "systemMetadata.gpu": { $regex: "^A1" } }, (s) => /^A1/.test(String(s.systemMetadata?.gpu ?? "\u0000"))],
      [{ "summaryMetrics.loss": { $lt: 1 } }, (s) => last(s) !== undefined && last(s)! < 1],
      [{ "summary_metrics.loss": { $gte: 1.2 } }, (s) => last(s) !== undefined && last(s)! >= 1.2],
      [{ "summaryMetrics.loss": { $ne: 0.5 } }, (s) => last(s) !== 0.5],
      [{ $or: [{ tags: "nlp" }, { status: "CANCELLED" }] }, (s) => s.tags.includes("nlp") || s.status === "CANCELLED"],
      [
        { $and: [{ "config.optim.name": "adam" }, { "summaryMetrics.loss": { $lt: 2 } }] },
        (s) => (s.config?.optim as { name: string })?.name === "adam" && last(s)! < 2,
      ],
      [{ $not: { tags: "cv" } }, (s) => !s.tags.includes("cv")],
      [
        { "config.lr": { $gt: 0.0001 }, tags: { $in: ["cv", "nlp"] }, "summaryMetrics.loss": { $lte: 2 } },
        (s) =>
          typeof s.config?.lr === "number" &&
          s.config.lr > 0.0001 &&
          s.tags.some((t) => ["cv", "nlp"].includes(t)) &&
          last(s) !== undefined &&
          last(s)! <= 2,
      ],
    ];
    for (const [filter, predicate] of cases) {
      const body = await list({ filter: JSON.stringify(filter) });
      assert.deepEqual(
        body.runs.map((r) => r.name),
        newestFirst(SPECS.filter(predicate)),
        JSON.stringify(filter),
      );
      assert.equal(body.total, SPECS.filter(predicate).length);
    }
    const narrowed = await list({ filter: JSON.stringify({ tags: "cv" }), status: "COMPLETED", limit: 1 });
    assert.deepEqual(
      narrowed.runs.map((r) => r.name),
      newestFirst(SPECS.filter((s) => s.tags.includes("cv") && s.status === "COMPLETED")).slice(0, 1),
    );
    assert.equal(narrowed.total, 2);
  });

  it("applies field filter terms per data type, all of them", async () => {
    const term = (source: string, key: string, dataType: string, operator: string, values: unknown[]) => ({
      source,
      key,
      dataType,
      operator,
      values,
    });
    const optim = (s: Spec) => (s.config?.optim as { name: string } | undefined)?.name;
    const cases: [unknown[], (s: Spec) => boolean][] = [
      [[term("config", "optim.name", "text", "contains", ["ADA"])], (s) => optim(s)?.includes("ada") ?? false],
      [[term("config", "optim.name", "text", "does not contain", ["ada"])], (s) => !(optim(s)?.includes("ada") ?? false)],
      [[term("config", "optim.name", "text", "starts with", ["S"])], (s) => optim(s)?.startsWith("s") ?? false],
      [[term("config", "optim.name", "text", "equals", ["adam"])], (s) => optim(s) === "adam"],
      [[term("config", "optim.name", "text", "is not", ["adam"])], (s) => optim(s) !== "adam"],
      [[term("config", "layers", "number", ">", [60])], (s) => ((s.config?.layers as number) ?? -1) > 60],
      [
        [term("config", "lr", "number", "is between", [0.001, 0.01])],
        (s) => typeof s.config?.lr === "number" && s.config.lr >= 0.001 && s.config.lr <= 0.01,
      ],
      [
        [term("config", "lr", "number", "is not between", [0.001, 0.01])],
        (s) => !(typeof s.config?.lr === "number" && s.config.lr >= 0.001 && s.config.lr <= 0.01),
      ],
      [[term("config", "date", "date", "is after", ["2026-04-01"])], (s) => s.config?.date === "2026-05-10"],
      [[term("config", "date", "date", "is on or before", ["2026-03-01T00:00:00Z"])], (s) => s.config?.date === "2026-03-01"],
      [
        [term("systemMetadata", "gpu", "option", "is any of", ["A100", "T4"])],
        (s) => ["A100", "T4"].includes(s.systemMetadata?.gpu as string),
      ],
      [[term("systemMetadata", "gpu", "option", "is none of", ["A100"])], (s) => s.systemMetadata?.gpu !== "A100"],
      [[term("systemMetadata", "host", "text", "exists", [])], (s) => s.systemMetadata?.host !== undefined],
      [[term("systemMetadata", "host", "text", "not exists", [])], (s) => s.systemMetadata?.host === undefined],
      [
        [term("config", "optim.name", "text", "regex", ["^adam"]), term("systemMetadata", "gpu", "text", "contains", ["a1"])],
        (s) => /^adam/.test(optim(s) ?? "") && /a1/i.test(String(s.systemMetadata?.gpu ?? "")),
      ],
    ];
    for (const [terms, predicate] of cases) {
      const body = await list({ fieldFilters: JSON.stringify(terms) });
      assert.deepEqual(
        body.runs.map((r) => r.name),
        newestFirst(SPECS.filter(predicate)),
        JSON.stringify(terms),
      );
    }
  });

  it("answers 400 naming what is wrong, never ignoring a bad parameter", async () => {
    const bad: [Record<string, string | number>, RegExp][] = [
      [{ filter: "{not json" }, /filter: malformed JSON/],
      [{ filter: JSON.stringify({ owner: "me" }) }, /filter.*owner/],
      [{ filter: JSON.stringify({ name: { $like: "x" } }) }, /filter.*\$like/],
      [{ filter: JSON.stringify({ $or: { name: "x" } }) }, /filter.*\$or/],
      [{ filter: JSON.stringify({ tags: { $in: "cv" } }) }, /filter.*\$in/],
      [{ filter: JSON.stringify({ name: { $regex: "(a)\\1" } }) }, /backreference/],
      [{ fieldFilters: "[{" }, /fieldFilters: malformed JSON/],
      [
        { fieldFilters: JSON.stringify([{ source: "config", key: "lr", dataType: "number", operator: "starts with", values: ["1"] }]) },
        /fieldFilters.*starts with/,
      ],
      [{ fieldFilters: JSON.stringify([{ source: "config", key: "lr", dataType: "number", operator: "is", values: [] }]) }, /fieldFilters/],
      [
        { fieldFilters: JSON.stringify([{ source: "env", key: "lr", dataType: "number", operator: ">", values: [1] }]) },
        /fieldFilters.*source/,
      ],
      [{ visibleColumns: JSON.stringify([{ source: "tags", key: "x" }]) }, /visibleColumns\[0\]\.source/],
      [{ visibleColumns: "{}" }, /visibleColumns/],
      [{ sort: "owner" }, /sort: 'owner'/],
      [{ status: "DONE" }, /status: 'DONE'/],
      [{ limit: 0 }, /limit/],
      [{ limit: 201 }, /limit/],
      [{ offset: -1 }, /offset/],
    ];
    for (const [query, message] of bad) assert.match(await listError(query), message, JSON.stringify(query));
    const missing = await client.get("/api/runs/list", {});
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /projectName/);
    assert.deepEqual(await listError({ projectName: "nope" }, 404), "project 'nope' not found");
  });

  it("runs a pathological regular expression in linear time", async () => {
    const long = `${"a".repeat(100_000)}!`;
    const run = await client.createRun({ projectName: "regex", runName: "long", config: JSON.stringify({ text: long }) });
    const started = Date.now();
    const response = await client.get("/api/runs/list", {
      projectName: "regex",
      filter: JSON.stringify({ "config.text": { $regex: "^(a+)+$" } }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.runs, [], "the value ends in '!'");
    // A backtracking engine needs astronomically long here; linear matching takes milliseconds. The bound is loose on purpose.
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    const matching = await client.get("/api/runs/list", {
      projectName: "regex",
      filter: JSON.stringify({ "config.text": { $regex: "a+!$" } }),
    });
    assert.deepEqual(
      matching.body.runs.map((r: { id: number }) => r.id),
      [run.runId],
    );
  });

  it("compares a fork's summary metrics on its inherited points", async () => {
    const parent = await client.createRun({ projectName: "forks", runName: "parent" });
    await ingest(client, "metrics", parent, toNdjson([0, 1, 2, 3, 4].map((step) => ({ step, data: { loss: 10 - step } }))));
    await client.createRun({ projectName: "forks", runName: "child", forkRunId: parent.runId, forkStep: 2 });
    const body = (await client.get("/api/runs/list", { projectName: "forks", filter: JSON.stringify({ "summaryMetrics.loss": 8 }) })).body;
    assert.deepEqual(
      body.runs.map((r: { name: string }) => r.name),
      ["child"],
      "the child's LAST is the parent's value at the fork step",
    );
  });

  it("documents its parameters inline and the filter grammar as the RunFilterGrammar schema", async () => {
    const document = (await client.get("/api/openapi.json")).body;
    const parameters = document.paths["/api/runs/list"].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    for (const name of [
      "projectName",
      "search",
      "tags",
      "status",
      "limit",
      "offset",
      "includeFieldValues",
      "visibleColumns",
      "fieldFilters",
      "filter",
      "sort",
    ]) {
      assert.ok(parameters.includes(`query:${name}`), name);
    }
    const grammar = document.components.schemas.RunFilterGrammar.properties;
    const enumOf = (name: string) => grammar[name].items.enum;
    // docs/semantics.md (Run filters), copied here by hand so that a drift in either place fails.
    assert.deepEqual(enumOf("booleanOperators"), ["$and", "$or", "$not"]);
    assert.deepEqual(enumOf("leafOperators"), ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$regex"]);
    assert.deepEqual(enumOf("fields"), [
      "state",
      "status",
      "heartbeat_at",
      "heartbeatAt",
      "created_at",
      "createdAt",
      "updated_at",
      "updatedAt",
      "name",
      "displayName",
      "display_name",
      "tags",
    ]);
    assert.deepEqual(enumOf("fieldPrefixes"), ["config.", "systemMetadata.", "summaryMetrics.", "summary_metrics."]);
    const term = document.components.schemas.FieldFilterTerm.properties;
    assert.deepEqual(term.operator.enum, [
      "contains",
      "does not contain",
      "equals",
      "is",
      "is not",
      "starts with",
      "ends with",
      "regex",
      "is greater than",
      ">",
      "is less than",
      "<",
      "is greater than or equal to",
      ">=",
      "is less than or equal to",
      "<=",
      "is between",
      "is not between",
      "is before",
      "is on or before",
      "is after",
      "is on or after",
      "is any of",
      "is none of",
      "exists",
      "not exists",
    ]);
    assert.deepEqual(term.dataType.enum, ["text", "number", "date", "option"]);
  });

  it("lists a run whose statusUpdated is the latest instant allowed", async () => {
    const run = await client.createRun({ projectName: "far-future" });
    await client.post("/api/runs/status/update", { runId: run.runId, status: "COMPLETED", statusUpdated: 8_640_000_000_000_000 });
    const body = (await client.get("/api/runs/list", { projectName: "far-future" })).body;
    assert.equal(body.runs[0].statusUpdated, new Date(8_640_000_000_000_000).toISOString());
  });

  it("prepares a fixed set of SQL texts whatever the number of tags, statuses and search terms", async () => {
    const store = test.server.store as SqliteStore | PostgresStore;
    const sqlOfRunList = () => new Set(store.preparedStatements().filter((sql) => /FROM runs r/.test(sql)));
    const statuses = ["RUNNING", "COMPLETED", "FAILED", "TERMINATED", "CANCELLED"];
    const variants = (n: number) => ({
      tags: Array.from({ length: n }, (_, i) => (i === 0 ? "cv" : `t${i}`)).join(","),
      status: statuses.slice(0, (n % statuses.length) + 1).join(","),
      search: "e".repeat((n % 3) + 1),
    });
    // Warm up every shape once (narrowed or not, each column order, the candidate scan of a filter).
    for (const sort of ["createdAt", "-createdAt", "name", "-name", "status", "-status", "updatedAt", "-updatedAt"]) {
      await list({ sort, ...variants(1) });
      await list({ sort });
    }
    await list({ ...variants(1), filter: '{"status": "COMPLETED"}' });
    const warm = sqlOfRunList();
    for (let n = 1; n <= 200; n++) {
      const query = variants(n);
      const expected = newestFirst(
        SPECS.filter(
          (s) =>
            s.name.toLowerCase().includes(query.search) &&
            s.tags.some((t) => query.tags.split(",").includes(t)) &&
            query.status.split(",").includes(s.status),
        ),
      );
      assert.deepEqual(await names(query), expected, `${n} tags`);
      assert.deepEqual(await names({ ...query, filter: '{"displayName": {"$ne": "none"}}' }), expected, `${n} tags, filtered`);
    }
    assert.deepEqual([...sqlOfRunList()].sort(), [...warm].sort(), "no new SQL text for new list lengths");
    assert.ok(store.preparedStatements().length <= STATEMENT_CACHE_CAP);
  });

  it("keeps other organizations out", async () => {
    const other = await makeOrg(test);
    assert.equal((await other.client.get("/api/runs/list", { projectName: "list" })).status, 404);
    await other.client.createRun({ projectName: "list", runName: "theirs" });
    const theirs = await other.client.get("/api/runs/list", { projectName: "list" });
    assert.deepEqual(
      theirs.body.runs.map((r: { name: string }) => r.name),
      ["theirs"],
    );
    assert.equal(theirs.body.total, 1);
    assert.equal((await client.withKey(undefined).get("/api/runs/list", { projectName: "list" })).status, 401);
  });
});
