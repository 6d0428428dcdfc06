import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { MIGRATION_LOCK } from "../../src/store/postgres/db.js";
import { PostgresStore } from "../../src/store/postgres/index.js";
import { ApiClient } from "../helpers/client.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { BIN, makeTempDir, spawnServe } from "../helpers/start-server.js";

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const UNREACHABLE = "postgres://postgres:hunter2@127.0.0.1:1/stepwise";

describe("choosing PostgreSQL with --database-url", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database.drop());

  it("config shows the database URL with its password masked, from the flag or the environment", async () => {
    const flag = await cli(["config", "--database-url", "postgres://bob:s3cret@db.example:5433/sw"]);
    assert.equal(flag.code, 0, flag.stderr);
    assert.match(flag.stdout, /--database-url\s+STEPWISE_DATABASE_URL\s+"postgres:\/\/bob:\*\*\*@db\.example:5433\/sw"/);
    assert.doesNotMatch(flag.stdout, /s3cret/);
    const env = await cli(["config"], { STEPWISE_DATABASE_URL: "postgres://bob:s3cret@db.example/sw" });
    assert.match(env.stdout, /"postgres:\/\/bob:\*\*\*@db\.example\/sw"/);
    const empty = await cli(["config"]);
    assert.match(empty.stdout, /--database-url\s+STEPWISE_DATABASE_URL\s+""/);
  });

  it("answers an unreachable database with one line naming host and port and a non-zero exit, for serve and the CLI", async () => {
    for (const args of [
      ["serve", "--port", "0", "--data-dir", makeTempDir()],
      ["orgs", "list"],
      ["keys", "list", "--org", "x"],
    ]) {
      const result = await cli([...args, "--database-url", UNREACHABLE]);
      assert.equal(result.code, 1, args.join(" "));
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, /cannot connect to PostgreSQL at 127\.0\.0\.1:1/);
      assert.doesNotMatch(result.stderr, /hunter2|\n\s+at /);
    }
    const wrong = await cli(["orgs", "list", "--database-url", "mysql://x@y/z"]);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /database-url must start with postgres:\/\//);
  });

  it("creates an organization with the CLI and serves it from the same database", async () => {
    const created = await cli(["orgs", "create", "acme", "--database-url", database.url]);
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trimEnd().split("\n").at(-1)!;
    const server = await spawnServe(["--port", "0", "--log-level", "warn", "--data-dir", makeTempDir(), "--database-url", database.url]);
    try {
      assert.match(server.stdout(), /listening on .* \(database postgres:\/\/postgres@127\.0\.0\.1:5432\/stepwise_test_/);
      const client = new ApiClient(server.url, key);
      const { runId } = await client.createRun({ projectName: "p", runName: "r" });
      assert.equal((await client.get(`/api/runs/details/${runId}`)).status, 200);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    const listed = await cli(["orgs", "list", "--json"], { STEPWISE_DATABASE_URL: database.url });
    assert.deepEqual(
      JSON.parse(listed.stdout)
        .map((o: { slug: string }) => o.slug)
        .sort(),
      ["acme"],
    );
  });

  it("migrates once when several processes start on a new database at the same time", async () => {
    const fresh = await createTestDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open(fresh.url)));
      await Promise.all(stores.map((store) => store.close()));
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      const { rows } = await client.query("SELECT version FROM schema_migrations ORDER BY version");
      await client.end();
      const files = readdirSync(new URL("../../src/store/postgres/migrations/", import.meta.url)).filter((file) => file.endsWith(".sql"));
      assert.deepEqual(
        rows.map((row) => row.version),
        files.map((file) => Number(file.slice(0, 4))).sort((a, b) => a - b),
        "each migration applied once",
      );
    } finally {
      await fresh.drop();
    }
  });

  it("waits for another process's migration however short the server's lock timeout", async () => {
    const fresh = await createTestDatabase();
    const other = new pg.Client({ connectionString: fresh.url });
    let unlocked: Promise<unknown> = Promise.resolve();
    try {
      await other.connect();
      await other.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]); // another process migrating
      // Held 500 ms, ten times the store's lock timeout: the time the lock is held is the point.
      unlocked = new Promise((resolve) => setTimeout(resolve, 500)).then(() =>
        other.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]),
      );
      const started = performance.now();
      const store = await PostgresStore.open(fresh.url, { lockTimeoutMs: 50, statementTimeoutMs: 100 });
      assert.ok(performance.now() - started >= 450, "it waited for the lock");
      assert.equal((await store.listOrganizations()).length, 0);
      await store.close();
    } finally {
      await unlocked;
      await other.end();
      await fresh.drop();
    }
  });

  it("refuses to start on a database with a newer schema, and says so", async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)");
    await client.end();
    try {
      const result = await cli(["serve", "--port", "0", "--data-dir", makeTempDir(), "--database-url", database.url]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /schema version 9999, newer than this Stepwise knows \(\d+\): upgrade Stepwise/);
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
    } finally {
      const cleanup = new pg.Client({ connectionString: database.url });
      await cleanup.connect();
      await cleanup.query("DELETE FROM schema_migrations WHERE version = 9999");
      await cleanup.end();
    }
  });
});
