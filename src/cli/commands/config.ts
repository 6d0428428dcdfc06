import { loadConfig, OPTIONS } from "../../config.js";
import { configFlags, UsageError, type Command } from "../command.js";

export const configCommand: Command = {
  summary: "print the effective configuration (flags, environment, defaults)",
  usage: `Usage: stepwise config [serve options]\n\nPrints each option's effective value and where it is set.`,
  valueOptions: OPTIONS.map((option) => option.flag.slice(2)),
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = loadConfig(configFlags(values));
    for (const option of OPTIONS) console.log(`${option.flag.padEnd(22)} ${option.env.padEnd(28)} ${JSON.stringify(config[option.key])}`);
  },
};
