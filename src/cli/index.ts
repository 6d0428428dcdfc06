import { parseArgs } from "node:util";
import { ConfigError } from "../config.js";
import { DomainError } from "../domain/errors.js";
import { StoreOpenError } from "../store/store.js";
import { backupCommand } from "./commands/backup.js";
import { configCommand } from "./commands/config.js";
import { copyCommand } from "./commands/copy.js";
import { copyFilesCommand } from "./commands/copy-files.js";
import { gcCommand } from "./commands/gc.js";
import { exportCommand } from "./commands/export.js";
import { importCommand } from "./commands/import.js";
import { keysCommand } from "./commands/keys.js";
import { orgsCommand } from "./commands/orgs.js";
import { restoreCommand } from "./commands/restore.js";
import { serveCommand } from "./commands/serve.js";
import { usersCommand } from "./commands/users.js";
import { UsageError, type Command } from "./command.js";

const COMMANDS = new Map<string, Command>([
  ["serve", serveCommand],
  ["orgs", orgsCommand],
  ["keys", keysCommand],
  ["users", usersCommand],
  ["config", configCommand],
  ["copy", copyCommand],
  ["copy-files", copyFilesCommand],
  ["backup", backupCommand],
  ["restore", restoreCommand],
  ["gc", gcCommand],
  ["import", importCommand],
  ["export", exportCommand],
]);

function mainHelp(): string {
  const lines = [...COMMANDS].map(([name, command]) => `  ${name.padEnd(10)} ${command.summary}`);
  return `Usage: stepwise <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun 'stepwise <command> --help' for the options of a command.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    console.log(mainHelp());
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    console.error(`stepwise: unknown command '${name}'\n\n${mainHelp()}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(command.usage);
    return 0;
  }
  const options: Record<string, { type: "string" | "boolean" }> = Object.fromEntries([
    ...command.valueOptions.map((option) => [option, { type: "string" as const }]),
    ...(command.switches ?? []).map((option) => [option, { type: "boolean" as const }]),
  ]);
  const repeatable = command.repeatable ?? [];
  let parsed: { positionals: string[]; values: Record<string, string | boolean | undefined>; lists: Record<string, string[]> };
  try {
    const { positionals, values } = parseArgs({
      args: rest,
      options: { ...options, ...Object.fromEntries(repeatable.map((option) => [option, { type: "string" as const, multiple: true }])) },
      allowPositionals: true,
      strict: true,
    });
    const single = Object.entries(values).filter(([name]) => !repeatable.includes(name));
    const lists = repeatable.map((name) => [name, (values[name] as string[] | undefined) ?? []]);
    parsed = {
      positionals,
      values: Object.fromEntries(single) as Record<string, string | boolean | undefined>,
      lists: Object.fromEntries(lists),
    };
  } catch (error) {
    console.error(`stepwise ${name}: ${(error as Error).message}\n\n${command.usage}`);
    return 2;
  }
  try {
    return (await command.run(parsed)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`stepwise ${name}: ${error.message}\nRun 'stepwise ${name} --help' for usage.`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof DomainError) {
      console.error(`stepwise ${name}: ${error.message}`);
      return 2;
    }
    if (error instanceof StoreOpenError) {
      console.error(`stepwise ${name}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
