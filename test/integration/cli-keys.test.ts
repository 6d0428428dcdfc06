import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "../helpers/client.js";
import { BIN, startTestServer, type TestServer } from "../helpers/start-server.js";

/**
 * `stepwise keys create --user | --service | --role` (README, "Command line"; docs/semantics.md,
 * "People, roles and sign-in"): keys of a person or a service account, a key's role at most its
 * owner's, and `keys list` naming each key's owner and role. The real CLI against the server's store.
 */

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, STEPWISE_DATA_DIR: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)!;

interface Listed {
  id: string;
  name: string;
  user: { id: string; kind: string; email: string | null; name: string } | null;
  role: string | null;
  memberRole: string | null;
}

describe("CLI: keys of people and service accounts", () => {
  let test: TestServer;
  let store: string[];
  before(async () => {
    test = await startTestServer({ flags: { "--stale-after": "0" } });
    store = ["--data-dir", test.dataDir, "--database-url", test.databaseUrl];
  });
  after(async () => test.close());

  const create = (...args: string[]) => cli(["keys", "create", ...args, ...store]);
  const list = async (slug: string) => JSON.parse((await cli(["keys", "list", "--org", slug, "--json", ...store])).stdout) as Listed[];

  it("--service makes the service account (a member, or --role) once and gives it keys; --role caps a key; list names owner and role", async () => {
    assert.equal((await cli(["orgs", "create", "svc", ...store])).code, 0);
    const first = await create("--org", "svc", "--service", "ci", "--name", "ci-1");
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /of service account 'ci' \(its owner's role\)/);
    const ci = new ApiClient(test.url, lastLine(first.stdout));
    const validate = await ci.get("/api/runs/auth/validate");
    assert.equal(validate.body.role, "member");
    assert.equal(validate.body.user.kind, "service");
    assert.equal(validate.body.user.name, "ci");
    assert.equal((await ci.post("/api/runs/create", { projectName: "p", runName: "r" })).status, 200);

    const readOnly = await create("--org", "svc", "--service", "ci", "--role", "viewer", "--name", "ci-ro");
    assert.equal(readOnly.code, 0, readOnly.stderr);
    const ro = new ApiClient(test.url, lastLine(readOnly.stdout));
    assert.equal((await ro.get("/api/runs/auth/validate")).body.user.id, validate.body.user.id, "the same service account");
    assert.equal((await ro.post("/api/runs/create", { projectName: "p", runName: "r" })).status, 403);

    const above = await create("--org", "svc", "--service", "ci", "--role", "admin");
    assert.notEqual(above.code, 0);
    assert.match(above.stderr, /a key's role is at most its owner's: 'admin' is above 'member'/);
    assert.doesNotMatch(above.stdout, /sw_/);

    const reporter = await create("--org", "svc", "--service", "reporter", "--role", "viewer");
    assert.equal(reporter.code, 0, reporter.stderr);
    const owner = await create("--org", "svc", "--name", "plain");
    assert.equal(owner.code, 0, owner.stderr);

    const keys = await list("svc");
    const byName = new Map(keys.map((k) => [k.name, k]));
    assert.deepEqual(
      keys.map((k) => [k.name, k.user?.kind === "service" ? `service:${k.user.name}` : k.user?.email, k.role, k.memberRole]),
      [
        ["default", "service:admin", null, "owner"],
        ["ci-1", "service:ci", null, "member"],
        ["ci-ro", "service:ci", "viewer", "member"],
        ["cli", "service:reporter", "viewer", "viewer"],
        ["plain", "service:admin", null, "owner"],
      ],
    );
    assert.equal(byName.get("plain")!.user!.id, byName.get("default")!.user!.id, "without --user or --service: the owner service account");
    const text = await cli(["keys", "list", "--org", "svc", ...store]);
    assert.match(text.stdout, /\tci-ro\t.*\tservice:ci\tviewer\t/);
  });

  it("--user needs a member of the organization; its key acts as that person, never above its role", async () => {
    assert.equal((await cli(["orgs", "create", "people", ...store])).code, 0);
    assert.equal((await cli(["orgs", "create", "elsewhere", ...store])).code, 0);
    const org = (await test.server.store.getOrganizationBySlug("people"))!;
    const user = await test.server.store.createUser({ orgId: org.id, email: "ada@example.com", name: "Ada", kind: "person" }, Date.now());
    await test.server.store.setMembership(org.id, user.id, "admin", Date.now());

    const made = await create("--org", "people", "--user", "Ada@Example.com", "--role", "member");
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, /of ada@example.com \(role 'member'\)/);
    const validate = await new ApiClient(test.url, lastLine(made.stdout)).get("/api/runs/auth/validate");
    assert.equal(validate.body.user.email, "ada@example.com");
    assert.equal(validate.body.role, "member");

    for (const [args, message] of [
      [["--org", "elsewhere", "--user", "ada@example.com"], /'ada@example.com' is not a member of organization 'elsewhere'/],
      [["--org", "people", "--user", "nobody@example.com"], /'nobody@example.com' is not a member/],
      [["--org", "people", "--user", "ada@example.com", "--role", "owner"], /at most its owner's: 'owner' is above 'admin'/],
      [["--org", "people", "--user", "ada@example.com", "--service", "x"], /--user or --service, not both/],
      [["--org", "people", "--role", "god"], /--role: must be one of viewer, member, admin, owner/],
    ] as const) {
      const refused = await create(...args);
      assert.notEqual(refused.code, 0, args.join(" "));
      assert.match(refused.stderr, message, `${args.join(" ")}: ${refused.stderr}`);
      assert.doesNotMatch(refused.stdout, /sw_/);
    }
    assert.equal((await list("elsewhere")).length, 1, "nothing made in the other organization");
    assert.equal((await list("people")).length, 2);
  });
});
