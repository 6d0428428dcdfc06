import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "../helpers/client.js";
import { BIN, makeTempDir, startTestServer, type TestServer } from "../helpers/start-server.js";

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `bin/stepwise` in a child process (asynchronously, so the in-process server keeps answering). */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)!;
const KEY = /^sw_[A-Za-z0-9_-]{43}$/;

describe("CLI", () => {
  let test: TestServer;
  let dataDir: string[];
  before(async () => {
    test = await startTestServer();
    // The server's store, SQLite or PostgreSQL (an empty --database-url means SQLite in --data-dir).
    dataDir = ["--data-dir", test.dataDir, "--database-url", test.databaseUrl];
  });
  after(async () => test.close());

  it("prints usage and exits 0 for --help on every command and subcommand", async () => {
    const invocations = [
      ["--help"],
      ["-h"],
      ["help"],
      ["serve", "--help"],
      ["config", "--help"],
      ["orgs", "--help"],
      ["orgs", "create", "--help"],
      ["orgs", "list", "--help"],
      ["keys", "--help"],
      ["keys", "create", "--help"],
      ["keys", "list", "--help"],
      ["keys", "revoke", "--help"],
      ["keys", "create", "-h"],
    ];
    const results = await Promise.all(invocations.map((args) => cli(args)));
    results.forEach((result, i) => {
      const args = invocations[i]!.join(" ");
      assert.equal(result.code, 0, `${args}: ${result.stderr}`);
      assert.match(result.stdout, /Usage/, args);
      if (invocations[i]![0] === "keys" || invocations[i]![0] === "orgs")
        assert.match(result.stdout, new RegExp(`stepwise ${invocations[i]![0]} create`), args);
    });
    assert.match(results[3]!.stdout, /--port/);
    assert.match(results[3]!.stdout, /--data-dir/);
  });

  it("orgs create prints a key on its last line that works on the server running on the same data directory", async () => {
    const result = await cli(["orgs", "create", "cli-made", ...dataDir]);
    assert.equal(result.code, 0, result.stderr);
    const key = lastLine(result.stdout);
    assert.match(key, KEY);
    const response = await new ApiClient(test.url, key).get("/api/runs/auth/validate");
    assert.equal(response.status, 200);
    assert.equal(response.body.organization.slug, "cli-made");
  });

  it("orgs list prints every organization, as text and as JSON", async () => {
    assert.equal((await cli(["orgs", "create", "listed", ...dataDir])).code, 0);
    const text = await cli(["orgs", "list", ...dataDir]);
    assert.equal(text.code, 0, text.stderr);
    const slugs = text.stdout
      .trim()
      .split("\n")
      .map((line) => line.split("\t")[0]);
    assert.ok(slugs.includes("default") && slugs.includes("listed"), text.stdout);
    const json = await cli(["orgs", "list", "--json", ...dataDir]);
    const organizations = JSON.parse(json.stdout) as { id: string; slug: string; createdAt: string }[];
    const listed = organizations.find((o) => o.slug === "listed")!;
    assert.deepEqual(Object.keys(listed).sort(), ["createdAt", "id", "slug"]);
    assert.deepEqual(listed, {
      id: (await test.server.store.getOrganizationBySlug("listed"))!.id,
      slug: "listed",
      createdAt: listed.createdAt,
    });
    assert.match(listed.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("keys create prints only the key on the last line; keys list --json shows it with exactly its fields", async () => {
    assert.equal((await cli(["orgs", "create", "keyed", ...dataDir])).code, 0);
    const created = await cli(["keys", "create", "--org", "keyed", "--name", "n", "--expires-in", "30d", ...dataDir]);
    assert.equal(created.code, 0, created.stderr);
    const key = lastLine(created.stdout);
    assert.match(key, KEY);
    assert.equal((await new ApiClient(test.url, key).get("/api/runs/auth/validate")).body.organization.slug, "keyed");

    const listed = await cli(["keys", "list", "--org", "keyed", "--json", ...dataDir]);
    assert.equal(listed.code, 0, listed.stderr);
    const keys = JSON.parse(listed.stdout) as Record<string, string | null>[];
    assert.deepEqual(keys.map((k) => k.name).sort(), ["default", "n"]);
    for (const k of keys)
      assert.deepEqual(Object.keys(k), ["id", "name", "user", "role", "memberRole", "createdAt", "expiresAt", "revokedAt"]);
    const made = keys.find((k) => k.name === "n")!;
    assert.equal(Date.parse(made.expiresAt!) - Date.parse(made.createdAt!), 30 * 24 * 3_600_000);
    assert.equal(made.revokedAt, null);
    assert.equal(keys.find((k) => k.name === "default")!.expiresAt, null);
    assert.ok(!listed.stdout.includes(key) && !listed.stdout.includes(key.slice(3, 20)), "the key itself is never listed");
  });

  it("keys revoke makes the running server answer 401 'API key has been revoked' (PostgreSQL: within the auth cache's 1 s); revoking again keeps the first time", async () => {
    assert.equal((await cli(["orgs", "create", "revoking", ...dataDir])).code, 0);
    const key = lastLine((await cli(["keys", "create", "--org", "revoking", "--name", "doomed", ...dataDir])).stdout);
    const client = new ApiClient(test.url, key);
    assert.equal((await client.get("/api/runs/projects")).status, 200);
    const id = (
      JSON.parse((await cli(["keys", "list", "--org", "revoking", "--json", ...dataDir])).stdout) as { id: string; name: string }[]
    ).find((k) => k.name === "doomed")!.id;

    const revoked = await cli(["keys", "revoke", id, ...dataDir]);
    assert.equal(revoked.code, 0, revoked.stderr);
    // Another process revoked it: SQLite's server sees it at once, PostgreSQL's within --auth-cache-ttl (1 s).
    if (test.databaseUrl !== "") await new Promise((resolve) => setTimeout(resolve, 1000));
    const response = await client.get("/api/runs/projects");
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, { error: "API key has been revoked" });

    const revokedAt = (await test.server.store.listApiKeys((await test.server.store.getOrganizationBySlug("revoking"))!.id)).find(
      (k) => k.id === id,
    )!.revokedAt;
    assert.equal((await cli(["keys", "revoke", id, ...dataDir])).code, 0);
    const again = (await test.server.store.listApiKeys((await test.server.store.getOrganizationBySlug("revoking"))!.id)).find(
      (k) => k.id === id,
    )!.revokedAt;
    assert.equal(again, revokedAt);
    assert.equal((await test.client.get("/api/runs/projects")).status, 200, "other keys keep working");
  });

  it("reads --data-dir from STEPWISE_DATA_DIR", async () => {
    const result = await cli(["orgs", "list", "--json"], { STEPWISE_DATA_DIR: test.dataDir, STEPWISE_DATABASE_URL: test.databaseUrl });
    assert.equal(result.code, 0, result.stderr);
    assert.ok((JSON.parse(result.stdout) as { slug: string }[]).some((o) => o.slug === "default"));
  });

  it("config prints the effective values, flags over environment", async () => {
    const result = await cli(["config", "--port", "9123"], { STEPWISE_PORT: "9000", STEPWISE_HOST: "0.0.0.0" });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /--port\s+STEPWISE_PORT\s+9123/);
    assert.match(result.stdout, /--host\s+STEPWISE_HOST\s+"0\.0\.0\.0"/);
  });

  it("rejects bad input with a non-zero exit and a message that says what was wrong, printing no key", async () => {
    assert.equal((await cli(["orgs", "create", "dup", ...dataDir])).code, 0);
    const missingDir = join(makeTempDir(), "absent");
    const cases: [string[], RegExp][] = [
      [["keys", "create", "--org", "no-such-org", ...dataDir], /organization 'no-such-org' not found/],
      [["keys", "list", "--org", "no-such-org", ...dataDir], /organization 'no-such-org' not found/],
      [["keys", "create", ...dataDir], /--org is required/],
      [["keys", "create", "--org", "dup", "--expires-in", "3x", ...dataDir], /expires-in.*'3x'/],
      [["keys", "create", "--org", "dup", "--expires-in", "30", ...dataDir], /expires-in.*'30'/],
      [["keys", "create", "--org", "dup", "--expires-in", "0d", ...dataDir], /expires-in must be longer than 0/],
      [["keys", "create", "--org", "dup", "--expires-in", "999999999d", ...dataDir], /expires-in must be at most 36500d/],
      [["keys", "create", "--org", "dup", "--expires-in", "36501d", ...dataDir], /expires-in must be at most 36500d/],
      [["keys", "create", "--org", "dup", "--expires-in", ...dataDir], /expires-in/],
      [["keys", "revoke", "no-such-key", ...dataDir], /no API key with id 'no-such-key'/],
      [["keys", "revoke", ...dataDir], /missing <key-id>/],
      [["keys", "rotate", ...dataDir], /unknown action 'rotate'/],
      [["keys", ...dataDir], /missing action/],
      [["orgs", "create", "Bad Slug", ...dataDir], /slug: 'Bad Slug'/],
      [["orgs", "create", "-leading-dash", ...dataDir], /slug|Unknown option/],
      [["orgs", "create", "dup", ...dataDir], /organization 'dup' already exists/],
      [["orgs", "create", ...dataDir], /missing <slug>/],
      [["orgs", "create", "a", "b", ...dataDir], /unexpected argument 'b'/],
      [["orgs", "list", "--data-dir", missingDir], /no Stepwise data directory at .*absent/],
      [["frobnicate"], /unknown command 'frobnicate'/],
      [["keys", "list", "--org", "dup", "--verbose", ...dataDir], /Unknown option '--verbose'/],
      [["serve", "--port", "http", "--data-dir", missingDir], /port must be an integer/],
      [["serve", "extra", "--data-dir", missingDir], /unexpected argument 'extra'/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      assert.notEqual(result.code, 0, args.join(" "));
      assert.match(result.stderr, message, `${args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stdout, /sw_[A-Za-z0-9_-]{43}/, args.join(" "));
    });
    assert.ok(!existsSync(missingDir), "a command that failed created no data directory");
    const slugs = (JSON.parse((await cli(["orgs", "list", "--json", ...dataDir])).stdout) as { slug: string }[]).map((o) => o.slug);
    assert.ok(!slugs.includes("Bad Slug") && !slugs.includes("a"), "nothing was created by the failed commands");
  });
});
