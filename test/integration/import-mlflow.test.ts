import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { BIN, makeOrg, makeTempDir, startTestServer, TEST_BACKEND, type TestServer } from "../helpers/start-server.js";
import { startSwiftS3, swiftInstalled } from "../helpers/swift.js";
import { waitFor } from "../helpers/wait-for.js";

/**
 * `stepwise import mlflow` against MLflow's own server (2.17.2, built from source on the machine:
 * STEPWISE_MLFLOW_CLIENTS, as test/integration/mlflow-real-clients.test.ts) and its file store, both
 * filled by MLflow's own client (test/mlflow-clients/import_source.py). The strongest check: MLflow's
 * client reads the source and Stepwise after the import back equal (import_dump.py), every run,
 * metric history, dataset input, artifact byte and registered model version. Skipped where the
 * clients are not built.
 */

const ROOT = process.env.STEPWISE_MLFLOW_CLIENTS ?? fileURLToPath(new URL("../../.scratch/mlflow-clients", import.meta.url));
const SOURCE_SCRIPT = fileURLToPath(new URL("../mlflow-clients/import_source.py", import.meta.url));
const DUMP_SCRIPT = fileURLToPath(new URL("../mlflow-clients/import_dump.py", import.meta.url));
const PYTHONPATH = ["src-2.17.2", "shim/2.17.2", "deps/site"].map((part) => join(ROOT, part)).join(":");
const available = ["src-2.17.2/mlflow", "deps/site/cachetools"].every((part) => existsSync(join(ROOT, part)));
if (!available) console.warn(`MLflow is not built at ${ROOT}: the import tests are SKIPPED (set STEPWISE_MLFLOW_CLIENTS)`);

const exec = promisify(execFile);

async function python(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await exec("/usr/bin/python3", args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH, ...env },
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim().split("\n").at(-1)!;
}

/** MLflow's client fills (or adds to) a tracking store; the run IDs it made. */
const fill = async (uri: string, action: "fill" | "add" | "big") =>
  JSON.parse(await python([SOURCE_SCRIPT, uri, action])) as Record<string, string>;
/** Everything MLflow's client reads from a tracking store (with a Stepwise key for Stepwise). */
const dump = async (uri: string, token?: string) =>
  JSON.parse(await python([DUMP_SCRIPT, uri], token ? { MLFLOW_TRACKING_TOKEN: token } : {}));

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The summary's line of `name`, its value alone. */
function summaryLine(stdout: string, name: string): string {
  const line = stdout.split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `no '${name}' line in:\n${stdout}`);
  return line.slice(name.length).trim();
}

