import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { openBlobStore } from "../../blobs/open.js";
import { ConfigError, loadConfig, OPTIONS } from "../../config.js";
import { DomainError } from "../../domain/errors.js";
import { NAME_LIMITS } from "../../domain/names.js";
import { systemClock } from "../../domain/time.js";
import { ImportInterrupted, type RunReport, TensorboardImport } from "../../services/tensorboard-import.js";
import type { Store } from "../../store/store.js";
import { configFlags, DATA_DIR_HELP, expectArguments, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";
import { Progress } from "../progress.js";
import { IMPORT_MLFLOW_USAGE, importMlflow } from "./import-mlflow.js";

/** Where imported images go: the server's blob options (the data directory's files/ or a bucket). */
const BLOB_OPTIONS = ["--blob-url", "--s3-endpoint", "--s3-region", "--s3-force-path-style"];
type Values = Record<string, string | boolean | undefined>;
/** Runs with at least this many bytes of event files to read get a progress line while they are read. */
const READ_PROGRESS_FROM = 64 * 1024 * 1024;

export const importCommand: Command = {
  summary: "import runs from another tracker (TensorBoard log directories, MLflow)",
  usage: `Usage: stepwise import tensorboard <logdir> --project <name> [--run-name <template>] [--org <slug>]

Imports every directory under <logdir> that holds TensorBoard event files (events.out.tfevents.*)
as one run of the project (created if missing): scalars as metrics, histograms as HISTOGRAM data,
images as files, text as TEXT data, the hparams plugin's hyperparameters as the run's config, the
first and last wall time as the run's creation and end. add_scalars sub-directories and several
event files of one run (restarts) are merged in step order. Records are read with their CRCs
checked: a corrupted or cut record is reported with its file and offset and the rest imported.
Running it again imports only what was written since (runs are matched by their path); Ctrl-C
stops after the current batch, and running it again resumes. The server may keep running.
docs/import.md lists what becomes what, and what is not imported.

Options:
  --project NAME        the project to import into
  --run-name TEMPLATE   a run's name: {path} (its directory below <logdir>, the default), {name}
                        (the directory's own name) and {logdir} (the name of <logdir>)
  --org SLUG            the organization (default: the only one)
${DATA_DIR_HELP}
${OPTIONS.filter((o) => BLOB_OPTIONS.includes(o.flag))
  .map((o) => `  ${`${o.flag} VALUE`.padEnd(21)} ${o.doc} (env ${o.env})`)
  .join("\n")}

${IMPORT_MLFLOW_USAGE}`,
  valueOptions: [
    ...STORE_OPTIONS,
    ...BLOB_OPTIONS.map((flag) => flag.slice(2)),
    "project",
    "run-name",
    "org",
    "from",
    "s3-direct-urls",
    "max-upload-size",
  ],
  repeatable: ["experiment"],
  async run({ positionals, values, lists }) {
    const [source] = positionals;
    if (source === "mlflow") {
      if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}'`);
      return importMlflow(values, lists?.experiment ?? []);
    }
    if (source !== "tensorboard")
      throw new UsageError(
        source === undefined ? "missing source: tensorboard or mlflow" : `unknown source '${source}': tensorboard or mlflow`,
      );
    const [logdir] = expectArguments(positionals, ["logdir"]);
    const project = values.project;
    if (typeof project !== "string" || project === "") throw new UsageError("--project is required");
    if (project.length > NAME_LIMITS.projectName) throw new UsageError(`--project: at most ${NAME_LIMITS.projectName} characters`);
    const template = typeof values["run-name"] === "string" ? values["run-name"] : "{path}";
    if (!(await stat(logdir!).catch(() => undefined))?.isDirectory()) throw new ConfigError(`no directory at ${logdir}`);

    const store = await openStore(values, { create: false });
    try {
      return await importTensorboard(store, values, logdir!, project, template);
    } finally {
      await store.close();
    }
  },
};

