import assert from "node:assert/strict";
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DATABASE_FILE } from "../../src/store/sqlite/index.js";
import { issueKey } from "../../src/services/accounts.js";
import { ApiClient } from "../helpers/client.js";
import { makeOrg, makeTempDir, spawnServer, startTestServer, type TestServer } from "../helpers/start-server.js";
import { waitFor } from "../helpers/wait-for.js";

type Run = { runId: number; projectName: string };

/** Registers one file and returns its signed upload URL. */
async function registerFile(client: ApiClient, run: Run, fileName = "a.png"): Promise<string> {
  const response = await client.raw(
    "POST",
    "/files",
    JSON.stringify({ files: [{ fileName, fileType: "png", fileSize: 1, time: 1, step: 0, logName: "images" }] }),
    { "content-type": "application/json", "x-run-id": String(run.runId), "x-project-name": run.projectName },
  );
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return Object.values(response.body.images.at(-1) as Record<string, string>)[0]!;
}

async function downloadUrls(client: ApiClient, run: Run): Promise<string[]> {
  const list = await client.get("/api/runs/files", run);
  assert.equal(list.status, 200);
  return list.body.files.map((file: { url: string }) => file.url);
}

const put = async (url: string) => (await fetch(url, { method: "PUT", body: "x" })).status;
const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
};

/** The URL with its signature's last character replaced. */
function withLastSigChar(url: string, char: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("sig", parsed.searchParams.get("sig")!.slice(0, -1) + char);
  return parsed.toString();
}

describe("signed URLs: canonical signatures, and the minting key's revocation", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("refuses every other spelling of the signature's last character, though it decodes to the same bytes", async () => {
    const run = await test.client.createRun({ projectName: "sig" });
    assert.equal(await put(await registerFile(test.client, run)), 200);
    const [url] = await downloadUrls(test.client, run);
    assert.equal((await get(url!)).status, 200);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sig = new URL(url!).searchParams.get("sig")!;
    const last = alphabet.indexOf(sig.at(-1)!);
    const aliases = [0, 1, 2, 3].map((low) => alphabet[(last & ~3) | low]!).filter((char) => char !== sig.at(-1));
    for (const alias of aliases) {
      const answer = await get(withLastSigChar(url!, alias));
      assert.equal(answer.status, 403, alias);
      assert.deepEqual(JSON.parse(answer.text), { error: "signed URL signature does not match" });
    }
  });

  it("stops a revoked key's upload and download URLs, and only that key's", async () => {
    const kept = await makeOrg(test);
    const [first] = await test.server.store.listApiKeys(kept.organization.id);
    const { key, record } = await issueKey(
      test.server.store,
      { orgId: kept.organization.id, userId: first!.userId, name: "second", expiresAt: null, role: null },
      Date.now(),
    );
    const other = kept.client.withKey(key);
    const run = await kept.client.createRun({ projectName: "revocation" });
    const keptUpload = await registerFile(kept.client, run, "kept.png");
    const otherUpload = await registerFile(other, run, "other.png");
    assert.equal(await put(keptUpload), 200);
    const [keptDownload] = await downloadUrls(kept.client, run);
    const [otherDownload] = await downloadUrls(other, run);
    assert.equal((await get(otherDownload!)).status, 200);

    await test.server.store.revokeApiKey(record.id, Date.now());
    for (const url of [otherDownload!]) {
      const answer = await get(url);
      assert.equal(answer.status, 403);
      assert.deepEqual(JSON.parse(answer.text), { error: "signed URL was made with an API key that has been revoked" });
    }
    assert.equal(await put(otherUpload), 403);
    assert.equal((await get(keptDownload!)).status, 200, "the other key's URLs still work");
    assert.equal(await put(keptUpload), 200);
  });
});

describe("response headers and request IDs", () => {
  let test: TestServer;
  before(async () => {
    test = await startTestServer();
  });
  after(async () => test.close());

  it("the UI forbids framing and foreign scripts; API answers are not affected", async () => {
    for (const path of ["/", "/signin", "/projects/p/runs/1"]) {
      const response = await fetch(new URL(path, test.url));
      await response.text();
      const policy = response.headers.get("content-security-policy") ?? "";
      assert.match(policy, /frame-ancestors 'none'/, path);
      assert.match(policy, /script-src 'self'(;|$)/, path);
      assert.match(policy, /object-src 'none'/, path);
      assert.equal(response.headers.get("x-frame-options"), "DENY", path);
    }
    const api = await test.client.get("/api/health");
    assert.equal(api.headers.get("x-frame-options"), null);
  });

  it("keeps a client's request ID only when it is a short token of safe characters", async () => {
    const echoed = async (id: string) =>
      (await test.client.get("/api/health", undefined, { "x-request-id": id })).headers.get("x-request-id");
    for (const id of ["trace-123", "a.b_c:D-9", "x".repeat(128)]) assert.equal(await echoed(id), id);
    for (const id of ["x".repeat(129), "two words", "<script>", "a;b", "%0d%0a", "é"]) {
      const answer = await echoed(id);
      assert.notEqual(answer, id);
      assert.match(answer!, /^[0-9a-f-]{36}$/, `${id} was replaced by a new UUID`);
    }
  });
});

describe("files on disk and request logs", () => {
  it("creates the data directory, database, stored files and their folders owner-only", async () => {
    const test = await startTestServer();
    try {
      const run = await test.client.createRun({ projectName: "perms" });
      assert.equal(await put(await registerFile(test.client, run)), 200);
      const mode = (path: string) => statSync(path).mode & 0o777;
      assert.equal(mode(test.dataDir) & 0o077, 0, "data directory");
      for (const name of readdirSync(test.dataDir).filter((file) => file.startsWith(DATABASE_FILE))) {
        assert.equal(mode(join(test.dataDir, name)), 0o600, name);
      }
      const files = join(test.dataDir, "files");
      for (const entry of readdirSync(files, { recursive: true, encoding: "utf8" })) {
        const path = join(files, entry);
        assert.equal(mode(path), statSync(path).isDirectory() ? 0o700 : 0o600, entry);
      }
      assert.equal(mode(files), 0o700);
    } finally {
      await test.close();
    }
  });

  it("logs signed URLs without their signature", async () => {
    const dataDir = makeTempDir();
    const server = await spawnServer(dataDir, ["--log-level", "info"]);
    try {
      const key = /\s(sw_\S+)/.exec(server.stdout())?.[1];
      assert.ok(key, server.stdout());
      const client = new ApiClient(server.url, key);
      const run = await client.createRun({ projectName: "logs" });
      const upload = await registerFile(client, run);
      assert.equal(await put(upload), 200);
      const [download] = await downloadUrls(client, run);
      assert.equal((await get(download!)).status, 200);
      const log = await waitFor(() => server.stdout().includes("/files/download/") && server.stdout(), { what: "the download in the log" });
      for (const url of [upload, download!]) {
        const sig = new URL(url).searchParams.get("sig")!;
        assert.ok(!log.includes(sig), "the signature is not in the log");
      }
      assert.match(log, /"url":"\/files\/download\/\d+\/a\.png\?expires=\d+&key=[\w-]+&sig=\[redacted\]"/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
