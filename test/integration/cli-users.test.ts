import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { ApiClient } from "../helpers/client.js";
import { BIN, startTestServer, type TestServer } from "../helpers/start-server.js";

/** Runs the real `bin/stepwise` (dist/: `npm run build:server` first) in a child process. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, STEPWISE_DATA_DIR: "", STEPWISE_PUBLIC_URL: "" } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
      },
    );
  });
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)!;

/** `stepwise users` (README, "Teams and sign-in") against the store of a running server. */
describe("CLI: stepwise users", () => {
  let test: TestServer;
  let store: string[];
  before(async () => {
    test = await startTestServer();
    store = ["--data-dir", test.dataDir, "--database-url", test.databaseUrl];
  });
  after(async () => test.close());

  it("users create prints a one-time invitation link that sets the password and signs in at the server", async () => {
    const created = await cli([
      "users",
      "create",
      "--org",
      "default",
      "--email",
      "Grace@Example.com",
      "--role",
      "owner",
      ...store,
      "--public-url",
      test.url,
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /grace@example\.com is a member of 'default' with the role 'owner'/);
    const link = lastLine(created.stdout);
    assert.match(link, new RegExp(`^${test.url}/invite/[A-Za-z0-9_-]{43}$`));
    const anonymous = new ApiClient(test.url, undefined);
    const accepted = await anonymous.post(`/api/auth/invitations/${link.split("/invite/")[1]}/accept`, { password: "grace's password" });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.role, "owner");
    const signedIn = await anonymous.post("/api/auth/sign-in", { email: "grace@example.com", password: "grace's password" });
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.body.organization.slug, "default");
  });

  it("without --public-url the link names the host and port of the server's options", async () => {
    const created = await cli(["users", "create", "--org", "default", "--email", "linus@example.com", "--port", "9123", ...store]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(lastLine(created.stdout), /^http:\/\/127\.0\.0\.1:9123\/invite\/[A-Za-z0-9_-]{43}$/);
  });

  it("users list prints the members, as text and as JSON; set-role and remove change them", async () => {
    assert.equal((await cli(["users", "create", "--org", "default", "--email", "ada@example.com", "--name", "Ada", ...store])).code, 0);
    const text = await cli(["users", "list", "--org", "default", ...store]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /ada@example\.com\tAda\tmember\tjoined /);
    assert.match(text.stdout, /\(service\) admin\tadmin\towner/);
    const json = await cli(["users", "list", "--org", "default", "--json", ...store]);
    const rows = JSON.parse(json.stdout) as { email: string | null; role: string; kind: string; name: string }[];
    assert.deepEqual(
      rows.find((row) => row.email === "ada@example.com"),
      { ...rows.find((row) => row.email === "ada@example.com")!, name: "Ada", role: "member", kind: "person" },
    );

    const promoted = await cli(["users", "set-role", "--org", "default", "--email", "ada@example.com", "--role", "admin", ...store]);
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.match(promoted.stdout, /now has the role 'admin' in 'default' \(was 'member'\)/);
    const members = await test.client.get("/api/members");
    assert.equal(members.body.members.find((m: { user: { email: string } }) => m.user.email === "ada@example.com").role, "admin");

    const removed = await cli(["users", "remove", "--org", "default", "--email", "ada@example.com", ...store]);
    assert.equal(removed.code, 0, removed.stderr);
    const after = JSON.parse((await cli(["users", "list", "--org", "default", "--json", ...store])).stdout) as { email: string }[];
    assert.ok(!after.some((row) => row.email === "ada@example.com"));
    // The operator's changes are in the audit log, by 'cli'.
    const log = await test.client.get("/api/audit", { action: "member." });
    assert.deepEqual(
      log.body.entries.slice(0, 3).map((entry: { action: string; actor: { label: string } }) => [entry.action, entry.actor.label]),
      [
        ["member.remove", "cli"],
        ["member.role", "cli"],
        ["member.add", "cli"],
      ],
    );
  });

  it("the last owner can be neither demoted nor removed", async () => {
    assert.equal((await cli(["orgs", "create", "solo", ...store])).code, 0);
    assert.equal((await cli(["users", "create", "--org", "solo", "--email", "solo@example.com", "--role", "owner", ...store])).code, 0);
    const rows = JSON.parse((await cli(["users", "list", "--org", "solo", "--json", ...store])).stdout) as { email: string | null }[];
    assert.equal(rows.length, 2);
    // The service account of the organization's first key is an owner too: remove it, then the person is the last.
    const service = await test.server.store.listMembers((await test.server.store.getOrganizationBySlug("solo"))!.id);
    const owner = service.find((m) => m.user.kind === "service")!;
    await test.server.store.removeMembership(owner.orgId, owner.userId, Date.now());
    const demoted = await cli(["users", "set-role", "--org", "solo", "--email", "solo@example.com", "--role", "admin", ...store]);
    assert.equal(demoted.code, 2);
    assert.match(demoted.stderr, /must keep at least one owner/);
    const removed = await cli(["users", "remove", "--org", "solo", "--email", "solo@example.com", ...store]);
    assert.equal(removed.code, 2);
    assert.match(removed.stderr, /must keep at least one owner/);
  });

  it("refuses bad input before it opens the store, and names what is missing", async () => {
    const cases: [string[], RegExp][] = [
      [["users"], /missing action/],
      [["users", "promote", "--org", "default"], /unknown action 'promote'/],
      [["users", "create", "--email", "a@example.com"], /--org is required/],
      [["users", "create", "--org", "default"], /--email is required/],
      [["users", "set-role", "--org", "default", "--email", "a@example.com"], /--role is required/],
      [
        ["users", "create", "--org", "default", "--email", "a@example.com", "--role", "god"],
        /--role: must be one of viewer, member, admin, owner/,
      ],
      [
        ["users", "create", "--org", "default", "--email", "not-an-email", ...["--data-dir", "x"]],
        /no Stepwise data directory|not an email/,
      ],
      [["users", "create", "--org", "nowhere", "--email", "a@example.com"], /organization 'nowhere' not found/],
      [["users", "remove", "--org", "default", "--email", "nobody@example.com"], /no person with the email 'nobody@example.com'/],
    ];
    for (const [args, message] of cases) {
      const result = await cli([...args, ...(args.includes("--data-dir") ? [] : store)]);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stdout}`);
      assert.match(result.stderr, message, args.join(" "));
    }
    const help = await cli(["users", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /stepwise users create --org <slug> --email <email>/);
  });
});
