import { loadConfig, OPTIONS } from "../../config.js";
import { configFlags, UsageError, type Command } from "../command.js";

export const configCommand: Command = {
  summary: "print the effective configuration (flags, environment, defaults)",
  usage: `Usage: stepwise config [serve options]\n\nPrints each option's effective value and where it is set.`,
  valueOptions: OPTIONS.map((option) => option.flag.slice(2)),
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = loadConfig(configFlags(values));
    for (const option of OPTIONS) {
      const value = config[option.key];
      const shown = option.display && typeof value === "string" ? option.display(value) : value;
      console.log(`${option.flag.padEnd(22)} ${option.env.padEnd(28)} ${JSON.stringify(shown)}`);
    }
    if (config.blobUrl) {
      // Credentials are never options: the AWS SDK reads them from these (or its profile files).
      for (const [name, show] of AWS_CREDENTIAL_VARIABLES) {
        const value = process.env[name];
        console.log(`${"(S3 credentials)".padEnd(22)} ${name.padEnd(28)} ${value === undefined ? "not set" : JSON.stringify(show(value))}`);
      }
    }
  },
};

/** The AWS environment variables and how much of each `config` shows: key IDs in part, secrets not at all. */
const AWS_CREDENTIAL_VARIABLES: [string, (value: string) => string][] = [
  ["AWS_ACCESS_KEY_ID", (value) => (value.length > 8 ? `${value.slice(0, 4)}…${value.slice(-2)}` : "…")],
  ["AWS_SECRET_ACCESS_KEY", () => "(set, hidden)"],
  ["AWS_SESSION_TOKEN", () => "(set, hidden)"],
  ["AWS_PROFILE", (value) => value],
];
