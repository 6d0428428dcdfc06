import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import { startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * Hostile input on every route of MLflow's API (these routes are not in the OpenAPI document, so
 * the generated sweep of test/integration/hostile-input does not reach them): each field of a valid
 * request replaced by values of the wrong type, prototype names, operators, huge and non-finite
 * numbers, and bodies that are not JSON objects. Every answer is MLflow's error body with a 4xx, or
 * a success; never a 500, and the server keeps answering.
 */

const API = "/api/2.0/mlflow";

const HOSTILE: unknown[] = [
  null,
  true,
  -1,
  1.5,
  1e308,
  "",
  "__proto__",
  "constructor",
  "toString",
  "x".repeat(300),
  "../../etc/passwd",
  "1; DROP TABLE runs",
  [],
  ["constructor"],
  {},
  { $gt: "" },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`),
  "a\u0000b",
  "\ud800",
  "x".repeat(100_000),
  Number.MAX_SAFE_INTEGER,
  8_640_000_000_000_001,
];

describe("MLflow's API under hostile input", () => {
  let test: TestServer;
  let client: ApiClient;
  let experimentId: string;
  let runId: string;
  let modelId: string;
  before(async () => {
    test = await startTestServer();
    client = test.client;
    experimentId = (await client.post(`${API}/experiments/create`, { name: "hostile" })).body.experiment_id;
    runId = (await client.post(`${API}/runs/create`, { experiment_id: experimentId, start_time: 1 })).body.run.info.run_id;
    await client.post(`${API}/runs/log-metric`, { run_id: runId, key: "m", value: 1, timestamp: 1, step: 0 });
    modelId = (await client.post(`${API}/logged-models`, { experiment_id: experimentId, source_run_id: runId })).body.model.info.model_id;
  });
  after(async () => test.close());

  const posts = (): [string, Record<string, unknown>][] => [
    ["/experiments/create", { name: "e", artifact_location: "", tags: [{ key: "k", value: "v" }] }],
    ["/experiments/update", { experiment_id: experimentId, new_name: "hostile" }],
    ["/experiments/search", { max_results: 10, filter: "name = 'x'", order_by: ["name"], view_type: "ALL", page_token: "" }],
    ["/experiments/set-experiment-tag", { experiment_id: experimentId, key: "k", value: "v" }],
    ["/experiments/delete-experiment-tag", { experiment_id: experimentId, key: "k" }],
    ["/runs/create", { experiment_id: experimentId, start_time: 1, run_name: "r", tags: [{ key: "k", value: "v" }], user_id: "u" }],
    ["/runs/update", { run_id: runId, status: "RUNNING", end_time: 2, run_name: "r" }],
    ["/runs/log-metric", { run_id: runId, key: "m", value: 2, timestamp: 1, step: 1 }],
    ["/runs/log-parameter", { run_id: runId, key: "p", value: "1" }],
    ["/runs/set-tag", { run_id: runId, key: "t", value: "x" }],
    ["/runs/delete-tag", { run_id: runId, key: "t" }],
    [
      "/runs/log-batch",
      {
        run_id: runId,
        metrics: [{ key: "m", value: 3, timestamp: 1, step: 2 }],
        params: [{ key: "q", value: "1" }],
        tags: [{ key: "t", value: "v" }],
      },
    ],
    ["/runs/log-inputs", { run_id: runId, datasets: [{ dataset: { name: "d", digest: "x", source_type: "local", source: "s" } }] }],
    ["/runs/log-model", { run_id: runId, model_json: "{}" }],
    [
      "/runs/search",
      { experiment_ids: [experimentId], filter: "metrics.m > 0", order_by: ["metrics.m DESC"], max_results: 5, page_token: "" },
    ],
    [
      "/logged-models/search",
      {
        experiment_ids: [experimentId],
        filter: "name = 'x'",
        order_by: [{ field_name: "name", ascending: false }],
        datasets: [{ dataset_name: "d" }],
        max_results: 5,
        page_token: "",
      },
    ],
    [
      "/logged-models",
      {
        experiment_id: experimentId,
        name: "m",
        model_type: "t",
        source_run_id: runId,
        params: [{ key: "p", value: "1" }],
        tags: [{ key: "k", value: "v" }],
      },
    ],
    [`/logged-models/${modelId}/params`, { model_id: modelId, params: [{ key: "p", value: "1" }] }],
    ["/runs/outputs", { run_id: runId, models: [{ model_id: modelId, step: 0 }] }],
  ];
  const gets = (): [string, Record<string, string>][] => [
    ["/experiments/get", { experiment_id: experimentId }],
    ["/experiments/get-by-name", { experiment_name: "hostile" }],
    ["/experiments/search", { max_results: "10", view_type: "ALL" }],
    ["/runs/get", { run_id: runId }],
    ["/metrics/get-history", { run_id: runId, metric_key: "m", max_results: "10", page_token: "" }],
    ["/metrics/get-history-bulk-interval", { run_ids: runId, metric_key: "m", max_results: "10", start_step: "0", end_step: "5" }],
    ["/artifacts/list", { run_id: runId, path: "" }],
    [`/logged-models/${modelId}`, { allow_deleted: "true" }],
    [`/logged-models/${modelId}/artifacts/directories`, { artifact_directory_path: "" }],
    [`/logged-models/${modelId}/artifacts/files`, { artifact_file_path: "MLmodel" }],
  ];

  const checkAnswer = (what: string, status: number, body: { error_code?: unknown; message?: unknown }) => {
    assert.ok(status < 500, `${what}: ${status} ${JSON.stringify(body).slice(0, 300)}`);
    if (status >= 400)
      assert.equal(typeof body.error_code, "string", `${what}: MLflow's error body, got ${JSON.stringify(body).slice(0, 300)}`);
  };

  it("answers every wrong-typed or hostile field of every POST route with a 4xx in MLflow's body, never a 500", async () => {
    for (const [path, body] of posts())
      for (const field of Object.keys(body))
        for (const value of HOSTILE) {
          const response = await client.post(`${API}${path}`, { ...body, [field]: value });
          checkAnswer(`POST ${path} ${field}=${JSON.stringify(value).slice(0, 40)}`, response.status, response.body);
        }
  });

  it("refuses NUL and unpaired surrogates in every field of every POST route with MLflow's error", async () => {
    const accepted: string[] = [];
    for (const [path, body] of posts())
      for (const field of Object.keys(body))
        for (const word of ["a\u0000b", "\udfff"]) {
          const response = await client.post(`${API}${path}`, { ...body, [field]: word });
          if (response.status < 400) accepted.push(`POST ${path} ${field}=${JSON.stringify(word)}: ${response.status}`);
          else checkAnswer(`POST ${path} ${field}`, response.status, response.body);
        }
    assert.deepEqual(accepted, []);
  });

  it("answers hostile query values of every GET route likewise", async () => {
    for (const [path, query] of gets())
      for (const field of Object.keys(query))
        for (const value of ["", "-1", "1e308", "NaN", "__proto__", "constructor", "x".repeat(5000), "[]", "{}", "%00", "a\u0000b"]) {
          const response = await client.get(`${API}${path}`, { ...query, [field]: value });
          checkAnswer(`GET ${path} ${field}=${value.slice(0, 40)}`, response.status, response.body);
        }
  });

  it("answers bodies that are not JSON objects with MALFORMED_REQUEST (or 400 for a content type that is not JSON)", async () => {
    for (const [path] of posts())
      for (const raw of ["[]", '"x"', '"[1]"', "1", "true", "{", '{"run_id":'])
        for (const contentType of ["application/json", "text/plain"]) {
          const response = await client.raw("POST", `${API}${path}`, raw, { "content-type": contentType });
          checkAnswer(`POST ${path} body ${raw} as ${contentType}`, response.status, response.body);
          assert.ok(response.status >= 400, `POST ${path} body ${raw}: refused, got ${response.status}`);
        }
    // As MLflow's server: a null body is an empty request, and a double-encoded one is decoded once more.
    assert.equal((await client.raw("POST", `${API}/experiments/search`, "null", { "content-type": "application/json" })).status, 200);
    const doubled = await client.raw("POST", `${API}/experiments/search`, JSON.stringify(JSON.stringify({ max_results: 1 })), {
      "content-type": "application/json",
    });
    assert.deepEqual([doubled.status, doubled.body.experiments?.length], [200, 1]);
    const health = await client.get("/api/health");
    assert.equal(health.status, 200, "still answering");
  });
});
