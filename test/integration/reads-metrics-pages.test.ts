import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, it } from "node:test";
import type { ApiResponse } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { makeOrg, startTestServer, type TestServer } from "../helpers/start-server.js";

const PAGE_BYTES = 4 * 1024 * 1024;
const METRICS = 1000;
const STEPS = 300;

/**
 * /metrics without logName on a run with many metrics once built one response of every sample
 * (220 MB, 21 s of a blocked server at 1,000 metrics × 5,000 steps). It now answers in pages of
 * whole metrics, each under 4 MiB, linked by nextOffset, and yields to other requests meanwhile.
 */
describe("GET /api/runs/metrics in pages", () => {
  let test: TestServer;
  let org: Awaited<ReturnType<typeof makeOrg>>;
  let query: { runId: number; projectName: string };
  const names = Array.from({ length: METRICS }, (_, m) => `layer${String(m).padStart(3, "0")}/grad_norm`);

  before(async () => {
    test = await startTestServer();
    org = await makeOrg(test);
    const run = await org.client.createRun({ projectName: "wide" });
    query = { runId: run.runId, projectName: "wide" };
    const lines = Array.from({ length: STEPS }, (_, step) => ({
      step,
      data: Object.fromEntries(names.map((name, m) => [name, Math.sin(step * (m + 1))])),
    }));
    for (let i = 0; i < STEPS; i += 100)
      assert.equal((await ingest(org.client, "metrics", run, toNdjson(lines.slice(i, i + 100)))).status, 200);
  });
  after(async () => test.close());

  it("pages whole metrics in name order under 4 MiB each, and the pages together hold every point", async () => {
    const seen = new Map<string, number>();
    const pageOf = new Map<string, number>();
    let offset: number | null = 0;
    let pages = 0;
    do {
      const response: ApiResponse = await org.client.get("/api/runs/metrics", { ...query, offset: offset ?? undefined });
      assert.equal(response.status, 200, JSON.stringify(response.body).slice(0, 300));
      assert.ok(Buffer.byteLength(JSON.stringify(response.body)) <= PAGE_BYTES, `page ${pages} is within 4 MiB`);
      for (const point of response.body.metrics) {
        seen.set(point.logName, (seen.get(point.logName) ?? 0) + 1);
        const page = pageOf.get(point.logName) ?? pages;
        assert.equal(page, pages, `${point.logName} lies on one page`);
        pageOf.set(point.logName, page);
      }
      offset = response.body.nextOffset;
      pages++;
    } while (offset !== null && pages < 100);
    assert.ok(pages > 1, `${pages} pages`);
    assert.deepEqual([...seen.keys()], names, "every metric once, in name order");
    for (const [name, count] of seen) assert.equal(count, STEPS, name);
  });

  it("answers one metric, or the last page, with nextOffset null; an offset past the end gives an empty page", async () => {
    const one = await org.client.get("/api/runs/metrics", { ...query, logName: names[7]! });
    assert.deepEqual([one.body.metrics.length, one.body.nextOffset], [STEPS, null]);
    const last = await org.client.get("/api/runs/metrics", { ...query, offset: METRICS - 1 });
    assert.deepEqual([new Set(last.body.metrics.map((p: { logName: string }) => p.logName)).size, last.body.nextOffset], [1, null]);
    const beyond = await org.client.get("/api/runs/metrics", { ...query, offset: METRICS + 5 });
    assert.deepEqual(beyond.body, { metrics: [], nextOffset: null });
    for (const offset of [-1, 2 ** 53]) assert.equal((await org.client.get("/api/runs/metrics", { ...query, offset })).status, 400);
  });

  it("answers other requests while it builds a page", async () => {
    // The server runs in this process: a page built in one synchronous stretch (as before paging,
    // when 1,000 metrics × 5,000 steps held it for 21 s) would answer the health check only after it.
    const finished: string[] = [];
    const received = once(test.server.app.server, "request");
    const page = org.client.get("/api/runs/metrics", { ...query, limit: 100 }).then((response) => {
      finished.push("page");
      return response;
    });
    await received; // the page's request is in the server before the health check is sent
    const health = org.client.get("/api/health").then((response) => {
      finished.push("health");
      return response;
    });
    assert.equal((await health).status, 200);
    assert.equal((await page).status, 200);
    assert.deepEqual(finished, ["health", "page"]);
  });
});
