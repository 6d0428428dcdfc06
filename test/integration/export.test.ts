import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
import type { Store } from "../../src/store/store.js";
import { BIN, makeTempDir, startTestServer, type TestServer } from "../helpers/start-server.js";

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const ACTOR = { userId: null, apiKeyId: null };
/** Values a CSV or Parquet round trip could get wrong: non-finite, signed zero, extremes, float32s, long decimals. */
const VALUES = [0.1, -0, NaN, Infinity, -Infinity, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE, Math.fround(1 / 3), Math.PI, 1e21, 2 ** 53];
const T0 = 1_700_000_000_000;

/** A CSV line split into fields (RFC 4180 quotes). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let end = at + 1;
      let text = "";
      for (;;) {
        const quote = line.indexOf('"', end);
        text += line.slice(end, quote);
        if (line[quote + 1] === '"') {
          text += '"';
          end = quote + 2;
        } else {
          at = quote + 2;
          break;
        }
      }
      fields.push(text);
    } else {
      const comma = line.indexOf(",", at);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return fields;
}

/** The CSV spelling of a double, as pandas reads it. */
const csvValue = (text: string) => (text === "nan" ? NaN : text === "inf" ? Infinity : text === "-inf" ? -Infinity : Number(text));

describe("stepwise export", () => {
  let test: TestServer;
  let store: Store;
  let orgId: string;
  let storeArgs: string[];
  const runIds: number[] = [];
  before(async () => {
    test = await startTestServer();
    storeArgs = ["--data-dir", test.dataDir, "--database-url", test.databaseUrl];
    store = test.server.store;
    orgId = (await store.listOrganizations())[0]!.id;
    for (const [name, lr] of [
      ["small-lr", 0.001],
      ["large-lr", 0.1],
    ] as const) {
      const { run } = await store.createRun(
        orgId,
        {
          projectName: "exp",
          name,
          tags: ["a,b", 'say "hi"'],
          config: { lr, model: { layers: 4, name: "net, v2" }, flags: [1, 2] },
          createdAt: T0,
          now: T0,
        },
        ACTOR,
      );
      runIds.push(run.id);
      const steps = VALUES.map((_, i) => i);
      await store.appendMetricPoints(
        orgId,
        run.id,
        [
          { logName: "edge/values", steps, values: VALUES, times: steps.map((s) => T0 + s) },
          { logName: "loss", steps: [0, 10], values: [lr, lr / 2], times: [T0, T0 + 10] },
        ],
        T0,
      );
    }
  });
  after(async () => test.close());

  it("writes runs and every point as CSV that reads back exactly, NaN and ±Inf included", async () => {
    const dir = makeTempDir("stepwise-export-");
    const result = await cli(["export", "--project", "exp", "--format", "csv", "--to", dir, ...storeArgs]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Wrote 2 runs and 28 points/);
    assert.deepEqual(readdirSync(dir).sort(), ["metrics.csv", "runs.csv"], "no partial file left");

    const lines = readFileSync(join(dir, "metrics.csv"), "utf8").trimEnd().split("\n");
    assert.equal(lines[0], "run_id,run_name,metric,step,time,value");
    const edge = lines
      .slice(1)
      .map(csvFields)
      .filter((f) => f[0] === String(runIds[0]) && f[2] === "edge/values");
    assert.deepEqual(
      edge.map((f) => Number(f[3])),
      VALUES.map((_, i) => i),
    );
    for (const [i, f] of edge.entries()) assert.ok(Object.is(csvValue(f[5]!), VALUES[i]), `${f[5]} is ${VALUES[i]}`);
    assert.equal(edge[2]![4], new Date(T0 + 2).toISOString());

    const runs = readFileSync(join(dir, "runs.csv"), "utf8").trimEnd().split("\n").map(csvFields);
    const header = runs[0]!;
    const row = new Map(header.map((name, i) => [name, runs[1]![i]!]));
    assert.equal(row.get("name"), "small-lr");
    assert.deepEqual(JSON.parse(row.get("tags")!), ["a,b", 'say "hi"']);
    assert.equal(row.get("config.lr"), "0.001");
    assert.equal(row.get("config.model.name"), "net, v2");
    assert.equal(row.get("config.flags"), "[1,2]");
    assert.equal(row.get("summary.loss.last"), "0.0005");
    assert.equal(row.get("summary.edge/values.count"), String(VALUES.length));
    assert.equal(row.get("created_at"), new Date(T0).toISOString());
  });

  it("writes Parquet whose every value reads back bit-exactly, and exports only the runs --runs matches", async () => {
    const dir = makeTempDir("stepwise-export-");
    const filter = JSON.stringify({ "config.lr": { $lte: 0.01 } });
    const result = await cli(["export", "--project", "exp", "--runs", filter, "--format", "parquet", "--to", dir, ...storeArgs]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Wrote 1 runs and 14 points/);
    const points = (await parquetReadObjects({ file: await asyncBufferFromFile(join(dir, "metrics.parquet")) })) as {
      run_id: bigint;
      run_name: string;
      metric: string;
      step: bigint;
      time: Date;
      value: number;
    }[];
    assert.ok(points.every((p) => p.run_id === BigInt(runIds[0]!) && p.run_name === "small-lr"));
    const edge = points.filter((p) => p.metric === "edge/values");
    assert.deepEqual(
      edge.map((p) => Number(p.step)),
      VALUES.map((_, i) => i),
    );
    for (const [i, p] of edge.entries()) assert.ok(Object.is(p.value, VALUES[i]), `${p.value} is ${VALUES[i]}`);
    assert.equal(edge[3]!.time.getTime(), T0 + 3);
    const runs = (await parquetReadObjects({ file: await asyncBufferFromFile(join(dir, "runs.parquet")) })) as Record<string, unknown>[];
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!["config.lr"], 0.001);
    assert.equal(runs[0]!["config.model.layers"], 4);
    assert.equal(runs[0]!["summary.loss.max"], 0.001);
  });

  it("leaves no file half-written when stopped with Ctrl-C, and refuses wrong use", async () => {
    // Enough points that the export is still writing when the signal comes.
    const { run } = await store.createRun(orgId, { projectName: "big", name: "big", tags: [], now: T0 }, ACTOR);
    const steps = Array.from({ length: 1_000_000 }, (_, i) => i);
    for (let m = 0; m < 3; m++)
      await store.appendMetricPoints(orgId, run.id, [{ logName: `m${m}`, steps, values: steps.map(Math.sin), times: steps }], T0);
    const dir = makeTempDir("stepwise-export-");
    const child = spawn(process.execPath, [BIN, "export", "--project", "big", "--format", "csv", "--to", dir, ...storeArgs], {
      env: { ...process.env, STEPWISE_DATA_DIR: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("Exporting")) resolve();
      }),
    );
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 130, stdout + stderr);
    assert.match(stderr, /interrupted; the files being written were removed/);
    assert.deepEqual(readdirSync(dir), [], "neither a partial nor a whole file");

    const help = await cli(["export", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: stepwise export --project <name>/);
    const badFormat = await cli(["export", "--project", "exp", "--format", "xlsx", "--to", dir, ...storeArgs]);
    assert.equal(badFormat.code, 2);
    assert.match(badFormat.stderr, /--format must be csv or parquet/);
    const noProject = await cli(["export", "--project", "nope", "--format", "csv", "--to", dir, ...storeArgs]);
    assert.equal(noProject.code, 2);
    assert.match(noProject.stderr, /project 'nope' not found/);
    const badFilter = await cli(["export", "--project", "exp", "--runs", "{not json", "--format", "csv", "--to", dir, ...storeArgs]);
    assert.equal(badFilter.code, 2);
    assert.ok(!existsSync(join(dir, "runs.csv")));
  });
});
