import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config.js";
import { SIGNING_SECRET_FILE } from "../../src/files/signing-secret.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { createOrganizationWithKey } from "../../src/services/accounts.js";
import { SqliteStore } from "../../src/store/sqlite/index.js";
import { ApiClient } from "../helpers/client.js";
import { createTestDatabase } from "../helpers/postgres.js";
import { ingest, toNdjson } from "../helpers/ingest.js";
import { BIN, makeTempDir, ManualClock } from "../helpers/start-server.js";

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

// Both servers answer with the same clock and public URL, so times, durations and signed URLs
// (made with the copied secret and key IDs) must come out the same byte for byte.
const clock = new ManualClock(Date.UTC(2026, 2, 3, 4, 5, 6, 7));
const PUBLIC_URL = "http://stepwise.example";

async function serve(dataDir: string, databaseUrl = ""): Promise<RunningServer> {
  const flags = { "--data-dir": dataDir, "--port": "0", "--log-level": "silent", "--stale-after": "0", "--public-url": PUBLIC_URL };
  return startServer(loadConfig({ ...flags, "--database-url": databaseUrl }, {}), clock);
}

type Run = { runId: number; projectName: string; displayId: string };

/** Everything a store holds, through the API: two organizations, runs with every attribute, a fork, metrics, logs, data, a file. */
async function populate(server: RunningServer) {
  const local = (url: string) => `${server.url}${new URL(url).pathname}${new URL(url).search}`;
  const main = new ApiClient(server.url, server.bootstrapKey!);
  const second = await createOrganizationWithKey(server.store, "second", clock);
  const other = new ApiClient(server.url, second.key);
  const project = "vision";

  const base = await main.createRun({
    projectName: project,
    runName: "base",
    externalId: "ext-base",
    tags: ["baseline", "gpu"],
    config: JSON.stringify({ lr: 0.01, model: { layers: 12, name: "vit" } }),
    systemMetadata: JSON.stringify({ host: "node-1" }),
  });
  const steps = Array.from({ length: 1200 }, (_, step) => step);
  await ingest(main, "metrics", base, toNdjson(steps.map((step) => ({ step, data: { "train/loss": 2 / (step + 1), lr: 0.01 } }))));
  await ingest(
    main,
    "metrics",
    base,
    toNdjson([
      { step: 0, data: { acc: Number.NaN } },
      { step: 1, data: { acc: 0.5 } },
      { step: 2, data: { acc: Number.POSITIVE_INFINITY } },
    ]),
  );
  const line = (lineNumber: number, message: string, logType: string) =>
    JSON.stringify({ time: 1_700_000_000_000 + lineNumber, message, lineNumber, logType });
  await ingest(main, "logs", base, [line(0, "start", "INFO"), line(1, "warn ✓", "WARNING"), line(2, "boom", "ERROR")].join("\n"));
  const row = (step: number, logName: string, dataType: string, data: string) => JSON.stringify({ time: 5, step, logName, dataType, data });
  await ingest(
    main,
    "data",
    base,
    [row(0, "weights/hist", "HISTOGRAM", '{"bins":[1,2]}'), row(1, "samples", "string-series", "hi")].join("\n"),
  );
  const registered = await main.raw(
    "POST",
    "/files",
    JSON.stringify({ files: [{ fileName: "w.bin", logName: "model", fileType: "bin", fileSize: 5, time: 1, step: 3 }] }),
    { "content-type": "application/json", "x-run-id": String(base.runId), "x-project-name": project },
  );
  const upload = Object.values(registered.body.model[0] as Record<string, string>)[0]!;
  assert.equal((await fetch(local(upload), { method: "PUT", body: "bytes" })).status, 200);
  await main.post("/api/runs/notes/update", { runId: base.runId, notes: "first try" });
  await main.post("/api/runs/config/update", { runId: base.runId, config: JSON.stringify({ model: { dropout: 0.1 } }) });
  await main.post("/api/runs/logName/add", { runId: base.runId, logName: ["eval/table"], logType: "TABLE" });
  await main.post("/api/runs/modelGraph/create", { runId: base.runId, graph: { format: "torch", nodes: { a: { type: "Linear" } } } });
  await main.post("/api/runs/alert", { runId: base.runId, alert: { title: "spike", body: "loss", level: "WARN", timestamp: 1 } });
  await main.post("/api/runs/status/update", { runId: base.runId, status: "COMPLETED", statusMetadata: JSON.stringify({ ok: true }) });

  const fork = await main.createRun({ projectName: project, runName: "fork", forkRunId: base.runId, forkStep: 600 });
  await ingest(
    main,
    "metrics",
    fork,
    toNdjson(Array.from({ length: 300 }, (_, i) => ({ step: 601 + i, data: { "train/loss": 0.001 * i } }))),
  );
  await main.post("/api/runs/tags/update", { runId: fork.runId, tags: ["fork"] });
  const resumed = await main.createRun({ projectName: project, runName: "resumed" });
  await main.post("/api/runs/status/update", { runId: resumed.runId, status: "FAILED" });
  await main.post("/api/runs/resume", { runId: resumed.runId });

  const theirs = await other.createRun({ projectName: "nlp", runName: "theirs" });
  await ingest(other, "metrics", theirs, toNdjson([{ step: 0, data: { "train/loss": 1 } }]));
  return {
    keys: [server.bootstrapKey!, second.key],
    reads: [
      { key: 0, project, runs: [base, fork, resumed] as Run[] },
      { key: 1, project: "nlp", runs: [theirs] as Run[] },
    ],
  };
}

