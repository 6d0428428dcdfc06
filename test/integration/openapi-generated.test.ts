import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiClient } from "../helpers/client.js";
import {
  baseline as generatedBaseline,
  bearer,
  type Fixture,
  type Json,
  makeFixture,
  type Operation,
  operationsOf,
  type Request,
  type Schema,
  send as sendRequest,
} from "../helpers/openapi-requests.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";
import { writeCounter, type WriteCounter } from "../helpers/write-counter.js";

/**
 * Generated from the OpenAPI document the server publishes, so a new route, parameter or body
 * field is covered without touching this file: every query parameter, path parameter, header,
 * JSON body value and key (inside JSON-text fields and NDJSON lines too) of every operation gets
 * each name Object.prototype answers to. None may give a 5xx; a refused request (4xx) must commit
 * nothing; the process's Object.prototype must stay as it was; another organization's data must
 * read back the same. Values come from the schemas (their `examples` first), and parameters that
 * must name something real (runId, projectName, ...) are filled from a fixture run, so requests get
 * past look-ups into the code under them.
 */

/**
 * Operations whose valid request is refused by design on this test server, in their handler (so
 * the variants still reach it): single sign-on is off here (docs/api.md, "Single sign-on"), and
 * the test sends a key, which has no browser session to move to another organization.
 */
const BASELINE_REFUSED = new Map([
  ["GET /api/auth/oidc/start", 404],
  ["GET /api/auth/oidc/callback", 404],
  ["POST /api/auth/session/organization", 400],
]);

/** POST routes that take nothing but their path: they answer from the credentials alone. */
const BODYLESS_POSTS = new Set(["/api/slug", "/api/auth/sign-out"]);

const HOSTILE = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"];

/** Every way to put one hostile word into a JSON value: as each value, as a new key of each object, in place of each key. */
function* mutations(value: Json, word: string): Generator<Json> {
  if (typeof value === "string") {
    yield word;
    const inner = parseJsonText(value);
    if (inner !== undefined) for (const changed of mutations(inner, word)) yield JSON.stringify(changed);
    return;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      for (const changed of mutations(item, word)) yield value.map((other, i) => (i === index ? changed : other));
    }
    if (value.length === 0) yield [word];
    return;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    yield Object.fromEntries([...entries, [word, 1]]);
    for (const [index, [key, child]] of entries.entries()) {
      yield Object.fromEntries(entries.map((entry, i) => (i === index ? [word, entry[1]] : entry)));
      for (const changed of mutations(child, word))
        yield Object.fromEntries(entries.map((entry, i) => (i === index ? [key, changed] : entry)));
    }
    return;
  }
  yield word;
}

function parseJsonText(text: string): Json | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

