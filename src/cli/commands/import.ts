import { type Command, STORE_OPTIONS, UsageError } from "../command.js";
import { IMPORT_MLFLOW_USAGE, importMlflow } from "./import-mlflow.js";

/** `stepwise import <source> …`: moving runs from another tracker into Stepwise (README, "Moving to Stepwise"). */
export const importCommand: Command = {
  summary: "import experiments and runs from another tracker (mlflow)",
  usage: `Usage: stepwise import <source> [options]

Sources:
${IMPORT_MLFLOW_USAGE}`,
  valueOptions: [
    ...STORE_OPTIONS,
    "from",
    "org",
    "blob-url",
    "s3-endpoint",
    "s3-region",
    "s3-force-path-style",
    "s3-direct-urls",
    "max-upload-size",
  ],
  repeatable: ["experiment"],
  async run({ positionals, values, lists }) {
    const [source, ...rest] = positionals;
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    if (source === "mlflow") return importMlflow(values, lists?.experiment ?? []);
    throw new UsageError(source === undefined ? "name the source: stepwise import mlflow …" : `unknown source '${source}'`);
  },
};