/** The path and query of every read route, for the runs and projects of one organization. */
function readRoutes(project: string, runs: Run[]): string[] {
  const q = (params: Record<string, string | number>) =>
    new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  const ids = runs.map((run) => run.runId).join(",");
  const paths = [
    "/api/runs/projects",
    "/api/runs/auth/validate",
    `/api/runs/list?${q({ projectName: project })}`,
    `/api/runs/list?${q({ projectName: project, includeFieldValues: "true", sort: "summary_metrics.train/loss" })}`,
    `/api/runs/list?${q({ projectName: project, filter: JSON.stringify({ "config.lr": { $lte: 0.1 } }) })}`,
    `/api/runs/compare?${q({ projectName: project, runIds: ids, logName: "train/loss" })}`,
    `/api/runs/leaderboard?${q({ projectName: project, logName: "train/loss" })}`,
    `/api/runs/metric-names?${q({ projectName: project })}`,
    // The optional clauses each backend builds its SQL from.
    `/api/runs/list?${q({ projectName: project, search: "FOR", limit: 2 })}`,
    `/api/runs/metric-names?${q({ projectName: project, search: "LOSS", runIds: ids })}`,
  ];
  for (const run of runs) {
    const ofRun = { runId: run.runId, projectName: project };
    paths.push(
      `/api/runs/details/${run.runId}`,
      `/api/runs/details/by-display-id/${run.displayId}?${q({ projectName: project })}`,
      `/api/runs/status/history?${q({ runId: run.runId })}`,
      `/api/runs/modelGraph?${q({ runId: run.runId })}`,
      `/api/runs/alerts?${q({ runId: run.runId })}`,
      `/api/runs/logs?${q(ofRun)}`,
      `/api/runs/logs?${q({ ...ofRun, logType: "ERROR" })}`,
      `/api/runs/logs?${q({ ...ofRun, limit: 1, offset: 1 })}`,
      `/api/runs/data?${q(ofRun)}`,
      `/api/runs/data?${q({ ...ofRun, logName: "samples" })}`,
      `/api/runs/files?${q(ofRun)}`,
      `/api/runs/metrics?${q(ofRun)}`,
      `/api/runs/metrics?${q({ ...ofRun, logName: "train/loss", limit: 40, stepMin: 100 })}`,
      `/api/runs/metrics/raw?${q({ ...ofRun, logName: "train/loss" })}`,
      `/api/runs/statistics?${q(ofRun)}`,
    );
  }
  return paths;
}

