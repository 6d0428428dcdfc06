import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { BIN, startTestServer, type TestServer } from "../helpers/start-server.js";
import { type SwiftS3, startSwiftS3 } from "../helpers/swift.js";

/** Event files tensorboardX wrote (test/fixtures/tensorboard/make_fixtures.py says how). */
const BASIC = fileURLToPath(new URL("../fixtures/tensorboard/logs/basic", import.meta.url));

describe("stepwise import tensorboard with files on S3", () => {
  let swift: SwiftS3;
  let test: TestServer;
  let blobFlags: Record<string, string>;
  before(async () => {
    swift = await startSwiftS3();
    Object.assign(process.env, swift.env);
    blobFlags = { ...swift.flags("import-tb"), "--s3-direct-urls": "false" };
    test = await startTestServer({ flags: blobFlags });
  });
  after(async () => {
    await test?.close();
    await swift?.stop();
  });

  it("puts imported images in the bucket the server serves them from", async () => {
    const args = [
      "import",
      "tensorboard",
      BASIC,
      "--project",
      "tb-s3",
      "--data-dir",
      test.dataDir,
      "--database-url",
      test.databaseUrl,
      ...Object.entries(blobFlags)
        .filter(([flag]) => flag !== "--s3-direct-urls")
        .flat(),
    ];
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "" } }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      ),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /2 images/);
    const runs = await test.client.get<{ runs: { id: number }[] }>("/api/runs/list?projectName=tb-s3");
    const files = await test.client.get<{ files: { step: number; url: string }[] }>(
      `/api/runs/files?runId=${runs.body.runs[0]!.id}&projectName=tb-s3&logName=samples/input`,
    );
    assert.deepEqual(
      files.body.files.map((f) => f.step),
      [0, 5],
    );
    const png = Buffer.from(await (await fetch(files.body.files[0]!.url)).arrayBuffer());
    assert.equal(png.subarray(1, 4).toString("latin1"), "PNG");
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [6, 4]);
  });
});
