import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config.js";
import type { Clock } from "../../src/domain/time.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { openConfiguredStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { ApiClient } from "./client.js";
import { createTestDatabase } from "./postgres.js";

/**
 * The store backend of test servers: SQLite in the data directory, or with
 * STEPWISE_TEST_BACKEND=postgres a fresh PostgreSQL database per server (`npm test` runs the
 * integration and end-to-end tests that start servers through these helpers once on each).
 */
export const TEST_BACKEND = process.env.STEPWISE_TEST_BACKEND === "postgres" ? "postgres" : "sqlite";

/** A clock tests move by hand (signed URL expiry, key expiry, stale runs). */
export class ManualClock implements Clock {
  constructor(private time = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export function makeTempDir(prefix = "stepwise-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestServer {
  url: string;
  dataDir: string;
  /** The server's PostgreSQL database, or "" when it runs on SQLite in dataDir (the value of --database-url either way). */
  databaseUrl: string;
  server: RunningServer;
  /** A client with the bootstrap key of organization `default`. */
  client: ApiClient;
  close(): Promise<void>;
}

/**
 * Where a test server keeps its data: a fresh data directory and, with TEST_BACKEND postgres, a
 * fresh database of its own. Servers started (and restarted) with `flags` share it; `remove`
 * deletes both (the database is dropped, connections still open included).
 */
export interface TestStoreLocation {
  dataDir: string;
  /** The value of --database-url: the fresh database, or "" for SQLite in dataDir. */
  databaseUrl: string;
  /** --data-dir, plus --database-url on PostgreSQL. */
  flags: Record<string, string>;
  /** What `spawnServer(dataDir, args)` adds to its arguments: --database-url on PostgreSQL, else nothing. */
  args: string[];
  /** The store itself, opened as the CLI opens it (to check what a server left behind). */
  openStore(): Promise<Store>;
  remove(): Promise<void>;
}

export async function makeTestStoreLocation(): Promise<TestStoreLocation> {
  const dataDir = makeTempDir();
  const database = TEST_BACKEND === "postgres" ? await createTestDatabase() : undefined;
  return {
    dataDir,
    databaseUrl: database?.url ?? "",
    flags: database ? { "--data-dir": dataDir, "--database-url": database.url } : { "--data-dir": dataDir },
    args: database ? ["--database-url", database.url] : [],
    openStore: () => openConfiguredStore({ dataDir, databaseUrl: database?.url ?? "" }),
    async remove() {
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** A real server on a free port with a fresh data directory (and database, see TEST_BACKEND), in this process. */
export async function startTestServer(options: { clock?: Clock; flags?: Record<string, string> } = {}): Promise<TestServer> {
  const location = await makeTestStoreLocation();
  const config = loadConfig({ ...location.flags, "--port": "0", "--log-level": "silent", ...options.flags }, {});
  const server = await startServer(config, options.clock).catch(async (error: unknown) => {
    await location.remove();
    throw error;
  });
  return {
    url: server.url,
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    server,
    client: new ApiClient(server.url, server.bootstrapKey!),
    async close() {
      await server.close();
      await location.remove();
    },
  };
}

/** A new organization with its own key, so each test is isolated from the others. */
export async function makeOrg(test: TestServer, slug = `org-${Math.random().toString(36).slice(2, 10)}`) {
  const { organization, key, record } = await createOrganizationWithKey(test.server.store, slug, { now: () => Date.now() });
  return { organization, key, keyId: record.id, client: new ApiClient(test.url, key) };
}

export const BIN = fileURLToPath(new URL("../../bin/stepwise", import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** The real CLI (`bin/stepwise serve`) in a child process, for signals, crashes and first start. */
export function spawnServer(dataDir: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  return spawnServe(["--data-dir", dataDir, "--port", "0", "--log-level", "warn", ...args], env);
}

/** `bin/stepwise serve` with exactly these arguments (flags left out come from `env` or the defaults). */
export async function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, "serve", ...args], {
    env: { ...process.env, ...env },
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A server that starts too late is killed, or the test process would wait for it forever.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout.off("data", check);
        resolve(match[1]!);
      }
    };
    child.stdout.on("data", check);
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${out}`));
    });
  });
  return { url, child, stdout: () => out, exited };
}