describe("stepwise copy", () => {
  const source = makeTempDir("stepwise-copy-source-");
  const target = join(makeTempDir("stepwise-copy-target-"), "data");
  let fixture: Awaited<ReturnType<typeof populate>>;
  before(async () => {
    const server = await serve(source);
    try {
      fixture = await populate(server);
    } finally {
      await server.close();
    }
  });
  after(() => {
    rmSync(source, { recursive: true, force: true });
    rmSync(join(target, ".."), { recursive: true, force: true });
  });

  /** Every read route answers the same JSON on both servers, signed URLs of the source work on the copy, numbering continues. */
  async function assertSameReads(from: RunningServer, to: RunningServer): Promise<void> {
    assert.equal(to.bootstrapKey, undefined, "the copy is no first start");
    let compared = 0;
    for (const { key, project, runs } of fixture.reads) {
      const [a, b] = [new ApiClient(from.url, fixture.keys[key]), new ApiClient(to.url, fixture.keys[key])];
      for (const path of readRoutes(project, runs)) {
        const [expected, actual] = [await a.get(path), await b.get(path)];
        assert.equal(expected.status, 200, `${path}: ${JSON.stringify(expected.body)}`);
        assert.equal(actual.status, 200, `${path} on the copy: ${JSON.stringify(actual.body)}`);
        assert.deepEqual(actual.body, expected.body, path);
        compared++;
      }
    }
    assert.ok(compared > 50, `${compared} reads compared`);

    // A download URL signed by the source is accepted by the copy (same secret), bytes copied by hand.
    const listed = await new ApiClient(from.url, fixture.keys[0]).get("/api/runs/files", {
      runId: fixture.reads[0]!.runs[0]!.runId,
      projectName: "vision",
    });
    const download = new URL(listed.body.files[0].url);
    const got = await fetch(`${to.url}${download.pathname}${download.search}`);
    assert.equal(got.status, 200);
    assert.equal(await got.text(), "bytes");

    // New runs continue the numbering and IDs of the copied project.
    const next = await new ApiClient(to.url, fixture.keys[0]).createRun({ projectName: "vision", runName: "after" });
    assert.equal(next.number, 4);
    assert.ok(next.runId > Math.max(...fixture.reads.flatMap((read) => read.runs.map((run) => run.runId))));
  }

  it("copies a data directory into a new one, a line per table, then equal counts of every table", async () => {
    const result = await cli(["copy", "--from", source, "--to", target]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    for (const table of [
      "organizations",
      "api_keys",
      "runs",
      "status_events",
      "metric_chunks",
      "metric_chunk_points",
      "console_logs",
      "data_rows",
      "files",
      "secrets",
    ]) {
      assert.match(result.stdout, new RegExp(`^  ${table}: \\d+ rows copied$`, "m"), table);
      const counts = new RegExp(`^${table} +(\\d+) +(\\d+)$`, "m").exec(result.stdout);
      assert.ok(counts && counts[1] === counts[2] && Number(counts[1]) > 0, `${table} counts: ${counts?.[0]}`);
    }
    assert.match(result.stdout, /File bytes were not copied/);
    assert.match(result.stdout, /Every table has the same number of rows in both stores/);
  });

  it("the copy answers every read route as the source does, to the source's API keys", async () => {
    cpSync(join(source, "files"), join(target, "files"), { recursive: true });
    const [from, to] = [await serve(source), await serve(target)];
    try {
      await assertSameReads(from, to);
    } finally {
      await from.close();
      await to.close();
    }
  });

  it("copies a data directory into an empty PostgreSQL database that answers every read route as the source does", async () => {
    const database = await createTestDatabase();
    const filesDir = makeTempDir("stepwise-copy-postgres-");
    try {
      const result = await cli(["copy", "--from", source, "--to", database.url]);
      assert.equal(result.code, 0, result.stderr + result.stdout);
      assert.match(result.stdout, /Every table has the same number of rows in both stores/);
      cpSync(join(source, "files"), join(filesDir, "files"), { recursive: true });
      const [from, to] = [await serve(source), await serve(filesDir, database.url)];
      try {
        await assertSameReads(from, to);
      } finally {
        await from.close();
        await to.close();
      }
    } finally {
      rmSync(filesDir, { recursive: true, force: true });
      await database.drop();
    }
  });

  it("refuses a target that has rows unless told explicitly, then skips the rows it has", async () => {
    const refused = await cli(["copy", "--from", source, "--to", target]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /target .* is not empty \(rows in organizations, .*--force-non-empty/);
    const forced = await cli(["copy", "--from", source, "--to", target, "--force-non-empty"]);
    // The run made on the copy above is the target's own: runs then differ, and the command says so.
    assert.equal(forced.code, 1, forced.stderr + forced.stdout);
    assert.match(forced.stdout, /^ {2}organizations: 0 rows copied, 2 skipped \(the target had them already\)$/m);
    assert.match(forced.stdout, /^runs +4 +5 +DIFFERENT$/m);
    assert.match(forced.stderr, /row counts differ in runs, status_events$/m);
  });

  it("carries the secret of a source data directory still kept in signing.key", async () => {
    const dir = makeTempDir();
    try {
      const [from, to] = [join(dir, "from"), join(dir, "to")];
      await SqliteStore.open(from).close();
      const secret = randomBytes(32);
      writeFileSync(join(from, SIGNING_SECRET_FILE), secret.toString("base64url"), { mode: 0o600 });
      const result = await cli(["copy", "--from", from, "--to", to]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^ {2}secrets: 1 rows copied$/m);
      const copied = SqliteStore.open(to);
      try {
        assert.deepEqual(Buffer.from(await copied.getOrCreateSigningSecret(randomBytes(32), 0)), secret);
      } finally {
        await copied.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops at a row PostgreSQL cannot store (a NUL an older SQLite store kept), naming its table, row and column", async () => {
    const dir = makeTempDir();
    const database = await createTestDatabase();
    try {
      const from = SqliteStore.open(dir);
      const { organization } = await createOrganizationWithKey(from, "nul", clock);
      const actor = { userId: null, apiKeyId: null };
      const { run } = await from.createRun(organization.id, { projectName: "p", name: "before\0after", tags: [], now: clock.now() }, actor);
      await from.close();
      const result = await cli(["copy", "--from", dir, "--to", database.url]);
      assert.equal(result.code, 1, result.stderr + result.stdout);
      assert.match(
        result.stderr,
        new RegExp(
          `^stepwise copy: table runs, row id=${run.id}: column name holds U\\+0000 \\(NUL\\) or an unpaired surrogate, which PostgreSQL cannot store`,
          "m",
        ),
      );
      assert.doesNotMatch(result.stderr, /at .*\.js:\d+/, "no stack");
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  });

  it("rejects bad locations with a message, creating nothing", async () => {
    const missing = join(makeTempDir(), "absent");
    const fresh = join(makeTempDir(), "fresh");
    const cases: [string[], RegExp][] = [
      [["copy", "--to", fresh], /--from is required/],
      [["copy", "--from", source], /--to is required/],
      [["copy", "--from", missing, "--to", fresh], /no Stepwise data directory at .*absent/],
      [["copy", "--from", source, "--to", source], /same data directory/],
      [["copy", "--from", source, "--to", "mysql://127.0.0.1/db"], /unsupported database URL scheme 'mysql'/],
      [["copy", "extra", "--from", source, "--to", fresh], /unexpected argument 'extra'/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      assert.equal(result.code, 2, args.join(" "));
      assert.match(result.stderr, message, `${args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr + result.stdout, /secret@/, "a database password is never printed");
    });
    const unreachable = await cli(["copy", "--from", source, "--to", "postgres://user:secret@127.0.0.1:1/stepwise"]);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /cannot connect to PostgreSQL at 127\.0\.0\.1:1/);
    assert.doesNotMatch(unreachable.stderr + unreachable.stdout, /secret@/, "a database password is never printed");
    assert.ok(!existsSync(missing) && !existsSync(fresh), "no data directory was created");
    assert.match((await cli(["copy", "--help"])).stdout, /Usage: stepwise copy --from/);
  });
});
