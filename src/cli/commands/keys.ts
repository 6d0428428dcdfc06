import { ConfigError } from "../../config.js";
import { parseKeyLifetime } from "../../domain/api-keys.js";
import { DomainError } from "../../domain/errors.js";
import { parseRole, type Role } from "../../domain/roles.js";
import { systemClock, toIso, toIsoOrNull } from "../../domain/time.js";
import { AuditLog, cliAuditContext } from "../../services/audit.js";
import { normalizeEmail } from "../../domain/people.js";
import { createMemberKey, listKeys as keysOf, ownerServiceAccount, revokeAudited, serviceAccount } from "../../services/keys.js";
import type { Store, User } from "../../store/store.js";
import { DATA_DIR_HELP, expectArguments, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";

type Values = Record<string, string | boolean | undefined>;

export const keysCommand: Command = {
  summary: "create, list and revoke API keys",
  usage: `Usage:
  stepwise keys create --org <slug> [--user EMAIL | --service NAME] [--role ROLE] [--name NAME] [--expires-in 30d]
                                   prints the new key alone on the last line
  stepwise keys list --org <slug> [--json]
  stepwise keys revoke <key-id>

Options:
${DATA_DIR_HELP}
  --org SLUG       organization of the key
  --user EMAIL     the key of that person, a member of the organization
  --service NAME   the key of that service account of the organization, made (a member with --role,
                   default member) when it has none of that name
                   (neither: the service account 'admin' that owns the organization)
  --role ROLE      viewer, member, admin or owner: the key's role, at most its owner's (a viewer key
                   reads only); default: its owner's role, whatever it becomes
  --name NAME      a label for the key (default "cli")
  --expires-in D   lifetime: <n>s, <n>m, <n>h or <n>d (default: never expires)
  --json           machine-readable output (list): [{id, name, user: {id, kind, email, name}, role,
                   memberRole, createdAt, expiresAt, revokedAt}] (role: the key's cap, null when it
                   follows its owner's role; memberRole: the owner's role now, null once removed)`,
  valueOptions: [...STORE_OPTIONS, "org", "name", "expires-in", "user", "service", "role"],
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
    if (action === "create") ownerOptions(values);
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

/** `--expires-in` takes `<n>s|m|h|d` (domain/api-keys.ts parseKeyLifetime): a zero lifetime would make a key that never works. */
function keyLifetime(raw: string | boolean | undefined): number | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    return parseKeyLifetime(raw, "expires-in");
  } catch (error) {
    throw error instanceof DomainError ? new ConfigError(error.message) : error;
  }
}

/** `--user`, `--service` and `--role`, checked before the store is opened. */
function ownerOptions(values: Values): { email?: string; service?: string; role: Role | null } {
  const { user, service, role } = values;
  if (user !== undefined && service !== undefined) throw new UsageError("give --user or --service, not both");
  if (user === true || service === true || role === true) throw new UsageError("--user, --service and --role take a value");
  if (typeof service === "string" && (service.trim() === "" || service.length > 200))
    throw new UsageError("--service: a name of 1 to 200 characters");
  try {
    return {
      email: typeof user === "string" ? normalizeEmail(user, "--user") : undefined,
      service: typeof service === "string" ? service : undefined,
      role: typeof role === "string" ? parseRole(role, "--role") : null,
    };
  } catch (error) {
    throw error instanceof DomainError ? new UsageError(error.message) : error;
  }
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
  const orgId = organization.id;
  const { email, service, role } = ownerOptions(values);
  let user: User | undefined;
  if (email !== undefined) {
    user = await store.getUserByEmail(email);
    if (!user || !(await store.getMembership(orgId, user.id)))
      throw new DomainError("NOT_FOUND", `'${email}' is not a member of organization '${organization.slug}'`);
  } else if (service !== undefined) user = await serviceAccount(store, orgId, service, role ?? "member", now);
  else user = await ownerServiceAccount(store, orgId, now);
  const name = typeof values.name === "string" ? values.name : "cli";
  const audit = { log: new AuditLog({ store, clock: systemClock }), by: cliAuditContext(orgId) };
  const expiresAt = lifetime === undefined ? null : now + lifetime;
  const { key, record } = await createMemberKey(store, { orgId, userId: user.id, name, expiresAt, requested: role }, now, audit);
  const expiry = record.expiresAt === null ? "never expires" : `expires ${toIso(record.expiresAt)}`;
  const owner = user.kind === "person" ? user.email : `service account '${user.name}'`;
  const acting = record.role === null ? "its owner's role" : `role '${record.role}'`;
  console.log(
    `Created key ${record.id} '${record.name}' of ${owner} (${acting}) for organization '${organization.slug}' (${expiry}). Shown only this once:`,
  );
  console.log(key);
  return 0;
}

async function listKeys(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org);
  const keys = await keysOf(store, organization.id);
  if (values.json) {
    const rows = keys.map(({ record: k, user, memberRole }) => ({
      id: k.id,
      name: k.name,
      user: user && { id: user.id, kind: user.kind, email: user.email, name: user.name },
      role: k.role,
      memberRole,
      createdAt: toIso(k.createdAt),
      expiresAt: toIsoOrNull(k.expiresAt),
      revokedAt: toIsoOrNull(k.revokedAt),
    }));
    console.log(JSON.stringify(rows));
    return 0;
  }
  for (const { record: k, user, memberRole } of keys) {
    const expires = k.expiresAt === null ? "never" : toIso(k.expiresAt);
    const revoked = k.revokedAt === null ? "no" : toIso(k.revokedAt);
    const owner = user === null ? "(deleted user)" : user.kind === "person" ? user.email : `service:${user.name}`;
    const role = memberRole === null ? "removed" : (k.role ?? memberRole);
    console.log(
      `${k.id}\t${k.name}\t${k.displayPrefix}…\t${owner}\t${role}\tcreated ${toIso(k.createdAt)}\texpires ${expires}\trevoked ${revoked}`,
    );
  }
  return 0;
}

async function revokeKey(store: Store, _values: Values, [keyId]: string[]): Promise<number> {
  const found = await store.getApiKey(keyId!);
  if (!found) throw new DomainError("NOT_FOUND", `no API key with id '${keyId}'`);
  const audit = { log: new AuditLog({ store, clock: systemClock }), by: cliAuditContext(found.orgId) };
  const key = await revokeAudited(audit, found.id, systemClock.now());
  if (!key) throw new DomainError("NOT_FOUND", `no API key with id '${keyId}'`);
  console.log(`Revoked key ${key.id} '${key.name}' (${key.displayPrefix}…) at ${toIso(key.revokedAt!)}`);
  return 0;
}
