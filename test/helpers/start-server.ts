import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/config.js";
import type { Clock } from "../../src/domain/time.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { ApiClient } from "./client.js";

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
  server: RunningServer;
  /** A client with the bootstrap key of organization `default`. */
  client: ApiClient;
  close(): Promise<void>;
}

/** A real server on a free port with a fresh data directory, in this process. */
export async function startTestServer(options: { clock?: Clock; flags?: Record<string, string> } = {}): Promise<TestServer> {
  const dataDir = makeTempDir();
  const config = loadConfig({ "--data-dir": dataDir, "--port": "0", "--log-level": "silent", ...options.flags }, {});
  const server = await startServer(config, options.clock);
  return {
    url: server.url,
    dataDir,
    server,
    client: new ApiClient(server.url, server.bootstrapKey!),
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
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
    const timer = setTimeout(() => reject(new Error(`server did not start within 20 s:\n${out}`)), 20_000);
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
