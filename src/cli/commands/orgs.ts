import { systemClock, toIso } from "../../domain/time.js";
import { createOrganizationWithKey } from "../../services/accounts.js";
import { DATA_DIR_HELP, expectArguments, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";

export const orgsCommand: Command = {
  summary: "create and list organizations",
  usage: `Usage:
  stepwise orgs create <slug> [--data-dir DIR]   create an organization with a first API key (printed on the last line)
  stepwise orgs list [--data-dir DIR] [--json]   list organizations

Options:
${DATA_DIR_HELP}
  --json           machine-readable output (list): [{id, slug, createdAt}]`,
  valueOptions: STORE_OPTIONS,
  switches: ["json"],
  async run({ positionals, values }) {
    const [action] = positionals;
    if (action === "create") {
      const [slug] = expectArguments(positionals, ["slug"]);
      const store = await openStore(values, { create: true });
      try {
        const { organization, key } = await createOrganizationWithKey(store, slug!, systemClock);
        console.log(`Created organization '${organization.slug}' (${organization.id}). Its API key, shown only this once:`);
        console.log(key);
      } finally {
        await store.close();
      }
      return 0;
    }
    if (action === "list") {
      expectArguments(positionals, []);
      const store = await openStore(values, { create: false });
      try {
        const organizations = (await store.listOrganizations()).map((o) => ({ id: o.id, slug: o.slug, createdAt: toIso(o.createdAt) }));
        if (values.json) console.log(JSON.stringify(organizations));
        else for (const o of organizations) console.log(`${o.slug}\t${o.id}\t${o.createdAt}`);
      } finally {
        await store.close();
      }
      return 0;
    }
    throw new UsageError(action === undefined ? "missing action: create or list" : `unknown action '${action}': create or list`);
  },
};
