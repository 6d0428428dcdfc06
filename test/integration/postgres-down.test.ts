import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server.js";
import pg from "pg";
import { ApiClient } from "../helpers/client.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { makeTempDir } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

/** A TCP proxy to the test PostgreSQL server that can be cut and restored, as a database outage would. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  constructor(private readonly target: URL) {}

  async listen(port = 0): Promise<number> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    return (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

describe("PostgreSQL going away and coming back", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: CuttableProxy;
  let port: number;
  let server: RunningServer;
  let client: ApiClient;
  before(async () => {
    database = await createTestDatabase();
    proxy = new CuttableProxy(new URL(database.url));
    port = await proxy.listen();
    const url = new URL(database.url);
    url.port = String(port);
    const config = loadConfig({ "--data-dir": makeTempDir(), "--port": "0", "--log-level": "silent", "--database-url": url.href }, {});
    server = await startServer(config);
    client = new ApiClient(server.url, server.bootstrapKey!);
  });
  after(async () => {
    await server.close();
    await proxy.cut().catch(() => {});
    await database.drop();
  });

  it("answers 503 with Retry-After while the database is unreachable, keeps liveness, and recovers when it is back", async () => {
    const run = await client.createRun({ projectName: "outage" });
    await proxy.cut();

    const write = await client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] });
    assert.equal(write.status, 503, JSON.stringify(write.body));
    assert.equal(write.headers.get("retry-after"), "5");
    assert.match(write.body.error, /store unreachable/);
    const points = await ingest(client, "metrics", run, toNdjson([{ step: 0, data: { loss: 1 } }]));
    assert.equal(points.status, 503, JSON.stringify(points.body));
    assert.equal(points.headers.get("retry-after"), "5");
    const read = await client.get(`/api/runs/details/${run.runId}`);
    assert.equal(read.status, 503, JSON.stringify(read.body));
    assert.match(read.body.error, /store unreachable/);
    assert.equal((await fetch(`${server.url}/api/health`)).status, 200);
    const ready = await fetch(`${server.url}/api/health/ready`);
    assert.equal(ready.status, 503);

    await proxy.listen(port);
    assert.equal((await client.post("/api/runs/tags/update", { runId: run.runId, tags: ["a"] })).status, 200);
    assert.equal((await fetch(`${server.url}/api/health/ready`)).status, 200);
  });

  it("answers 503, not 500, to a request whose connection is cut while its statement runs", async () => {
    const run = await client.createRun({ projectName: "outage" });
    // The request waits on the run's row, locked over a direct connection, when the proxy is cut.
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT id FROM runs WHERE id = $1 FOR UPDATE", [run.runId]);
      const pending = client.post("/api/runs/tags/update", { runId: run.runId, tags: ["cut"] });
      // pg_locks is read live (pg_stat_activity would be a snapshot inside this transaction).
      const blocked =
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY (pg_blocking_pids(pid))) AS waits";
      await waitFor(async () => (await other.query(blocked)).rows[0].waits, { what: "the request to wait on the locked row" });
      await proxy.cut();
      const write = await pending;
      assert.equal(write.status, 503, JSON.stringify(write.body));
      assert.equal(write.headers.get("retry-after"), "5");
      assert.match(write.body.error, /store unreachable/);
    } finally {
      await other.query("ROLLBACK");
      await other.end();
      await proxy.listen(port);
    }
    assert.equal((await client.post("/api/runs/tags/update", { runId: run.runId, tags: ["cut"] })).status, 200);
  });
});
