import { loadConfig } from "../../config.js";
import { DomainError } from "../../domain/errors.js";
import { invitationUrl } from "../../domain/people.js";
import { parseRole } from "../../domain/roles.js";
import { systemClock, toIso } from "../../domain/time.js";
import { AuditLog } from "../../services/audit.js";
import { PeopleService } from "../../services/people.js";
import type { Store } from "../../store/store.js";
import { configFlags, DATA_DIR_HELP, expectArguments, openStore, STORE_OPTIONS, type Command, UsageError } from "../command.js";

type Values = Record<string, string | boolean | undefined>;

export const usersCommand: Command = {
  summary: "invite people, list members, change roles, remove members",
  usage: `Usage:
  stepwise users create --org <slug> --email <email> [--name NAME] [--role ROLE]   prints a one-time invitation link
  stepwise users list --org <slug> [--json]
  stepwise users set-role --org <slug> --email <email> --role ROLE
  stepwise users remove --org <slug> --email <email>

A person is found by email, or created. The invitation link sets the person's password (or a new
one, when it has one) and works once, for 7 days; a newer link replaces an unused older one.
Roles: viewer, member, admin, owner. An organization always keeps an owner.

Options:
${DATA_DIR_HELP}
  --org SLUG        organization
  --email EMAIL     the person
  --name NAME       display name of a new person (default: the email's part before @)
  --role ROLE       create: the role of a new member (default member); set-role: the new role
  --public-url URL  base of the invitation link (env STEPWISE_PUBLIC_URL; default http://<host>:<port> of the server's options)
  --json            machine-readable output (list): [{userId, email, name, kind, role, joinedAt}]`,
  valueOptions: [...STORE_OPTIONS, "org", "email", "name", "role", "public-url", "host", "port"],
  switches: ["json"],
  async run({ positionals, values }) {
    const [action] = positionals;
    const work = ACTIONS.get(action ?? "");
    if (!work)
      throw new UsageError(
        action === undefined
          ? "missing action: create, list, set-role or remove"
          : `unknown action '${action}': create, list, set-role or remove`,
      );
    expectArguments(positionals, []);
    // Checked before the store is opened, so bad input never touches the data directory.
    if (typeof values.org !== "string") throw new UsageError("--org is required");
    if (action !== "list" && typeof values.email !== "string") throw new UsageError("--email is required");
    if (action === "set-role" && typeof values.role !== "string") throw new UsageError("--role is required");
    if (typeof values.role === "string") parseRole(values.role, "--role");
    const store = await openStore(values, { create: false });
    try {
      return await work(store, values);
    } finally {
      await store.close();
    }
  },
};

const ACTIONS = new Map<string, (store: Store, values: Values) => Promise<number>>([
  ["create", createUser],
  ["list", listUsers],
  ["set-role", setRole],
  ["remove", removeUser],
]);

/** The CLI's people service: its changes are audited as 'cli'. */
const peopleOf = (store: Store) => new PeopleService(store, systemClock, new AuditLog({ store, clock: systemClock }));

async function organizationOf(store: Store, slug: string) {
  const organization = await store.getOrganizationBySlug(slug);
  if (!organization) throw new DomainError("NOT_FOUND", `organization '${slug}' not found`);
  return organization;
}

/** The base of links the CLI prints: --public-url, else where the server's options say it listens. */
function linkBase(values: Values): string {
  const config = loadConfig(configFlags(values));
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`;
}

async function createUser(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org as string);
  const people = peopleOf(store);
  const role = typeof values.role === "string" ? parseRole(values.role, "--role") : undefined;
  const name = typeof values.name === "string" ? values.name : undefined;
  const invited = await people.invite(organization.id, { email: values.email as string, name, role }, null);
  console.log(
    `${invited.user.email} is a member of '${organization.slug}' with the role '${invited.role}'. ` +
      `Invitation link (works once, until ${toIso(invited.expiresAt!)}; shown only this once):`,
  );
  console.log(invitationUrl(linkBase(values), invited.token!));
  return 0;
}

async function listUsers(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org as string);
  const members = await peopleOf(store).members(organization.id);
  if (values.json) {
    const rows = members.map((m) => ({
      userId: m.user.id,
      email: m.user.email,
      name: m.user.name,
      kind: m.user.kind,
      role: m.role,
      joinedAt: toIso(m.createdAt),
    }));
    console.log(JSON.stringify(rows));
    return 0;
  }
  for (const m of members)
    console.log(`${m.user.id}\t${m.user.email ?? `(service) ${m.user.name}`}\t${m.user.name}\t${m.role}\tjoined ${toIso(m.createdAt)}`);
  return 0;
}

async function setRole(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org as string);
  const people = peopleOf(store);
  const member = await people.memberByEmail(organization.id, values.email as string);
  const changed = await people.setRole(organization.id, member.user.id, parseRole(values.role, "--role"), null);
  console.log(`${changed.user.email} now has the role '${changed.role}' in '${organization.slug}' (was '${member.role}')`);
  return 0;
}

async function removeUser(store: Store, values: Values): Promise<number> {
  const organization = await organizationOf(store, values.org as string);
  const people = peopleOf(store);
  const member = await people.memberByEmail(organization.id, values.email as string);
  await people.remove(organization.id, member.user.id, null);
  console.log(`Removed ${member.user.email} from '${organization.slug}': its keys there are revoked and its sessions ended`);
  return 0;
}
