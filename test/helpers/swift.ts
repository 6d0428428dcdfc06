import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { makeTempDir } from "./start-server.js";

/**
 * A real S3 server for tests: OpenStack Swift with its S3 layer (s3api), from Debian's packages
 * (`scripts/test-prerequisites.sh`, the first step of `npm test`, installs them; this helper
 * installs nothing). Four single-process servers on free loopback ports, their rings and state in a
 * temporary directory, gone after stop(). Start to ready takes about 5 s and 300 MB, so a test file
 * starts one and shares it between its tests.
 */
export interface SwiftS3 {
  /** The S3 endpoint (the Swift proxy), e.g. http://127.0.0.1:40123. */
  endpoint: string;
  /** A bucket that exists and is empty at start. */
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment a Stepwise process needs to reach the bucket with these credentials. */
  env: Record<string, string>;
  /** Flags that make a Stepwise server keep its files in this bucket under `prefix`. */
  flags(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Debian's interpreter: the python3 first on PATH may be another one that cannot import swift. */
const PYTHON = "/usr/bin/python3";
const SERVER_KINDS = ["object", "container", "account"] as const;
export const SWIFT_ACCESS_KEY = "test:tester";
export const SWIFT_SECRET_KEY = "testing";

export function swiftInstalled(): boolean {
  return existsSync("/usr/bin/swift-proxy-server") && existsSync("/usr/bin/swift-ring-builder") && existsSync("/etc/swift/swift.conf");
}

export async function startSwiftS3(bucket = "stepwise-test"): Promise<SwiftS3> {
  if (!swiftInstalled()) {
    throw new Error(
      "OpenStack Swift is not installed: run scripts/test-prerequisites.sh (npm test does), or apt-get install swift swift-proxy swift-object swift-container swift-account python3-swift",
    );
  }
  const dir = makeTempDir("stepwise-swift-");
  const devices = join(dir, "devices");
  mkdirSync(join(devices, "d1"), { recursive: true });
  const [proxy, object, container, account] = await freePorts(4);
  const ports = { proxy: proxy!, object: object!, container: container!, account: account! };
  const common = (port: number) =>
    `[DEFAULT]\nbind_ip = 127.0.0.1\nbind_port = ${port}\nworkers = 0\nmount_check = false\ndevices = ${devices}\nswift_dir = ${dir}\nlog_level = WARNING\n`;

  for (const kind of SERVER_KINDS) {
    const builder = join(dir, `${kind}.builder`);
    execFileSync(PYTHON, ["/usr/bin/swift-ring-builder", builder, "create", "6", "1", "1"], { stdio: "ignore" });
    execFileSync(PYTHON, ["/usr/bin/swift-ring-builder", builder, "add", `r1z1-127.0.0.1:${ports[kind]}/d1`, "1"], { stdio: "ignore" });
    // rebalance exits 1 when it only warns (one device, one replica); the ring file is what matters.
    try {
      execFileSync(PYTHON, ["/usr/bin/swift-ring-builder", builder, "rebalance"], { stdio: "ignore" });
    } catch {}
    if (!existsSync(join(dir, `${kind}.ring.gz`))) throw new Error(`swift-ring-builder did not write the ${kind} ring`);
    writeFileSync(
      join(dir, `${kind}-server.conf`),
      `${common(ports[kind])}\n[pipeline:main]\npipeline = ${kind}-server\n\n[app:${kind}-server]\nuse = egg:swift#${kind}\n`,
    );
  }
  const filters = [
    "catch_errors",
    "gatekeeper",
    "healthcheck",
    "proxy_logging",
    "listing_formats",
    "bulk",
    "copy",
    "slo",
    "dlo",
    "versioned_writes",
  ];
  writeFileSync(
    join(dir, "proxy-server.conf"),
    `${common(ports.proxy)}
[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats bulk s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
# The proxy stops asking a storage server for a minute after 10 failed connections; under load a
# server can take seconds to listen, and readiness polling would hit that limit before it does.
error_suppression_limit = 1000000

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SWIFT_SECRET_KEY} .admin

[filter:cache]
use = egg:swift#memcache

[filter:proxy-logging]
use = egg:swift#proxy_logging
${filters
  .filter((name) => name !== "proxy_logging")
  .map((name) => `\n[filter:${name}]\nuse = egg:swift#${name}\n`)
  .join("")}`,
  );

  const children: ChildProcess[] = [];
  let output = "";
  const stopAll = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
            setTimeout(() => child.kill("SIGKILL"), 3000).unref();
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  // A test process that dies without its after() hook must not leave four servers behind.
  const killOnExit = () => {
    for (const child of children) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);

  try {
    for (const kind of [...SERVER_KINDS, "proxy"] as const) {
      const child = spawn(PYTHON, [`/usr/bin/swift-${kind}-server`, join(dir, `${kind}-server.conf`), "-v"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-20_000);
      };
      child.stdout!.on("data", keep);
      child.stderr!.on("data", keep);
      children.push(child);
    }
    const endpoint = `http://127.0.0.1:${ports.proxy}`;
    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: SWIFT_ACCESS_KEY, secretAccessKey: SWIFT_SECRET_KEY },
    });
    // Ready when the bucket can be created: that needs the proxy and all three storage servers.
    const deadline = Date.now() + 60_000;
    for (const kind of SERVER_KINDS) await waitForListener(ports[kind], deadline, () => output);
    for (;;) {
      const exited = children.find((child) => child.exitCode !== null);
      if (exited) throw new Error(`a Swift server exited with ${exited.exitCode}:\n${output}`);
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`Swift was not ready within 60 s (${String(error)}):\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    client.destroy();
    const env = { AWS_ACCESS_KEY_ID: SWIFT_ACCESS_KEY, AWS_SECRET_ACCESS_KEY: SWIFT_SECRET_KEY };
    return {
      endpoint,
      bucket,
      accessKeyId: SWIFT_ACCESS_KEY,
      secretAccessKey: SWIFT_SECRET_KEY,
      env,
      flags: (prefix = "") => ({
        "--blob-url": `s3://${bucket}/${prefix}`,
        "--s3-endpoint": endpoint,
        "--s3-force-path-style": "true",
      }),
      async stop() {
        process.off("exit", killOnExit);
        await stopAll();
      },
    };
  } catch (error) {
    process.off("exit", killOnExit);
    await stopAll();
    throw error;
  }
}

/** `count` distinct free ports: all held open at once, so none is handed out twice. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Waits until something accepts connections on a loopback port. */
async function waitForListener(port: number, deadline: number, output: () => string): Promise<void> {
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (accepted) return;
    if (Date.now() > deadline) throw new Error(`no Swift server listened on port ${port} within 60 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