describe("generated from the OpenAPI document: Object.prototype names everywhere", () => {
  let test: TestServer;
  let client: ApiClient;
  let operations: Operation[];
  let writes: WriteCounter;
  let fixture: Fixture;

  before(async () => {
    // No stale-run monitor: its lease renewal is a write of its own, and one landing between a
    // refused request and the write check below reads as "refused but wrote" (seen once under load).
    // No alert delivery either (--alerts-concurrency 0): its claims and outcomes are writes too.
    test = await startTestServer({ flags: { "--stale-after": "0", "--alerts-concurrency": "0" } });
    const org = await makeOrg(test);
    client = org.client;
    fixture = await makeFixture(test, org);
    operations = operationsOf((await client.get<Parameters<typeof operationsOf>[0]>("/api/openapi.json")).body);
    writes = await writeCounter(test);
  });
  after(async () => {
    await writes?.close();
    await test.close();
  });

  const baseline = (operation: Operation) => generatedBaseline(operation, fixture);
  const send = (operation: Operation, request: Request, key: string | undefined) => sendRequest(test.url, operation, request, bearer(key));

  /** Every variant of the baseline with one slot holding `word`. */
  function* variants(operation: Operation, word: string): Generator<[string, Request]> {
    const base = baseline(operation);
    for (const slot of ["query", "path", "headers"] as const) {
      const names = new Set([...base[slot].keys(), ...operation.parameters.filter((p) => `${p.in}s`.startsWith(slot)).map((p) => p.name)]);
      for (const name of names) yield [`${slot} ${name}`, { ...base, [slot]: new Map([...base[slot], [name, word]]) }];
    }
    yield ["header x-request-id", { ...base, headers: new Map([...base.headers, ["x-request-id", word]]) }];
    yield ["header authorization", { ...base, headers: new Map([...base.headers, ["authorization", `Bearer ${word}`]]) }];
    if (base.body !== undefined) {
      let index = 0;
      for (const body of mutations(base.body, word))
        yield [`body variant ${index++}: ${JSON.stringify(body).slice(0, 200)}`, { ...base, body }];
    }
  }

  /** What organization `default` (not the one under attack) holds, read through the API. */
  async function otherOrganization(): Promise<string> {
    const projects = await test.client.get("/api/runs/projects");
    const runs = await Promise.all(
      (projects.body.projects as { name: string }[]).map((project) =>
        test.client.get("/api/runs/list", { projectName: project.name, includeFieldValues: true }),
      ),
    );
    return JSON.stringify([projects.body, runs.map((list) => list.body)]);
  }

  it("the document lists the routes this test must reach", () => {
    assert.ok(operations.length >= 30, `only ${operations.length} operations`);
    for (const operation of operations.filter((op) => op.path !== "/api/openapi.json")) {
      assert.ok(
        operation.parameters.length > 0 || operation.body || operation.method === "GET" || BODYLESS_POSTS.has(operation.path),
        operation.path,
      );
    }
  });

  it("every baseline request succeeds, so the variants reach the handlers", async () => {
    const failed: string[] = [];
    for (const operation of operations) {
      const answer = await send(operation, baseline(operation), operation.secured ? client.key : undefined);
      const expected = BASELINE_REFUSED.get(`${operation.method} ${operation.path}`);
      if (expected !== undefined ? answer.status !== expected : answer.status >= 300)
        failed.push(`${operation.method} ${operation.path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    assert.deepEqual(failed, []);
  });

  it("every integer a client sends is bounded above and below in its schema", () => {
    const unbounded: string[] = [];
    const visit = (schema: Schema | undefined, where: string): void => {
      if (!schema || typeof schema !== "object") return;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes("integer") && (schema.maximum === undefined || schema.minimum === undefined)) unbounded.push(where);
      for (const [name, property] of Object.entries(schema.properties ?? {})) visit(property, `${where}.${name}`);
      if (typeof schema.additionalProperties === "object") visit(schema.additionalProperties, `${where}.*`);
      visit(schema.items, `${where}[]`);
      for (const [index, branch] of (schema.anyOf ?? schema.oneOf ?? []).entries()) visit(branch, `${where}|${index}`);
    };
    for (const operation of operations) {
      for (const parameter of operation.parameters)
        visit(parameter.schema, `${operation.method} ${operation.path} ${parameter.in} ${parameter.name}`);
      visit(operation.body, `${operation.method} ${operation.path} body`);
    }
    assert.deepEqual(unbounded, []);
  });

  it("integers past any bound in parameters are a 400, not a 500", async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      for (const parameter of operation.parameters.filter((p) => [p.schema.type].flat().includes("integer"))) {
        // Past the schema's own bounds too: a time (EpochMs) one past the latest date a JavaScript date holds.
        const { minimum, maximum } = parameter.schema;
        const ownBounds = [maximum === undefined ? [] : [maximum + 1], minimum === undefined ? [] : [minimum - 1]].flat();
        for (const value of [
          "9223372036854775808",
          "-9223372036854775809",
          "1e400",
          "9007199254740993",
          ...ownBounds.filter(Number.isSafeInteger).map(String),
        ]) {
          const request = baseline(operation);
          const slot = parameter.in === "query" ? request.query : parameter.in === "path" ? request.path : request.headers;
          slot.set(parameter.name, value);
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          if (answer.status !== 400)
            failures.push(
              `${operation.method} ${operation.path} ${parameter.name}=${value}: ${answer.status} ${answer.text.slice(0, 200)}`,
            );
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  /** A wrong password's 401 is a write on purpose: the failure is counted in the store (docs/semantics.md, "Sign-in limits"). */
  const recordsRefusal = (operation: Operation, status: number) =>
    operation.method === "POST" && operation.path === "/api/auth/sign-in" && status === 401;

  /** `/ingest/data` keeps `data` as opaque text, stored as sent: an escape inside it is six characters, not a NUL. */
  const insideOpaqueText = (operation: Operation, request: Request, word: string) =>
    operation.path === "/ingest/data" &&
    typeof request.body === "string" &&
    String(JSON.parse(request.body).data).includes(JSON.stringify(word).slice(1, -1));

  it("ill-formed text (NUL, an unpaired surrogate) in any query, path or body slot is a 4xx that writes nothing; a long one never a 5xx", async () => {
    const failures: string[] = [];
    let refused = 0;
    for (const operation of operations) {
      for (const word of ["a\u0000b", "\ud800", "x\udfffy", "x".repeat(70_000)]) {
        for (const [slot, request] of variants(operation, word)) {
          // HTTP cannot carry these in a header (fetch refuses to send them), nor a URL an unpaired surrogate.
          if (slot.startsWith("header") || (!slot.startsWith("body") && /[\ud800-\udfff]/.test(word))) continue;
          const version = await writes.read();
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          const where = `${operation.method} ${operation.path} ${slot} = ${JSON.stringify(word.slice(0, 8))}`;
          if (answer.status >= 500) failures.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (word.length < 10 && answer.status < 400 && !insideOpaqueText(operation, request, word))
            failures.push(`${where}: accepted with ${answer.status}`);
          else if (answer.status >= 400 && (await writes.read()) !== version)
            failures.push(`${where}: refused with ${answer.status} but wrote`);
          if (answer.status === 400 && /U\+0000 \(NUL\) or an unpaired surrogate/.test(answer.text)) refused++;
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(refused > 100, `only ${refused} refusals name the text rule`);
  });

  it("no 5xx, no write on refusal, no prototype change, no change to another organization", async () => {
    await test.client.createRun({ projectName: "bystander", config: JSON.stringify({ a: { b: 1 } }) });
    const otherBefore = await otherOrganization();
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).join();
    const failures: string[] = [];
    let requests = 0;
    for (const operation of operations) {
      for (const word of HOSTILE) {
        for (const [slot, request] of variants(operation, word)) {
          const version = await writes.read();
          const answer = await send(operation, request, operation.secured ? client.key : undefined);
          requests++;
          const where = `${operation.method} ${operation.path} ${slot} = ${word}`;
          if (answer.status >= 500) failures.push(`${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (answer.status >= 400 && !recordsRefusal(operation, answer.status) && (await writes.read()) !== version)
            failures.push(`${where}: refused with ${answer.status} but wrote`);
        }
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(Object.getOwnPropertyNames(Object.prototype).join(), prototypeBefore);
    assert.equal(await otherOrganization(), otherBefore);
    assert.ok(requests > 1000, `only ${requests} requests`);
  });
});