describe("stepwise import mlflow", { skip: available ? false : `MLflow is not built at ${ROOT}` }, () => {
  let test: TestServer;
  let mlflowServer: ChildProcess;
  let mlflowUri: string;
  let mlruns: string;
  const work = makeTempDir("stepwise-import-mlflow-");

  /** `stepwise import mlflow` on the test server's store, in a child process: its exit code and output. */
  const importer = (from: string, slug: string, extra: string[] = [], server = test, env: Record<string, string> = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const storeArgs = TEST_BACKEND === "postgres" ? ["--database-url", server.databaseUrl] : [];
      execFile(
        process.execPath,
        [BIN, "import", "mlflow", "--from", from, "--org", slug, "--data-dir", server.dataDir, ...storeArgs, ...extra],
        { env: { ...process.env, STEPWISE_DATA_DIR: "", ...env }, timeout: 300_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  before(async () => {
    test = await startTestServer();
    const port = await freePort();
    mlflowUri = `http://127.0.0.1:${port}`;
    mlflowServer = spawn(
      "/usr/bin/python3",
      [
        "-m",
        "mlflow",
        "server",
        "--backend-store-uri",
        `sqlite:///${join(work, "mlflow.db")}`,
        "--artifacts-destination",
        join(work, "artifacts"),
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--workers",
        "1",
      ],
      // Its own process group: `mlflow server` runs gunicorn as a child, which must stop with it.
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH }, stdio: "ignore", detached: true },
    );
    await waitFor(async () => (await fetch(`${mlflowUri}/health`).catch(() => undefined))?.ok === true, { timeoutMs: 60_000 });
    await fill(mlflowUri, "fill");
    mlruns = join(work, "mlruns");
    await fill(`file://${mlruns}`, "fill");
  });

  after(async () => {
    if (mlflowServer?.pid !== undefined) process.kill(-mlflowServer.pid, "SIGTERM");
    await test?.close();
    rmSync(work, { recursive: true, force: true });
  });

  let serverKey = "";
  it("imports a running MLflow server: MLflow's client reads every run, history, input, artifact and model back equal to the source", async () => {
    const { organization, key } = await makeOrg(test, "from-server");
    serverKey = key;
    const { code, stdout, stderr } = await importer(mlflowUri, organization.slug);
    assert.equal(code, 0, stderr);
    assert.equal(summaryLine(stdout, "runs"), "5 (5 imported, 0 resumed, 0 already whole, 0 failed)");
    assert.equal(summaryLine(stdout, "params"), "4");
    assert.equal(summaryLine(stdout, "metric points"), "132 read, 132 stored (identical points once)");
    assert.equal(summaryLine(stdout, "artifacts"), "5 (10,360 bytes), 5 copied");
    assert.equal(summaryLine(stdout, "model versions"), "2 (2 imported, 0 skipped)");
    assert.match(stdout, /experiment 'import-first': 131 points in .*, 3 runs/);
    assert.deepEqual(await dump(`${test.url}`, key), await dump(mlflowUri));
  });

  it("a second import writes nothing new; a run added to the source afterwards is imported alone", async () => {
    const organization = await test.server.store.getOrganizationBySlug("from-server");
    const key = serverKey;
    const again = await importer(mlflowUri, organization!.slug);
    assert.equal(again.code, 0, again.stderr);
    // The RUNNING run may still log in the source: it is read again, its points kept once.
    assert.equal(summaryLine(again.stdout, "runs"), "5 (0 imported, 1 resumed, 4 already whole, 0 failed)");
    assert.equal(summaryLine(again.stdout, "experiments"), "3 (0 created, 0 deleted in the source: skipped)");
    assert.equal(summaryLine(again.stdout, "metric points"), "1 read, 1 stored (identical points once)");
    // Of the run read again, only artifacts Stepwise does not have are copied: none.
    assert.equal(summaryLine(again.stdout, "artifacts"), "1 (8 bytes), 0 copied");
    assert.equal(summaryLine(again.stdout, "model versions"), "2 (0 imported, 0 skipped)");

    const { late } = await fill(mlflowUri, "add");
    const third = await importer(mlflowUri, organization!.slug);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(summaryLine(third.stdout, "runs"), "6 (1 imported, 1 resumed, 4 already whole, 0 failed)");
    assert.equal(summaryLine(third.stdout, "metric points"), "2 read, 2 stored (identical points once)");
    const imported = await dump(test.url, key);
    assert.deepEqual(imported, await dump(mlflowUri));
    assert.equal(imported.experiments["import-first"].runs[late!].name, "late");
  });

  it("--experiment imports only the experiments named (an unknown name is a warning); the next import brings the rest", async () => {
    const { organization, key } = await makeOrg(test);
    const only = await importer(mlruns, organization.slug, ["--experiment", "import-second", "--experiment", "nope"]);
    assert.equal(only.code, 0, only.stderr);
    assert.match(only.stderr, /no experiment named 'nope'/);
    assert.equal(summaryLine(only.stdout, "runs"), "1 (1 imported, 0 resumed, 0 already whole, 0 failed)");
    assert.equal(summaryLine(only.stdout, "registered models"), "0");
    assert.deepEqual(Object.keys((await dump(test.url, key)).experiments), ["import-second"]);

    // MLflow's file store, given as a directory or a file:// URI.
    const { code, stdout, stderr } = await importer(`file://${mlruns}`, organization.slug);
    assert.equal(code, 0, stderr);
    assert.equal(summaryLine(stdout, "runs"), "5 (4 imported, 1 resumed, 0 already whole, 0 failed)");
    assert.equal(summaryLine(stdout, "metric points"), "132 read, 132 stored (identical points once)");
    assert.equal(summaryLine(stdout, "model versions"), "2 (2 imported, 0 skipped)");
    assert.deepEqual(await dump(test.url, key), await dump(`file://${mlruns}`));
  });

  it("a source already imported into one organization is refused run by run in a second, saying why (exit 1)", async () => {
    const { organization } = await makeOrg(test);
    const { code, stderr } = await importer(mlruns, organization.slug, ["--experiment", "import-second"]);
    assert.equal(code, 1);
    assert.match(stderr, /run [0-9a-f]{32} \('live'\): its MLflow run ID is taken by a run of another organization/);
  });

  it("Ctrl-C stops between two writes with exit 130; the next import finishes the run and it reads back whole", async () => {
    const big = join(work, "big");
    await fill(`file://${big}`, "big");
    const { organization, key } = await makeOrg(test);
    const storeArgs = TEST_BACKEND === "postgres" ? ["--database-url", test.databaseUrl] : [];
    const child = spawn(
      process.execPath,
      [BIN, "import", "mlflow", "--from", big, "--org", organization.slug, "--data-dir", test.dataDir, ...storeArgs],
      {
        env: { ...process.env, STEPWISE_DATA_DIR: "" },
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // The first progress line is printed after the first slice is written.
    await waitFor(() => /import-big': [\d,]+ points, /.test(out), { timeoutMs: 60_000, what: "the first progress line" });
    assert.match(out, /import-big': [\d,]+ points, [^\n]*, 0 of 1 runs/, "the runs done of the experiment's runs");
    child.kill("SIGINT");
    assert.equal(await exited, 130, out);
    assert.match(out, /Interrupted: every run not reported whole is resumed/);
    const stopped = /metric points +([\d,]+) read/.exec(out)?.[1];
    assert.ok(stopped && Number(stopped.replaceAll(",", "")) < 100_000, `stopped after ${stopped} points:\n${out}`);
    assert.equal(summaryLine(out, "runs"), "1 (0 imported, 0 resumed, 0 already whole, 0 failed)");

    const resumed = await importer(big, organization.slug);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(summaryLine(resumed.stdout, "runs"), "1 (0 imported, 1 resumed, 0 already whole, 0 failed)");
    assert.equal(summaryLine(resumed.stdout, "metric points"), "100,000 read, 100,000 stored (identical points once)");
    assert.deepEqual(await dump(test.url, key), await dump(`file://${big}`));
  });

  it("reads a server that wants a bearer token (MLFLOW_TRACKING_TOKEN), every list and history paged: Stepwise's own MLflow API as the source", async () => {
    const source = await startTestServer();
    try {
      const from = await makeOrg(source);
      await python([SOURCE_SCRIPT, source.url, "fill"], { MLFLOW_TRACKING_TOKEN: from.key });
      const { organization, key } = await makeOrg(test);
      const refused = await importer(source.url, organization.slug);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /the source answered: .* HTTP 401/);
      const { code, stdout, stderr } = await importer(source.url, organization.slug, [], test, { MLFLOW_TRACKING_TOKEN: from.key });
      assert.equal(code, 0, stderr);
      assert.equal(summaryLine(stdout, "runs"), "5 (5 imported, 0 resumed, 0 already whole, 0 failed)");
      assert.deepEqual(await dump(test.url, key), await dump(source.url, from.key));
    } finally {
      await source.close();
    }
  });

  it("copies artifacts into the S3 bucket the server serves them from; an mlruns directory moved since it was written is read where it is", {
    skip: swiftInstalled() ? false : "Swift (the S3 server) is not installed",
  }, async () => {
    const expected = await dump(`file://${mlruns}`);
    // Its meta.yaml files still name the artifacts by their old absolute file:// URIs.
    const moved = join(work, "moved-mlruns");
    renameSync(mlruns, moved);
    const swift = await startSwiftS3();
    Object.assign(process.env, swift.env);
    const flags = { ...swift.flags("import/"), "--s3-direct-urls": "false" };
    const s3Server = await startTestServer({ flags });
    try {
      const { organization, key } = await makeOrg(s3Server);
      const s3Flags = Object.entries(flags).flat();
      const { code, stdout, stderr } = await importer(moved, organization.slug, s3Flags, s3Server);
      assert.equal(code, 0, stderr);
      assert.equal(summaryLine(stdout, "artifacts"), "5 (10,360 bytes), 5 copied");
      assert.ok(!existsSync(join(s3Server.dataDir, "files")), "no artifact bytes in the data directory");
      assert.deepEqual(await dump(s3Server.url, key), expected);
    } finally {
      renameSync(moved, mlruns);
      await s3Server.close();
      await swift.stop();
    }
  });
});

describe("stepwise import: wrong use", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  const cli = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const store = ["--data-dir", test.dataDir, ...(TEST_BACKEND === "postgres" ? ["--database-url", test.databaseUrl] : [])];
      execFile(
        process.execPath,
        [BIN, "import", ...args, ...store],
        { env: { ...process.env, STEPWISE_DATA_DIR: "" } },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it("prints its usage for --help, and exits 2 with the reason on a missing source, option, directory or organization", async () => {
    const help = await cli(["mlflow", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /stepwise import mlflow --from/);
    const cases: [string[], RegExp][] = [
      [[], /missing source: tensorboard or mlflow/],
      [["wandb"], /unknown source 'wandb'/],
      [["mlflow", "--org", "default"], /--from is required/],
      [["mlflow", "--from", "/nonexistent/mlruns", "--org", "default"], /neither an http\(s\) URL nor an mlruns directory/],
      [["mlflow", "--from", test.dataDir, "--org", "no-such-org"], /organization 'no-such-org' not found/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(" "));
    }
  });
});
