import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { ApiClient } from "../helpers/client.js";
import { BIN, makeOrg, makeTempDir, ManualClock, spawnServer, startTestServer, type TestServer } from "../helpers/start-server.js";
import { startSwiftS3, type SwiftS3 } from "../helpers/swift.js";

/**
 * Files in S3 with presigned URLs: clients move the bytes straight to and from the bucket (a real
 * S3 server, Swift), and the server only registers, confirms and signs (docs/api.md, "Files on S3").
 * The same behaviours as files.test.ts, where the bytes pass through the server.
 */
type Run = { runId: number; projectName: string };

let swift: SwiftS3;
let bucket: S3Client;
before(async () => {
  swift = await startSwiftS3();
  Object.assign(process.env, swift.env);
  bucket = new S3Client({
    endpoint: swift.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  });
});
after(async () => {
  bucket?.destroy();
  await swift?.stop();
});

const DAY_S = 24 * 60 * 60;

function register(client: ApiClient, run: Run, files: { fileName: string; logName: string; fileType?: string; fileSize?: number }[]) {
  const body = { files: files.map((file) => ({ fileType: "png", fileSize: 3, time: 1_700_000_000_000, step: 0, ...file })) };
  return client.raw("POST", "/files", JSON.stringify(body), {
    "content-type": "application/json",
    "x-run-id": String(run.runId),
    "x-project-name": run.projectName,
  });
}

async function uploadUrlFor(client: ApiClient, run: Run, file: Parameters<typeof register>[2][number]): Promise<string> {
  const response = await register(client, run, [file]);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return Object.values(response.body[file.logName][0] as Record<string, string>)[0]!;
}

async function put(url: string, body: string | Buffer | ReadableStream, contentType?: string) {
  const headers = contentType === undefined ? {} : { "content-type": contentType };
  const response = await fetch(url, { method: "PUT", body, headers, duplex: "half" } as RequestInit);
  return { status: response.status, text: await response.text() };
}

async function listFiles(client: ApiClient, run: Run) {
  const response = await client.get("/api/runs/files", { runId: run.runId, projectName: run.projectName });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.files as { fileName: string; url: string; fileSize: number }[];
}

