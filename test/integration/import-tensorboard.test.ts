import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { BIN, makeTempDir, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Event files tensorboardX wrote (test/fixtures/tensorboard/make_fixtures.py says how). */
const FIXTURES = fileURLToPath(new URL("../fixtures/tensorboard/logs", import.meta.url));
const T0 = 1_700_000_000_000;

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

interface RunItem {
  id: number;
  name: string;
  status: string;
  createdAt: string;
  statusUpdated: string;
}

interface Point {
  step: number;
  value: number | null;
  valueFlag: string | null;
  time: number | string;
}

describe("stepwise import tensorboard", () => {
  let test: TestServer;
  let store: string[];
  let logdir: string;
  before(async () => {
    test = await startTestServer();
    store = ["--data-dir", test.dataDir, "--database-url", test.databaseUrl];
    logdir = join(makeTempDir("stepwise-tb-"), "logs");
    cpSync(FIXTURES, logdir, { recursive: true });
  });
  after(async () => test.close());

  const runs = async (project: string) => {
    const response = await test.client.get<{ runs: RunItem[] }>(`/api/runs/list?projectName=${project}&limit=100`);
    assert.equal(response.status, 200);
    return new Map(response.body.runs.map((run) => [run.name, run]));
  };
  const points = async (project: string, runId: number, logName: string) => {
    const response = await test.client.get<{ metrics: Point[] }>(
      `/api/runs/metrics?runId=${runId}&projectName=${project}&logName=${encodeURIComponent(logName)}&limit=10000`,
    );
    assert.equal(response.status, 200);
    return response.body.metrics;
  };
  const values = (series: Point[]) => series.map((p) => p.valueFlag || p.value);
  const dataRows = async (project: string, runId: number, logName: string) => {
    const response = await test.client.get<{ rows: { step: number; dataType: string; data: string; time: number | string }[] }>(
      `/api/runs/data?runId=${runId}&projectName=${project}&logName=${logName}`,
    );
    assert.equal(response.status, 200);
    return response.body.rows;
  };

  it("imports every run of a log directory written by tensorboardX, read back over HTTP", async () => {
    const result = await cli(["import", "tensorboard", logdir, "--project", "tb", ...store]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Imported 6 runs \(6 new, 0 up to date\): 82 points, 2 histograms, 2 images, 1 texts; 2 records skipped/);
    // Each bad record is named with its file and byte offset, and the rest of its file imported.
    assert.match(result.stderr, /corrupted\/events\.out\.tfevents\.1700000000\.fixture at byte 206: corrupted record \(data CRC mismatch/);
    assert.match(result.stderr, /truncated\/events\.out\.tfevents\.1700000000\.fixture at byte 416: the file ends inside this record/);

    const imported = await runs("tb");
    assert.deepEqual([...imported.keys()].sort(), ["basic", "corrupted", "hparams/session", "restart", "tf2", "truncated"]);
    const basic = imported.get("basic")!;
    assert.equal(basic.status, "COMPLETED");
    assert.equal(basic.createdAt, new Date(T0).toISOString(), "the first wall time");
    assert.equal(basic.statusUpdated, new Date(T0 + 9000).toISOString(), "the last wall time");

    // Scalars with their steps and wall times; NaN and +Inf kept; float32 values as their exact doubles.
    const loss = await points("tb", basic.id, "train/loss");
    assert.deepEqual(
      loss.map((p) => p.step),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.deepEqual(values(loss).slice(0, 6), [1, 0.5, Math.fround(1 / 3), "NaN", "Inf", Math.fround(1 / 6)]);
    assert.equal(new Date(loss[2]!.time).getTime(), T0 + 2000);
    // add_scalars("losses", {"train", "val"}): sub-directories of the run, one metric each.
    assert.deepEqual(values(await points("tb", basic.id, "losses/val")), [3, 2.9, 2.8, 2.7, 2.6, 2.5, 2.4, 2.3, 2.2, 2.1].map(Math.fround));

    const histograms = await dataRows("tb", basic.id, "weights");
    assert.deepEqual(
      histograms.map((row) => [row.step, row.dataType]),
      [
        [0, "HISTOGRAM"],
        [5, "HISTOGRAM"],
      ],
    );
    const histogram = JSON.parse(histograms[0]!.data) as { freq: number[]; bins: number[]; num: number };
    assert.equal(histogram.bins.length, histogram.freq.length + 1);
    assert.equal(
      histogram.freq.reduce((a, b) => a + b, 0),
      1000,
    );
    assert.equal(histogram.num, 1000);
    const text = await dataRows("tb", basic.id, "notes");
    assert.deepEqual(
      text.map((row) => [row.step, row.dataType, row.data]),
      [[2, "TEXT", "hello **TensorBoard** ✓"]],
    );

    const files = await test.client.get<{ files: { fileName: string; step: number; url: string }[] }>(
      `/api/runs/files?runId=${basic.id}&projectName=tb&logName=samples/input`,
    );
    assert.equal(files.status, 200);
    assert.deepEqual(
      files.body.files.map((f) => [f.step, f.fileName]),
      [
        [0, "step-0.png"],
        [5, "step-5.png"],
      ],
    );
    const png = Buffer.from(await (await fetch(files.body.files[1]!.url)).arrayBuffer());
    assert.equal(png.subarray(1, 4).toString("latin1"), "PNG");
    // tensorboardX's image was 3 × 4 × 6 (CHW): 6 wide, 4 high.
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [6, 4]);

    const session = imported.get("hparams/session")!;
    const details = await test.client.get<{ config: unknown }>(`/api/runs/details/${session.id}`);
    assert.deepEqual(details.body.config, { lr: 0.001, batch_size: 32, optimizer: "adam", augment: true });
    assert.deepEqual(values(await points("tb", session.id, "hparam/accuracy")), [0.875]);

    const tf2 = imported.get("tf2")!;
    assert.deepEqual(values(await points("tb", tf2.id, "float_val")), [0.5, 1.5, 2.5, 3.5, 4.5]);
    assert.deepEqual(values(await points("tb", tf2.id, "tensor_content")), [0, 0.25, 0.5, 0.75, 1]);
    assert.deepEqual(
      values(await points("tb", tf2.id, "double_val")),
      [0, 1, 2, 3, 4].map((n) => 1 / 3 + n),
    );

    // Two event files of one run merged in step order: the restart's later values win steps 3 and 4.
    const restart = await points("tb", imported.get("restart")!.id, "loss");
    assert.deepEqual(
      restart.map((p) => [p.step, p.value]),
      [
        [0, 10],
        [1, 11],
        [2, 12],
        [3, 23],
        [4, 24],
        [5, 25],
        [6, 26],
        [7, 27],
      ],
    );
    assert.equal(imported.get("restart")!.statusUpdated, new Date(T0 + 107_000).toISOString());

    const corrupted = await points("tb", imported.get("corrupted")!.id, "loss");
    assert.deepEqual(
      corrupted.map((p) => p.step),
      [0, 1, 2, 3, 5, 6, 7, 8, 9],
    );
    const truncated = await points("tb", imported.get("truncated")!.id, "loss");
    assert.deepEqual(
      truncated.map((p) => p.step),
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
  });

  it("imports nothing again on a re-run, and only the new records of a file that grew", async () => {
    const again = await cli(["import", "tensorboard", logdir, "--project", "tb", ...store]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /Imported 6 runs \(0 new, 6 up to date\): 0 points/);

    // A training job still writing: its file cut inside a record, imported, then written to the end.
    const whole = readFileSync(join(FIXTURES, "basic", "events.out.tfevents.1700000000.fixture"));
    const growing = join(logdir, "growing", "events.out.tfevents.1700000000.fixture");
    cpSync(join(FIXTURES, "restart"), join(logdir, "growing"), { recursive: true, filter: (path) => !path.endsWith(".fixture") });
    writeFileSync(growing, whole.subarray(0, 620)); // inside the record at byte 600 (train/loss, step 6)
    const first = await cli(["import", "tensorboard", logdir, "--project", "tb", ...store]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /\(1 new, 6 up to date\): 12 points/);
    assert.match(first.stderr, /growing\/events\.out\.tfevents\.1700000000\.fixture at byte 600: the file ends inside this record/);
    const run = (await runs("tb")).get("growing")!;
    assert.deepEqual(
      (await points("tb", run.id, "train/loss")).map((p) => p.step),
      [0, 1, 2, 3, 4, 5],
    );

    writeFileSync(growing, whole);
    const second = await cli(["import", "tensorboard", logdir, "--project", "tb", ...store]);
    assert.equal(second.code, 0, second.stderr);
    // Only what was written since: steps 6-9 of the two tags, and the histograms, images and text after them in the file.
    assert.match(second.stdout, /\(0 new, 6 up to date\): 8 points, 2 histograms, 2 images, 1 texts/);
    assert.equal((await runs("tb")).get("growing")!.id, run.id, "the same run, matched by its path");
    assert.deepEqual(
      (await points("tb", run.id, "train/loss")).map((p) => p.step),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.equal((await runs("tb")).get("growing")!.statusUpdated, new Date(T0 + 9000).toISOString());
  });

  it("stops cleanly on Ctrl-C between batches, and a re-run resumes to every run imported once", async () => {
    const many = join(makeTempDir("stepwise-tb-many-"), "logs");
    for (let i = 0; i < 300; i++) cpSync(join(FIXTURES, "restart"), join(many, `run-${String(i).padStart(3, "0")}`), { recursive: true });
    const child = spawn(process.execPath, [BIN, "import", "tensorboard", many, "--project", "many", ...store], {
      env: { ...process.env, STEPWISE_DATA_DIR: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("run-001")) resolve();
      }),
    );
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 130, stdout + stderr);
    assert.match(stderr, /interrupted\. \d+ runs were imported whole/);
    const interruptedAt = Number(/interrupted\. (\d+) runs/.exec(stderr)![1]);
    assert.ok(interruptedAt < 300, `${interruptedAt} runs before the signal`);

    const resumed = await cli(["import", "tensorboard", many, "--project", "many", ...store]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const counts = /Imported 300 runs \((\d+) new, (\d+) up to date\): (\d+) points/.exec(resumed.stdout);
    assert.ok(counts, resumed.stdout);
    assert.equal(Number(counts[2]), interruptedAt, "the runs imported whole before the signal are not read again");
    const listed = await test.client.get<{ total: number; runs: RunItem[] }>("/api/runs/list?projectName=many&limit=1");
    assert.equal(listed.body.total, 300);
    const last = listed.body.runs[0]!;
    assert.deepEqual(
      (await points("many", last.id, "loss")).map((p) => p.value),
      [10, 11, 12, 23, 24, 25, 26, 27],
    );
  });

  it("keeps a run two levels below another one apart unless it is an add_scalars directory", async () => {
    const nested = join(makeTempDir("stepwise-tb-nested-"), "logs");
    cpSync(join(FIXTURES, "restart"), join(nested, "parent"), { recursive: true });
    cpSync(join(FIXTURES, "tf2"), join(nested, "parent", "other", "deep"), { recursive: true });
    const result = await cli(["import", "tensorboard", nested, "--project", "nested", ...store]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([...(await runs("nested")).keys()].sort(), ["parent", "parent/other/deep"]);
  });

  it("names runs by --run-name and refuses wrong use", async () => {
    const named = await cli([
      "import",
      "tensorboard",
      join(logdir, "restart"),
      "--project",
      "named",
      "--run-name",
      "tb-{logdir}",
      ...store,
    ]);
    assert.equal(named.code, 0, named.stderr);
    assert.deepEqual([...(await runs("named")).keys()], ["tb-restart"]);

    const help = await cli(["import", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: stepwise import tensorboard <logdir> --project <name>/);
    const noProject = await cli(["import", "tensorboard", logdir, ...store]);
    assert.equal(noProject.code, 2);
    assert.match(noProject.stderr, /--project is required/);
    const unknown = await cli(["import", "wandb", logdir, "--project", "x", ...store]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown source 'wandb'/);
    const missing = await cli(["import", "tensorboard", join(logdir, "nowhere"), "--project", "x", ...store]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no directory at/);
  });
});
