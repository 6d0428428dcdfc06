import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

/** MLflow's runs/search over HTTP: the filter grammar per operator and type, order_by, view types, paging over 200+ runs. */

const API = "/api/2.0/mlflow";
const RUNS = 210;

describe("MLflow's run search", () => {
  let test: TestServer;
  let client: ApiClient;
  let experimentId: string;
  /** Run IDs by index: run i has param i = String(i), metric m = i (NaN for i = 7), tag parity, status by i % 3. */
  const ids: string[] = [];

  const search = async (body: Record<string, unknown>) => {
    const response = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], max_results: 1000, ...body });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    return response.body as { runs: { info: { run_id: string; run_name: string; status: string } }[]; next_page_token?: string };
  };
  const indexes = async (filter: string, extra: Record<string, unknown> = {}) =>
    (await search({ filter, ...extra })).runs.map((r) => ids.indexOf(r.info.run_id)).sort((a, b) => a - b);

  before(async () => {
    test = await startTestServer();
    client = (await makeOrg(test)).client;
    experimentId = (await client.post(`${API}/experiments/create`, { name: "search" })).body.experiment_id;
    for (let i = 0; i < RUNS; i++) {
      const created = await client.post(`${API}/runs/create`, {
        experiment_id: experimentId,
        run_name: `run-${String(i).padStart(3, "0")}`,
        start_time: 1_700_000_000_000 + i * 1000,
        tags: [{ key: "parity", value: i % 2 === 0 ? "even" : "odd" }],
      });
      const runId = created.body.run.info.run_id as string;
      ids.push(runId);
      await client.post(`${API}/runs/log-batch`, {
        run_id: runId,
        params: [
          { key: "i", value: String(i) },
          { key: "model name", value: i < 10 ? "ResNet-small" : "resnet-large" },
        ],
        metrics: [
          { key: "m", value: i === 7 ? "NaN" : i, timestamp: 1, step: 0 },
          ...(i % 5 === 0 ? [{ key: "rare", value: i, timestamp: 1, step: 0 }] : []),
        ],
      });
      if (i % 3 === 1) await client.post(`${API}/runs/update`, { run_id: runId, status: "FINISHED", end_time: 1_800_000_000_000 + i });
      if (i % 3 === 2) await client.post(`${API}/runs/update`, { run_id: runId, status: "FAILED" });
    }
    await client.post(`${API}/runs/delete`, { run_id: ids[209] });
  });
  after(async () => test.close());

  it("pages 209 active runs with every page token, never repeating or skipping one, in start-time order", async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await search({ max_results: 25, page_token: token });
      seen.push(...page.runs.map((r) => r.info.run_id));
      token = page.next_page_token;
      pages++;
    } while (token);
    assert.equal(pages, 9);
    assert.equal(seen.length, 209);
    assert.equal(new Set(seen).size, 209, "no run twice");
    assert.deepEqual(seen, ids.slice(0, 209).reverse(), "newest first by default");
  });

  it("keeps paging stable while new runs arrive between pages", async () => {
    const first = await search({ max_results: 100, order_by: ["params.i ASC"], filter: "params.i LIKE '1%'" });
    const extra = await client.post(`${API}/runs/create`, { experiment_id: experimentId, run_name: "late", start_time: 1_600_000_000_000 });
    await client.post(`${API}/runs/log-parameter`, { run_id: extra.body.run.info.run_id, key: "i", value: "1!" });
    const second = await search({
      max_results: 100,
      order_by: ["params.i ASC"],
      filter: "params.i LIKE '1%'",
      page_token: first.next_page_token,
    });
    const all = [...first.runs, ...second.runs].map((r) => r.info.run_id);
    assert.equal(new Set(all).size, all.length, "no run twice, though one sorting before the cursor arrived");
    assert.equal(all.length, ids.slice(0, 209).filter((_, i) => String(i).startsWith("1")).length);
    await client.post(`${API}/runs/delete`, { run_id: extra.body.run.info.run_id });
  });

  it("filters metrics with = != > >= < <=", async () => {
    assert.deepEqual(await indexes("metrics.m = 3"), [3]);
    assert.deepEqual((await indexes("metrics.m != 3")).length, 208, "every active run but 3 (the NaN one is not 3)");
    assert.deepEqual(await indexes("metrics.m > 206"), [207, 208]);
    assert.deepEqual(await indexes("metrics.m >= 207"), [207, 208]);
    assert.deepEqual(await indexes("metrics.m < 2"), [0, 1]);
    assert.deepEqual(await indexes("metrics.m <= 1.5"), [0, 1]);
    assert.deepEqual(await indexes("metrics.rare >= 200"), [200, 205], "runs without the metric never match");
  });

  it("filters params and tags with = != LIKE ILIKE, quoted keys included", async () => {
    assert.deepEqual(await indexes("params.i = '42'"), [42]);
    assert.deepEqual(await indexes("params.i LIKE '20_'"), [200, 201, 202, 203, 204, 205, 206, 207, 208]);
    assert.deepEqual((await indexes("params.i != '0'")).length, 208);
    assert.deepEqual((await indexes("params.`model name` LIKE 'ResNet%'")).length, 10, "LIKE is case-sensitive");
    assert.deepEqual((await indexes("params.\"model name\" ILIKE 'resnet%'")).length, 209);
    assert.deepEqual((await indexes("tags.parity = 'odd'")).length, 104);
    assert.deepEqual((await indexes("tags.parity != 'odd' AND params.i LIKE '1_'")).length, 5);
    assert.deepEqual(await indexes("tags.parity ILIKE 'EVEN' AND metrics.m < 5"), [0, 2, 4]);
  });

  it("filters params and tags with IS NULL and IS NOT NULL (MLflow 3's grammar); other entities refuse them", async () => {
    for (const i of [3, 5]) await client.post(`${API}/runs/set-tag`, { run_id: ids[i], key: "flag", value: "x" });
    assert.deepEqual(await indexes("tags.flag IS NOT NULL"), [3, 5]);
    assert.equal((await indexes("tags.flag is null")).length, 207);
    assert.equal((await indexes("params.i IS NOT NULL AND params.absent IS NULL")).length, 209);
    assert.deepEqual(await indexes("params.i IS NULL"), []);
    const refused = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], filter: "metrics.m IS NULL" });
    assert.equal(refused.body.error_code, "INVALID_PARAMETER_VALUE");
    const tagged = (await client.post(`${API}/experiments/create`, { name: "with-team", tags: [{ key: "team", value: "a" }] })).body
      .experiment_id;
    const experiments = await client.post(`${API}/experiments/search`, { filter: "tags.team IS NOT NULL" });
    assert.deepEqual(
      experiments.body.experiments.map((e: { experiment_id: string }) => e.experiment_id),
      [tagged],
    );
  });

  it("filters attributes: status, run_name, run_id with IN and NOT IN, start_time and end_time numerically", async () => {
    assert.deepEqual(await indexes("attributes.status = 'FINISHED' AND metrics.m < 10"), [1, 4], "7 is NaN: not below 10");
    assert.deepEqual(await indexes("attributes.status IN ('FAILED', 'FINISHED') AND metrics.m < 4"), [1, 2]);
    assert.deepEqual(await indexes("attributes.status NOT IN ('FAILED', 'FINISHED') AND metrics.m < 7"), [0, 3, 6]);
    assert.deepEqual(await indexes("attributes.run_name = 'run-005'"), [5]);
    assert.deepEqual(await indexes(`attributes.run_id IN ('${ids[3]}', '${ids[4]}')`), [3, 4]);
    assert.deepEqual(await indexes("attributes.start_time < 1700000002000"), [0, 1]);
    assert.deepEqual(await indexes("attributes.end_time >= 1800000000205"), [205, 208]);
  });

  it("orders by metrics (NaN after numbers, missing last), params, attributes", async () => {
    const ascending = await search({ filter: "params.i LIKE '_'", order_by: ["metrics.m ASC"] });
    assert.deepEqual(
      ascending.runs.map((r) => ids.indexOf(r.info.run_id)),
      [0, 1, 2, 3, 4, 5, 6, 8, 9, 7],
    );
    const descending = await search({ filter: "params.i LIKE '_'", order_by: ["metrics.m DESC"] });
    assert.deepEqual(
      descending.runs.map((r) => ids.indexOf(r.info.run_id)),
      [7, 9, 8, 6, 5, 4, 3, 2, 1, 0],
    );
    const rare = await search({ filter: "params.i LIKE '_'", order_by: ["metrics.rare DESC"] });
    assert.deepEqual(rare.runs.map((r) => ids.indexOf(r.info.run_id)).slice(0, 2), [5, 0], "runs with the metric first");
    const byName = await search({ filter: "params.i LIKE '1_'", order_by: ["attributes.run_name DESC"] });
    assert.equal(byName.runs[0]!.info.run_name, "run-019");
    const byParam = await search({ filter: "params.i LIKE '1_'", order_by: ["params.`i` ASC"] });
    assert.equal(byParam.runs[0]!.info.run_name, "run-010");
  });

  it("filters datasets by name, digest and context, as MLflow's server: a run matches when one of its inputs does", async () => {
    const { client: own } = await makeOrg(test);
    const experiment = (await own.post(`${API}/experiments/create`, { name: "datasets" })).body.experiment_id as string;
    const dataset = (name: string, digest: string, context?: string) => ({
      tags: context === undefined ? [] : [{ key: "mlflow.data.context", value: context }],
      dataset: { name, digest, source_type: "local", source: `{"uri": "/data/${name}"}` },
    });
    const runs = new Map<string, string>();
    for (const [name, datasets] of [
      ["train-and-eval", [dataset("iris", "d1", "training"), dataset("iris-test", "d2", "eval")]],
      ["train-only", [dataset("iris", "d1", "training")]],
      ["other-digest", [dataset("iris", "d9", "Training")]],
      ["no-context", [dataset("wine", "w1")]],
      ["no-datasets", []],
    ] as const) {
      const runId = (await own.post(`${API}/runs/create`, { experiment_id: experiment, run_name: name })).body.run.info.run_id as string;
      runs.set(runId, name);
      if (datasets.length > 0) assert.equal((await own.post(`${API}/runs/log-inputs`, { run_id: runId, datasets })).status, 200, name);
    }
    const names = async (filter: string) => {
      const response = await own.post(`${API}/runs/search`, { experiment_ids: [experiment], filter });
      assert.equal(response.status, 200, `${filter}: ${JSON.stringify(response.body)}`);
      return response.body.runs.map((r: { info: { run_id: string } }) => runs.get(r.info.run_id)).sort();
    };
    assert.deepEqual(await names("datasets.name = 'iris'"), ["other-digest", "train-and-eval", "train-only"]);
    assert.deepEqual(await names("dataset.name = 'iris' AND datasets.digest = 'd1'"), ["train-and-eval", "train-only"]);
    assert.deepEqual(await names("datasets.digest IN ('d2', 'w1')"), ["no-context", "train-and-eval"]);
    assert.deepEqual(
      await names("datasets.name != 'iris'"),
      ["no-context", "train-and-eval"],
      "a run with any other dataset; a run without datasets matches no datasets clause",
    );
    assert.deepEqual(await names("datasets.name NOT IN ('iris', 'wine')"), ["train-and-eval"]);
    assert.deepEqual(await names("datasets.name LIKE 'iris%'"), ["other-digest", "train-and-eval", "train-only"]);
    assert.deepEqual(await names("datasets.context = 'training'"), ["train-and-eval", "train-only"]);
    assert.deepEqual(await names("datasets.context ILIKE 'TRAIN%'"), ["other-digest", "train-and-eval", "train-only"]);
    assert.deepEqual(await names("datasets.context LIKE 'Train%'"), ["other-digest"], "LIKE is case-sensitive");
    assert.deepEqual(
      await names("datasets.context != 'training'"),
      ["other-digest", "train-and-eval"],
      "an input without context has none",
    );
    assert.deepEqual(await names("datasets.`context` IN ('eval') AND attributes.run_name LIKE 'train%'"), ["train-and-eval"]);
    for (const filter of ["datasets.source = 'x'", "datasets.name > 'a'", "datasets.name = 5"]) {
      const response = await own.post(`${API}/runs/search`, { experiment_ids: [experiment], filter });
      assert.deepEqual([response.status, response.body.error_code], [400, "INVALID_PARAMETER_VALUE"], filter);
    }
    const ordered = await own.post(`${API}/runs/search`, { experiment_ids: [experiment], order_by: ["datasets.name"] });
    assert.deepEqual([ordered.status, ordered.body.error_code], [400, "INVALID_PARAMETER_VALUE"], "no order by datasets");
  });

  it("honours run view types", async () => {
    assert.deepEqual(await indexes("params.i = '209'"), []);
    assert.deepEqual(await indexes("params.i = '209'", { run_view_type: "DELETED_ONLY" }), [209]);
    assert.equal((await search({ run_view_type: "ALL" })).runs.length, 210 + 1);
    const bad = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], run_view_type: "SOME" });
    assert.equal(bad.body.error_code, "INVALID_PARAMETER_VALUE");
  });

  it("answers an invalid filter, order_by, max_results or page token with INVALID_PARAMETER_VALUE, never a 500", async () => {
    for (const body of [
      { filter: "metrics.m < 3 OR metrics.m > 5" },
      { filter: "metrics.m < 'x'" },
      { filter: "params.i > '1'" },
      { filter: "attributes.bogus = 'x'" },
      { filter: "((" },
      { filter: "params.i = 'a" },
      { order_by: ["metrics.m SIDEWAYS"] },
      { order_by: [5] },
      { max_results: 50_001 },
      { max_results: 0 },
      { page_token: "garbage!" },
      { page_token: Buffer.from(JSON.stringify({ after: [1] })).toString("base64") },
      { filter: 5 },
    ]) {
      const response = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], ...body });
      assert.deepEqual([response.status, response.body.error_code], [400, "INVALID_PARAMETER_VALUE"], JSON.stringify(body));
    }
    const unknown = await client.post(`${API}/runs/search`, { experiment_ids: ["424242"] });
    assert.equal(unknown.body.error_code, "RESOURCE_DOES_NOT_EXIST");
  });

  it("answers each run's latest metrics with the client time of that point, as runs/get does", async () => {
    const { client: own } = await makeOrg(test);
    const experiment = (await own.post(`${API}/experiments/create`, { name: "latest" })).body.experiment_id as string;
    const runId = (await own.post(`${API}/runs/create`, { experiment_id: experiment })).body.run.info.run_id as string;
    const log = async (metrics: { value: number | string; timestamp: number; step: number }[]) =>
      assert.equal(
        (await own.post(`${API}/runs/log-batch`, { run_id: runId, metrics: metrics.map((m) => ({ key: "m", ...m })) })).status,
        200,
      );
    const latest = async () => {
      const found = await own.post(`${API}/runs/search`, { experiment_ids: [experiment], filter: `attributes.run_id = '${runId}'` });
      const got = (await own.get(`${API}/runs/get`, { run_id: runId })).body.run.data.metrics;
      assert.deepEqual(found.body.runs[0].data.metrics, got, "search and runs/get agree");
      return got;
    };
    await log([0, 1, 2, 3].map((step) => ({ value: step, timestamp: 1000 + step, step })));
    assert.deepEqual(await latest(), [{ key: "m", value: 3, timestamp: 1003, step: 3 }]);
    await log([{ value: 9, timestamp: 2000, step: 3 }]); // the last step sent again: its new time
    assert.deepEqual(await latest(), [{ key: "m", value: 9, timestamp: 2000, step: 3 }]);
    await log([{ value: 5, timestamp: 3000, step: 1 }]); // an earlier step: the latest point is unchanged
    assert.deepEqual(await latest(), [{ key: "m", value: 9, timestamp: 2000, step: 3 }]);
    await log([{ value: "NaN", timestamp: 4000, step: 4 }]);
    assert.deepEqual(await latest(), [{ key: "m", value: "NaN", timestamp: 4000, step: 4 }]);

    // Logged through Stepwise's protocol, and a fork's inherited points (the summary of a lineage keeps no time: the point is read).
    const parent = await own.createRun({ projectName: "latest", runName: "parent" });
    await ingest(own, "metrics", parent, toNdjson([1, 2, 3].map((step) => ({ step, time: 5000 + step, data: { n: step } }))));
    await own.createRun({ projectName: "latest", runName: "child", forkRunId: parent.runId, forkStep: 2 });
    const found = (await own.post(`${API}/runs/search`, { experiment_ids: [experiment], filter: "attributes.run_name != 'x'" })).body.runs;
    const metricsOf = new Map(
      found.map((run: { info: { run_name: string }; data: { metrics: unknown } }) => [run.info.run_name, run.data.metrics]),
    );
    assert.deepEqual(metricsOf.get("parent"), [{ key: "n", value: 3, timestamp: 5003, step: 3 }]);
    assert.deepEqual(metricsOf.get("child"), [{ key: "n", value: 2, timestamp: 5002, step: 2 }]);
  });

  it("accepts max_results up to 50,000 and returns the run data MLflow's client reads", async () => {
    const page = await client.post(`${API}/runs/search`, { experiment_ids: [experimentId], max_results: 50_000, filter: "params.i = '7'" });
    assert.equal(page.status, 200);
    const run = page.body.runs[0];
    assert.deepEqual(run.data.metrics, [{ key: "m", value: "NaN", timestamp: 1, step: 0 }]);
    assert.deepEqual(
      run.data.params.map((p: { key: string }) => p.key),
      ["i", "model name"],
    );
    assert.equal(run.info.status, "FINISHED");
  });
});