async function importTensorboard(store: Store, values: Values, logdir: string, project: string, template: string): Promise<number> {
  const org = await organizationOf(store, values.org);
  const config = loadConfig(configFlags(values));
  const blobs = await openBlobStore(config);
  const stop = new AbortController();
  const onSigint = () => {
    if (stop.signal.aborted) return;
    console.error("\nstepwise import: stopping after the current batch (run the same command again to resume)");
    stop.abort();
  };
  process.on("SIGINT", onSigint);
  let progress: Progress | undefined;
  const totals = { runs: 0, created: 0, upToDate: 0, points: 0, histograms: 0, images: 0, texts: 0, skipped: 0 };
  try {
    const importer = new TensorboardImport({ config, store, clock: systemClock, blobs });
    console.log(`Importing TensorBoard logs from ${logdir} into project '${project}'`);
    await importer.run(
      {
        orgId: org.id,
        projectName: project,
        logdir,
        runName: (path, logdirName) => runName(template, path, logdirName),
        signal: stop.signal,
      },
      {
        readStarted(name, bytes) {
          // Small runs are read in a blink: a line for them would only fill a log.
          progress = bytes >= READ_PROGRESS_FROM ? new Progress(`  ${name}: reading`, { unit: "bytes", total: bytes }) : undefined;
        },
        bytesRead(done) {
          progress?.update(done);
        },
        runStarted(name, points) {
          progress?.interrupt();
          progress = new Progress(`  ${name}`, { unit: "points", total: points });
        },
        pointsWritten(done) {
          progress?.update(done);
        },
        runFinished(report) {
          totals.runs++;
          if (report.upToDate) {
            totals.upToDate++;
            console.log(`  ${report.name}: up to date`);
            return;
          }
          if (report.created) totals.created++;
          totals.points += report.points;
          totals.histograms += report.histograms;
          totals.images += report.images;
          totals.texts += report.texts;
          totals.skipped += report.skippedRecords;
          progress?.finish(runSuffix(report));
          progress = undefined;
        },
        problem(file, offset, problem) {
          progress?.interrupt();
          console.error(`  ${file} at byte ${offset}: ${problem}`);
        },
      },
    );
  } catch (error) {
    progress?.interrupt();
    if (!(error instanceof ImportInterrupted)) throw error;
    console.error(
      `stepwise import: interrupted. ${totals.runs} runs were imported whole; the run being written has whole batches only. Run the same command again to resume.`,
    );
    return 130;
  } finally {
    process.off("SIGINT", onSigint);
    blobs.close();
  }
  console.log(
    `Imported ${totals.runs} runs (${totals.created} new, ${totals.upToDate} up to date): ${totals.points} points, ` +
      `${totals.histograms} histograms, ${totals.images} images, ${totals.texts} texts; ${totals.skipped} records skipped`,
  );
  return 0;
}

function runSuffix(report: RunReport): string {
  const parts = [`${report.histograms} histograms`, `${report.images} images`, `${report.texts} texts`];
  if (report.skippedRecords > 0) parts.push(`${report.skippedRecords} records skipped`);
  for (const [kind, count] of report.notImported) parts.push(`${count} ${kind} not imported`);
  return `; ${parts.join(", ")}`;
}

/** A run's name from the template; the log directory's own files are the run {logdir}. */
export function runName(template: string, path: string, logdirName: string): string {
  const shownPath = path === "" ? logdirName : path;
  const name = template.replace(/\{(path|name|logdir)\}/g, (_, key: string) =>
    key === "path" ? shownPath : key === "name" ? basename(shownPath) : logdirName,
  );
  return name.slice(0, NAME_LIMITS.runName) || shownPath;
}

async function organizationOf(store: Store, slug: unknown) {
  if (typeof slug === "string") {
    const organization = await store.getOrganizationBySlug(slug);
    if (!organization) throw new DomainError("NOT_FOUND", `organization '${slug}' not found`);
    return organization;
  }
  const organizations = await store.listOrganizations();
  if (organizations.length !== 1)
    throw new UsageError(`--org is required: the store has ${organizations.length} organizations (stepwise orgs list)`);
  return organizations[0]!;
}