async function objectExists(url: string): Promise<boolean> {
  const key = decodeURIComponent(new URL(url).pathname).split("/").slice(2).join("/");
  try {
    await bucket.send(new HeadObjectCommand({ Bucket: swift.bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

describe("files in S3 with presigned URLs", () => {
  const clock = new ManualClock(Date.now());
  let test: TestServer;
  let client: ApiClient;
  before(async () => {
    test = await startTestServer({ clock, flags: swift.flags("direct") });
    client = test.client;
  });
  after(async () => test.close());

  it("answers bucket URLs for upload and download, confirms uploads when listing, and serves files named and typed", async () => {
    const run = await client.createRun({ projectName: "s3" });
    const response = await register(client, run, [
      { fileName: "cat.png", logName: "samples/image" },
      { fileName: "page.html", logName: "pages", fileType: "html" },
      { fileName: "never.png", logName: "samples/image" },
    ]);
    assert.equal(response.status, 200);
    const urls = new Map(
      Object.values(response.body)
        .flat()
        .map((entry) => Object.entries(entry as Record<string, string>)[0]!),
    );
    for (const [name, url] of urls) {
      const parsed = new URL(url);
      assert.equal(parsed.origin, swift.endpoint, "the bytes go to the bucket, not to Stepwise");
      assert.equal(parsed.searchParams.get("X-Amz-Expires"), "3600", "upload URLs live 1 hour");
      assert.match(parsed.pathname, /^\/stepwise-test\/direct\/orgs\/[0-9a-f-]{36}\/projects\/\d+\/runs\/\d+\/files\/\d+$/, name);
      assert.ok(!parsed.pathname.includes(name.split(".")[0]!), "the key never carries the file's name");
    }
    assert.equal((await put(urls.get("cat.png")!, "cat bytes!", "image/png")).status, 200);
    assert.equal((await put(urls.get("page.html")!, "<script>alert(1)</script>")).status, 200);

    const files = await listFiles(client, run);
    assert.deepEqual(
      files.map((file) => [file.fileName, file.fileSize]),
      [
        ["cat.png", 10],
        ["page.html", 25],
      ],
      "uploaded files only, with the size found in the bucket",
    );
    for (const file of files) {
      const url = new URL(file.url);
      assert.equal(url.origin, swift.endpoint);
      assert.equal(url.searchParams.get("X-Amz-Expires"), String(5 * DAY_S), "download URLs live 5 days");
    }
    const cat = await fetch(files[0]!.url);
    assert.equal(await cat.text(), "cat bytes!");
    assert.equal(cat.headers.get("content-type"), "image/png");
    assert.equal(cat.headers.get("content-disposition"), "inline; filename*=UTF-8''cat.png");
    const page = await fetch(files[1]!.url);
    assert.equal(page.headers.get("content-disposition"), "attachment; filename*=UTF-8''page.html", "script-capable types download");

    assert.equal((await put(urls.get("never.png")!, "late")).status, 200);
    assert.equal((await listFiles(client, run)).length, 3, "a later upload is found by the next listing");
  });

  it("answers 403 from the bucket for tampered, swapped or expired URLs", async () => {
    const run = await client.createRun({ projectName: "s3" });
    const upload = await uploadUrlFor(client, run, { fileName: "x.png", logName: "img" });
    const other = await uploadUrlFor(client, run, { fileName: "y.png", logName: "img" });
    const tampered = new URL(upload);
    const signature = tampered.searchParams.get("X-Amz-Signature")!;
    tampered.searchParams.set("X-Amz-Signature", (signature[0] === "a" ? "b" : "a") + signature.slice(1));
    const longer = new URL(upload);
    longer.searchParams.set("X-Amz-Expires", String(7 * DAY_S));
    const swapped = new URL(upload);
    swapped.pathname = new URL(other).pathname;
    for (const url of [tampered, longer, swapped]) assert.equal((await put(url.toString(), "evil")).status, 403, url.toString());
    assert.deepEqual(await listFiles(client, run), [], "no forged upload stored anything");

    clock.advance(-(60 * 60 + 60) * 1000);
    const expired = await uploadUrlFor(client, run, { fileName: "x.png", logName: "img" });
    clock.advance((60 * 60 + 60) * 1000);
    assert.equal((await put(expired, "too late")).status, 403, "an upload URL signed more than an hour ago");

    assert.equal((await put(upload, "good")).status, 200);
    const [file] = await listFiles(client, run);
    const asUpload = new URL(file!.url);
    assert.equal((await put(asUpload.toString(), "evil")).status, 403, "a download URL is no upload URL");
    assert.equal(await (await fetch(file!.url)).text(), "good");

    clock.advance(-(5 * DAY_S + 60) * 1000);
    const [old] = await listFiles(client, run);
    clock.advance((5 * DAY_S + 60) * 1000);
    assert.equal((await fetch(old!.url)).status, 403, "a download URL signed more than 5 days ago");
  });

  it("refuses path-escape names before anything reaches the bucket; a nested name is only the download's name", async () => {
    const run = await client.createRun({ projectName: "s3" });
    const escaping = await register(client, run, [
      { fileName: "fine.png", logName: "img" },
      { fileName: "../../escape.png", logName: "img" },
    ]);
    assert.equal(escaping.status, 400);
    const url = await uploadUrlFor(client, run, { fileName: "sub/dir/ok.png", logName: "img" });
    assert.ok(!url.includes("sub") && !url.includes("ok.png"));
    assert.equal((await put(url, "nested")).status, 200);
    const [file] = await listFiles(client, run);
    assert.equal(file!.fileName, "sub/dir/ok.png");
    assert.equal((await fetch(file!.url)).headers.get("content-disposition"), "inline; filename*=UTF-8''ok.png");
  });

  it("keeps other organizations' files apart, in the API and in the bucket's keys", async () => {
    const run = await client.createRun({ projectName: "s3" });
    const mine = await uploadUrlFor(client, run, { fileName: "mine.png", logName: "img" });
    assert.equal((await put(mine, "mine")).status, 200);
    const other = await makeOrg(test);
    const theirRun = await other.client.createRun({ projectName: "s3" });
    assert.equal((await register(other.client, run, [{ fileName: "theirs.png", logName: "img" }])).status, 404);
    assert.equal((await other.client.get("/api/runs/files", { runId: run.runId, projectName: run.projectName })).status, 404);
    const theirs = await uploadUrlFor(other.client, theirRun, { fileName: "mine.png", logName: "img" });
    assert.ok(new URL(theirs).pathname.includes(`/orgs/${other.organization.id}/`));
    assert.ok(!new URL(mine).pathname.includes(`/orgs/${other.organization.id}/`));
    assert.equal((await put(theirs, "theirs")).status, 200);
    const [file] = await listFiles(client, run);
    assert.equal(await (await fetch(file!.url)).text(), "mine", "the same name in another organization is another object");
  });

  it("lets the web UI show images from the bucket", async () => {
    const response = await fetch(`${test.url}/`);
    const policy = response.headers.get("content-security-policy")!;
    assert.match(policy, new RegExp(`img-src 'self' ${swift.endpoint} data: blob:`));
    assert.match(policy, new RegExp(`media-src 'self' ${swift.endpoint} blob:`));
    assert.match(policy, /connect-src 'self';/, "scripts still talk only to Stepwise");
  });

  it("checks the bucket for readiness", async () => {
    assert.equal((await fetch(`${test.url}/api/health/ready`)).status, 200);
  });
});

describe("files in S3 with presigned URLs: size limit", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer({ flags: { ...swift.flags("limit"), "--max-upload-size": "1KiB" } });
  });
  after(async () => test.close());

  it("refuses a declared size past the limit at registration, and deletes an upload past it instead of listing it", async () => {
    const run = await test.client.createRun({ projectName: "limits" });
    const declared = await register(test.client, run, [{ fileName: "big.bin", logName: "f", fileSize: 1025 }]);
    assert.equal(declared.status, 413);
    assert.match(declared.body.error, /1024 bytes/);
    const exact = await uploadUrlFor(test.client, run, { fileName: "exact.bin", logName: "f", fileSize: 1024 });
    assert.equal((await put(exact, Buffer.alloc(1024, 1))).status, 200);
    const lying = await uploadUrlFor(test.client, run, { fileName: "lying.bin", logName: "f", fileSize: 10 });
    assert.equal((await put(lying, Buffer.alloc(2048, 2))).status, 200, "the bucket cannot know the limit");
    assert.ok(await objectExists(lying));
    assert.deepEqual(
      (await listFiles(test.client, run)).map((file) => [file.fileName, file.fileSize]),
      [["exact.bin", 1024]],
    );
    assert.ok(!(await objectExists(lying)), "the object past the limit is deleted when the listing finds it");
  });
});

describe("files in S3 with presigned URLs: streaming and start-up", () => {
  const dataDirs: string[] = [];
  after(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("moves a 200 MB file without the bytes passing through the server", { timeout: 120_000 }, async () => {
    const dataDir = makeTempDir();
    dataDirs.push(dataDir);
    const server = await spawnServer(dataDir, Object.entries(swift.flags("big")).flat(), swift.env);
    try {
      const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
      const client = new ApiClient(server.url, key);
      const rss = (field: string) =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"))![1]);
      const run = await client.createRun({ projectName: "big" });
      const url = await uploadUrlFor(client, run, { fileName: "weights.bin", logName: "model", fileType: "bin", fileSize: 200 * 2 ** 20 });
      const idleKb = rss("VmRSS");
      const sent = createHash("sha256");
      async function* body() {
        for (let i = 0; i < 200; i++) {
          const chunk = Buffer.alloc(2 ** 20, i);
          sent.update(chunk);
          yield chunk;
        }
      }
      // Swift, like S3, needs the length of a PUT up front.
      const upload = await fetch(url, {
        method: "PUT",
        body: Readable.toWeb(Readable.from(body())) as ReadableStream,
        headers: { "content-length": String(200 * 2 ** 20) },
        duplex: "half",
      } as RequestInit);
      assert.equal(upload.status, 200, await upload.text());
      const [file] = await listFiles(client, run);
      assert.equal(file!.fileSize, 200 * 2 ** 20);
      const streamed = await fetch(file!.url);
      const received = createHash("sha256");
      for await (const part of streamed.body!) received.update(part);
      assert.equal(received.digest("hex"), sent.digest("hex"));
      const grownKb = rss("VmHWM") - idleKb;
      console.log(`server peak RSS ${Math.round(rss("VmHWM") / 1024)} MB, ${Math.round(grownKb / 1024)} MB above idle (presigned URLs)`);
      assert.ok(grownKb < 20 * 1024, `server RSS grew ${Math.round(grownKb / 1024)} MB while clients moved a 200 MB file`);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  });

  it("refuses to start, saying why, when the bucket is missing, the credentials are wrong or the endpoint is unreachable", async () => {
    const dataDir = makeTempDir();
    dataDirs.push(dataDir);
    const run = promisify(execFile);
    const start = async (flags: Record<string, string>, env: Record<string, string>) => {
      try {
        await run(process.execPath, [BIN, "serve", "--data-dir", dataDir, "--port", "0", ...Object.entries(flags).flat()], {
          env: { ...process.env, ...env },
          timeout: 60_000,
        });
        return "started";
      } catch (error) {
        return (error as { stderr: string }).stderr;
      }
    };
    const noBucket = await start({ ...swift.flags(), "--blob-url": "s3://no-such-bucket" }, swift.env);
    assert.match(noBucket, /bucket 'no-such-bucket' .*the bucket does not exist/);
    const badSecret = await start(swift.flags(), { ...swift.env, AWS_SECRET_ACCESS_KEY: "wrong" });
    assert.match(badSecret, /access denied: the credentials are wrong/);
    const closedPort = await start({ ...swift.flags(), "--s3-endpoint": "http://127.0.0.1:1" }, swift.env);
    assert.match(closedPort, /the endpoint cannot be reached \(ECONNREFUSED\)/);
  });

  it("prints the S3 configuration with the secret hidden", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, "config", ...Object.entries(swift.flags("x")).flat()], {
      env: { ...process.env, ...swift.env, AWS_SESSION_TOKEN: "token-value" },
    });
    assert.match(stdout, /--blob-url\s+STEPWISE_BLOB_URL\s+"s3:\/\/stepwise-test\/x"/);
    assert.match(stdout, /AWS_SECRET_ACCESS_KEY\s+"\(set, hidden\)"/);
    assert.ok(!stdout.includes(swift.secretAccessKey) && !stdout.includes("token-value"), stdout);
  });
});

describe("moving files from a data directory to S3", () => {
  const dataDirs: string[] = [];
  after(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("copy-files copies every uploaded file to the keys the server reads, resumes by size and checksum, and reports progress", {
    timeout: 120_000,
  }, async () => {
    const dataDir = makeTempDir();
    dataDirs.push(dataDir);
    const contents = new Map([
      ["a.png", Buffer.from("small a")],
      ["b.txt", Buffer.from("small b")],
      ["big.bin", Buffer.alloc(6 * 2 ** 20 + 5, 9)],
    ]);
    const local = await spawnServer(dataDir);
    const key = /sw_[A-Za-z0-9_-]{43}/.exec(local.stdout())![0];
    let run: Run;
    try {
      const client = new ApiClient(local.url, key);
      run = await client.createRun({ projectName: "moving" });
      for (const [fileName, bytes] of contents) {
        const url = await uploadUrlFor(client, run, { fileName, logName: "files", fileType: "" });
        assert.equal((await put(url, bytes)).status, 200);
      }
      await uploadUrlFor(client, run, { fileName: "never-uploaded.png", logName: "files" });
    } finally {
      local.child.kill("SIGTERM");
      await local.exited;
    }

    const flags = Object.entries(swift.flags("moved")).flat();
    const copy = async () =>
      (
        await promisify(execFile)(process.execPath, [BIN, "copy-files", "--data-dir", dataDir, ...flags], {
          env: { ...process.env, ...swift.env },
        })
      ).stdout;
    assert.match(await copy(), /3\/3 files \(3 copied, 0 already there\), 6\.3\/6\.3 MB\ndone/);
    assert.match(await copy(), /3\/3 files \(0 copied, 3 already there\)/, "a re-run copies nothing");

    const onS3 = await spawnServer(dataDir, flags, swift.env);
    try {
      const client = new ApiClient(onS3.url, key);
      let files = await listFiles(client, run!);
      assert.deepEqual(files.map((file) => file.fileName).sort(), [...contents.keys()].sort());
      const damaged = decodeURIComponent(new URL(files.find((file) => file.fileName === "a.png")!.url).pathname)
        .split("/")
        .slice(2)
        .join("/");
      await bucket.send(new PutObjectCommand({ Bucket: swift.bucket, Key: damaged, Body: "small X" }));
      assert.match(await copy(), /\(1 copied, 2 already there\)/, "an object with other bytes of the same size is copied again");
      files = await listFiles(client, run!);
      for (const file of files) {
        const body = Buffer.from(await (await fetch(file.url)).arrayBuffer());
        assert.deepEqual(body, contents.get(file.fileName), file.fileName);
      }
    } finally {
      onS3.child.kill("SIGTERM");
      await onS3.exited;
    }
  });
});
