import { ConfigError, parseDuration } from "../../config.js";
import { CLI_ACTOR } from "../../domain/audit.js";
import { DomainError } from "../../domain/errors.js";
import { systemClock, toIso, toIsoOrNull } from "../../domain/time.js";
import { createOwnerAccount, issueKey, keyFact } from "../../services/accounts.js";
import { AuditLog } from "../../services/audit.js";
import type { Store } from "../../store/store.js";
import { DATA_DIR_HELP, expectArguments, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";

type Values = Record<string, string | boolean | undefined>;

export const keysCommand: Command = {
  summary: "create, list and revoke API keys",
  usage: `Usage:
  stepwise keys create --org <slug> [--name NAME] [--expires-in 30d]   prints the new key alone on the last line
  stepwise keys list --org <slug> [--json]
  stepwise keys revoke <key-id>

Options:
${DATA_DIR_HELP}
  --org SLUG       organization of the key
  --name NAME      a label for the key (default "cli")
  --expires-in D   lifetime: <n>s, <n>m, <n>h or <n>d (default: never expires)
  --json           machine-readable output (list): [{id, name, createdAt, expiresAt, revokedAt}]`,
  valueOptions: [...STORE_OPTIONS, "org", "name", "expires-in"],
  switches: ["json"],
  async run({ positionals, values }) {
    const [action] = positionals;
    const work = ACTIONS.get(action ?? "");
    if (!work)
      throw new UsageError(
        action === undefined ? "missing action: create, list or revoke" : `unknown action '${action}': create, list or revoke`,
      );
    const args = expectArguments(positionals, action === "revoke" ? ["key-id"] : []);
    // Checked before the store is opened, so bad input never touches the data directory.
    const lifetime = action === "create" ? keyLifetime(values["expires-in"]) : undefined;
    const store = await openStore(values, { create: false });
    try {
      return await work(store, values, args, lifetime);
    } finally {
      await store.close();
    }
  },
};

const ACTIONS = new Map<string, (store: Store, values: Values, args: string[], lifetime: number | undefined) => Promise<number>>([
  ["create", createKey],
  ["list", listKeys],
  ["revoke", revokeKey],
]);

const MAX_KEY_LIFETIME_MS = 36_500 * 24 * 3600 * 1000;

/** `--expires-in` takes `<n>s|m|h|d`; a zero lifetime would make a key that never works. */
function keyLifetime(raw: string | boolean | undefined): number | undefined {
  if (typeof raw !== "string") return undefined;
  if (!/^\d+[smhd]$/.test(raw)) throw new ConfigError(`expires-in must be a duration like 30s, 15m, 2h or 7d, got '${raw}'`);
  const lifetime = parseDuration(raw, "expires-in");
  if (lifetime <= 0) throw new ConfigError(`expires-in must be longer than 0, got '${raw}'`);
  // Past this the expiry is not a date (999999999d was stored, then failed to print, then broke `keys list`).
  if (lifetime > MAX_KEY_LIFETIME_MS)
    throw new ConfigError(`expires-in must be at most 36500d (100 years; leave it out for a key that never expires), got '${raw}'`);
  return lifetime;
}

async function organizationOf(store: Store, slug: unknown) {
  if (typeof slug !== "string") throw new UsageError("--org is required");
  const organization = await store.getOrganizationBySlug(slug);
  if (!organization) throw new DomainError("NOT_FOUND", `organization '${slug}' not found`);
  return organization;
}

async function createKey(store: Store, values: Values, _args: string[], lifetime: number | undefined): Promise<number> {
  const organization = await organizationOf(store, values.org);
  const now = systemClock.now();
  const user = (await store.listUsers(organization.id))[0] ?? (await createOwnerAccount(store, organization.id, now));
  const name = typeof values.name === "string" ? values.name : "cli";
  const audit = { log: new AuditLog({ store, clock: systemClock }), by: { orgId: organization.id, actor: CLI_ACTOR, sourceIp: null } };
  const expiresAt = lifetime === undefined ? null : now + lifetime;
  const grant = { orgId: organization.id, userId: user.id, name, expiresAt, role: null };
  const { key, record } = await issueKey(store, grant, now, audit);
  const expiry = record.expiresAt === null ? "never expires" : `expires ${toIso(record.expiresAt)}`;
  console.log(`Created key ${record.id} '${record.name}' for organization '${organization.slug}' (${expiry}). Shown only this once:`);
  console.log(key);
  return 0;
}

async function listKeys(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org);
  const keys = await store.listApiKeys(organization.id);
  if (values.json) {
    const rows = keys.map((k) => ({
      id: k.id,
      name: k.name,
      createdAt: toIso(k.createdAt),
      expiresAt: toIsoOrNull(k.expiresAt),
      revokedAt: toIsoOrNull(k.revokedAt),
    }));
    console.log(JSON.stringify(rows));
    return 0;
  }
  for (const k of keys) {
    const expires = k.expiresAt === null ? "never" : toIso(k.expiresAt);
    const revoked = k.revokedAt === null ? "no" : toIso(k.revokedAt);
    console.log(`${k.id}\t${k.name}\t${k.displayPrefix}…\tcreated ${toIso(k.createdAt)}\texpires ${expires}\trevoked ${revoked}`);
  }
  return 0;
}

async function revokeKey(store: Store, _values: Values, [keyId]: string[]): Promise<number> {
  const found = await store.getApiKey(keyId!);
  if (!found) throw new DomainError("NOT_FOUND", `no API key with id '${keyId}'`);
  const now = systemClock.now();
  const log = new AuditLog({ store, clock: systemClock });
  // A key revoked before keeps its first time and records nothing now.
  const key = await log.write({ orgId: found.orgId, actor: CLI_ACTOR, sourceIp: null }, "revokeApiKey", [found.id, now], (revoked) =>
    revoked?.revokedAt === now ? [keyFact("key.revoke", revoked)] : [],
  );
  if (!key) throw new DomainError("NOT_FOUND", `no API key with id '${keyId}'`);
  console.log(`Revoked key ${key.id} '${key.name}' (${key.displayPrefix}…) at ${toIso(key.revokedAt!)}`);
  return 0;
}
