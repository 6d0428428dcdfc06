import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../../config.js";
import { systemClock } from "../../domain/time.js";
import { loadSigningSecret, SIGNING_SECRET_FILE } from "../../files/signing-secret.js";
import { CopyError, copyStore, nonEmptyTables, type TableCount } from "../../services/copy-store.js";
import type { Store } from "../../store/store.js";
import { isDatabaseUrl, openStoreAt, UsageError, type Command } from "../command.js";

export const copyCommand: Command = {
  summary: "copy every row of one store into an empty other (a data directory or a database URL)",
  usage: `Usage: stepwise copy --from <data-dir or database URL> --to <data-dir or database URL> [--force-non-empty]

Copies organizations, users, API keys (as hashes: keys keep working), projects, runs (IDs, display
IDs and numbers unchanged), status history, config, tags, notes, log names, model graphs, alerts,
metrics with their summaries, console lines, data rows, file records and the URL-signing secret,
table by table in batches, printing a line per table, then the row count of every table in both
stores; exits 1 when any count differs. Stop the servers writing to --from first: rows written
during the copy make the counts differ.

File bytes are not copied: copy the files/ folder of the source data directory to where the
target is served from.

Options:
  --from LOCATION       the store to read: a data directory or a database URL (postgres://…)
  --to LOCATION         the store to write; a data directory is created if missing. It must be empty
  --force-non-empty     copy into a store that has rows already: rows with a key or unique value the
                        target has are skipped (to finish an interrupted copy); counts then tell`,
  valueOptions: ["from", "to"],
  switches: ["force-non-empty"],
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const from = values.from;
    const to = values.to;
    if (typeof from !== "string" || from === "") throw new UsageError("--from is required");
    if (typeof to !== "string" || to === "") throw new UsageError("--to is required");
    if (!isDatabaseUrl(from) && !isDatabaseUrl(to) && resolve(from) === resolve(to))
      throw new UsageError("--from and --to name the same data directory");
    const source = await openStoreAt(from, { create: false });
    try {
      const target = await openStoreAt(to, { create: true });
      try {
        return await copy(source, target, from, to, values["force-non-empty"] === true);
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  },
};

async function copy(source: Store, target: Store, from: string, to: string, forceNonEmpty: boolean): Promise<number> {
  const filled = await nonEmptyTables(target);
  if (filled.length > 0 && !forceNonEmpty) {
    throw new ConfigError(
      `the target ${shown(to)} is not empty (rows in ${filled.join(", ")}): copy into an empty store, or pass --force-non-empty to add to it`,
    );
  }
  // A data directory not started since the secret moved into the store still has it in signing.key.
  if (!isDatabaseUrl(from) && existsSync(join(resolve(from), SIGNING_SECRET_FILE)))
    await loadSigningSecret(source, resolve(from), systemClock.now());

  console.log(`Copying ${shown(from)} to ${shown(to)}`);
  let counts: TableCount[];
  try {
    counts = await copyStore(source, target, {
      onTable: (table, read, inserted) => {
        const skipped = read - inserted;
        console.log(`  ${table}: ${inserted} rows copied${skipped > 0 ? `, ${skipped} skipped (the target had them already)` : ""}`);
      },
    });
  } catch (error) {
    if (!(error instanceof CopyError)) throw error;
    console.error(`stepwise copy: ${error.message}`);
    return 1;
  }

  console.log(`\n${"table".padEnd(22)}${"source".padStart(12)}${"target".padStart(12)}`);
  for (const { table, source: inSource, target: inTarget } of counts) {
    const verdict = inSource === inTarget ? "" : "  DIFFERENT";
    console.log(`${table.padEnd(22)}${String(inSource).padStart(12)}${String(inTarget).padStart(12)}${verdict}`);
  }
  const different = counts.filter((count) => count.source !== count.target);
  console.log(
    `\nFile bytes were not copied: copy the files/ folder of the source data directory to the target's data directory${
      isDatabaseUrl(to) ? " (the --data-dir the servers of the target use)" : ` (${join(resolve(to), "files")})`
    }.`,
  );
  if (different.length > 0) {
    console.error(`stepwise copy: row counts differ in ${different.map((count) => count.table).join(", ")}`);
    return 1;
  }
  console.log("Every table has the same number of rows in both stores.");
  return 0;
}

/** A location for messages: a database URL without its password. */
function shown(location: string): string {
  if (!isDatabaseUrl(location)) return resolve(location);
  try {
    const url = new URL(location);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "the database URL";
  }
}
