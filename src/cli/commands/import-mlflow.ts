import { existsSync, statSync } from "node:fs";
import { ServerMetrics } from "../../observability/metrics.js";
import { openBlobStore } from "../../blobs/open.js";
import { ConfigError, loadConfig } from "../../config.js";
import { DomainError } from "../../domain/errors.js";
import { systemClock } from "../../domain/time.js";
import { FileStoreSource } from "../../import/mlflow/file-source.js";
import { authorizationFrom, RestSource, SourceHttpError } from "../../import/mlflow/rest-source.js";
import type { MlflowSource } from "../../import/mlflow/source.js";
import { type ImportCounts, ImportInterrupted, MlflowImport, type ImportReporter } from "../../services/mlflow-import.js";
import { createServices } from "../../services/services.js";
import { openConfiguredStore } from "../../store/open.js";
import { configFlags, UsageError } from "../command.js";
import { duration, Progress } from "../progress.js";

export const IMPORT_MLFLOW_USAGE = `  stepwise import mlflow --from <tracking URI or mlruns directory> --org <slug> [--experiment NAME]…

  Reads a running MLflow server through its REST API (http:// or https://; MLFLOW_TRACKING_TOKEN or
  MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD as MLflow's client reads them), or MLflow's
  file store (an mlruns directory, or file:///…/mlruns). Experiments become projects of the
  organization; runs keep their MLflow run IDs, names, status, start and end times, user, params
  (as config), tags, every metric point, dataset inputs and artifacts (copied into the blob store);
  then registered models and their versions (not with --experiment). Run it again to resume or to
  bring new runs: runs imported whole are skipped (docs/import.md, "MLflow → Stepwise"). Ctrl-C stops between two
  writes; the next import resumes.

  --from URI|DIR        the MLflow tracking store to read
  --org SLUG            the organization to import into
  --experiment NAME     only this experiment (repeatable); default every one
  --data-dir DIR        data directory (default ./data, env STEPWISE_DATA_DIR)
  --database-url U      PostgreSQL database instead (env STEPWISE_DATABASE_URL)
  --blob-url, --s3-*, --max-upload-size   where artifacts go and their size limit, as for serve`;

/** The source --from names: a URL of a server, or a file store directory (a path or file:// URL). */
function sourceOf(from: string): MlflowSource {
  if (/^https?:\/\//i.test(from)) return new RestSource(from, authorizationFrom(process.env));
  const directory = from.startsWith("file://") ? new URL(from).pathname : from;
  if (!existsSync(directory) || !statSync(directory).isDirectory())
    throw new ConfigError(`--from ${from}: neither an http(s) URL nor an mlruns directory`);
  return new FileStoreSource(directory);
}

export async function importMlflow(values: Record<string, string | boolean | undefined>, experiments: string[]): Promise<number> {
  const from = values.from;
  const slug = values.org;
  if (typeof from !== "string" || from === "") throw new UsageError("--from is required");
  if (typeof slug !== "string" || slug === "") throw new UsageError("--org is required");
  const source = sourceOf(from);
  const config = loadConfig(configFlags(values));
  const store = await openConfiguredStore(config);
  try {
    const organization = await store.getOrganizationBySlug(slug);
    if (!organization) throw new DomainError("NOT_FOUND", `organization '${slug}' not found`);
    const blobs = await openBlobStore(config);
    try {
      // The services count ingested points for GET /metrics; a CLI process serves none, so its registry is never read.
      const deps = { config, store, clock: systemClock, blobs, metrics: new ServerMetrics() };
      const services = createServices(deps);
      return await runImport(
        new MlflowImport(deps, services, organization.id, source, {
          experiments,
          signal: interruptSignal(),
          reporter: progressReporter(),
        }),
        source.label,
        slug,
      );
    } finally {
      blobs.close();
    }
  } finally {
    await store.close();
  }
}

/** Aborted by the first Ctrl-C (the import stops between two writes); a second one exits at once. */
function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once("SIGINT", () => {
    console.error("\nStopping after the current write (Ctrl-C again to quit at once)…");
    controller.abort();
    process.once("SIGINT", () => process.exit(130));
  });
  return controller.signal;
}

/**
 * One progress line per experiment: its metric points with their rate, and its runs done of its
 * runs with an ETA from the time per run so far (a run's points are not known before it is read).
 */
function progressReporter(): ImportReporter & { progress?: Progress } {
  let runs = 0;
  let total = 0;
  let points = 0;
  let startedAt = 0;
  const reporter: ImportReporter & { progress?: Progress } = {
    experimentStarted(experiment, runCount) {
      [runs, total, points, startedAt] = [0, runCount, 0, Date.now()];
      reporter.progress = new Progress(`experiment '${experiment.name}'`, { unit: "points" });
      reporter.progress.describe(`0 of ${runCount} runs`);
    },
    pointsWritten(count) {
      points += count;
      reporter.progress?.update(points);
    },
    runDone() {
      runs++;
      const eta = runs < total ? `, ETA ${duration((((Date.now() - startedAt) / runs) * (total - runs)) / 1000)}` : "";
      reporter.progress?.describe(`${runs} of ${total} runs${eta}`);
    },
    experimentDone() {
      reporter.progress?.finish(`, ${runs} runs`);
      reporter.progress = undefined;
    },
    warn(message) {
      reporter.progress?.interrupt();
      console.error(`warning: ${message}`);
    },
  };
  return reporter;
}

async function runImport(importer: MlflowImport, label: string, slug: string): Promise<number> {
  console.log(`Importing ${label} into organization '${slug}'`);
  let interrupted = false;
  try {
    await importer.run();
  } catch (error) {
    if (error instanceof SourceHttpError) {
      console.error(`stepwise import: the source answered: ${error.message}`);
      return 1;
    }
    if (!(error instanceof ImportInterrupted)) throw error;
    interrupted = true;
  }
  printSummary(importer.counts);
  if (interrupted) {
    console.error("Interrupted: every run not reported whole is resumed by running the same command again.");
    return 130;
  }
  return importer.counts.runsFailed > 0 ? 1 : 0;
}

function printSummary(c: ImportCounts): void {
  const n = (value: number) => value.toLocaleString("en-US");
  const rows: [string, string][] = [
    ["experiments", `${n(c.experiments)} (${n(c.experimentsCreated)} created, ${n(c.experimentsSkipped)} deleted in the source: skipped)`],
    [
      "runs",
      `${n(c.runs)} (${n(c.runsImported)} imported, ${n(c.runsResumed)} resumed, ${n(c.runsWhole)} already whole, ${n(c.runsFailed)} failed)`,
    ],
    ["params", n(c.params)],
    ["tags", n(c.tags)],
    ["dataset inputs", n(c.datasetInputs)],
    ["metric points", `${n(c.pointsRead)} read, ${n(c.pointsStored)} stored (identical points once)`],
    ["artifacts", `${n(c.artifacts)} (${n(c.artifactBytes)} bytes), ${n(c.artifactsCopied)} copied`],
    ["registered models", n(c.models)],
    ["model versions", `${n(c.versions)} (${n(c.versionsImported)} imported, ${n(c.versionsSkipped)} skipped)`],
  ];
  console.log(`\n${rows.map(([name, value]) => `${name.padEnd(18)} ${value}`).join("\n")}`);
}
