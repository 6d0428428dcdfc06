import { ConfigError } from "../../config.js";
import { DomainError } from "../../domain/errors.js";
import { systemClock } from "../../domain/time.js";
import type { ExportFormat } from "../../export/table-writer.js";
import { ExportInterrupted, exportProject } from "../../services/export.js";
import { DATA_DIR_HELP, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";
import { Progress } from "../progress.js";

const FORMATS = new Map<string, ExportFormat>([
  ["csv", "csv"],
  ["parquet", "parquet"],
]);

export const exportCommand: Command = {
  summary: "export a project's runs and metric points as CSV or Parquet files",
  usage: `Usage: stepwise export --project <name> [--runs <filter>] --format csv|parquet --to <dir> [--org <slug>]

Writes two files into <dir> for pandas, DuckDB or a spreadsheet:
  runs.<format>     one row per run: run_id, display_id, name, status, tags (JSON list), external_id,
                    notes, created_at, ended_at, forked_from_run_id, the config flattened into
                    config.<path> columns, and summary.<metric>.last|min|max|mean|count columns
  metrics.<format>  one row per stored metric point: run_id, run_name, metric, step, time, value
NaN and ±Infinity are kept (CSV spells them nan, inf, -inf; Parquet stores the doubles). Each file
is written under a hidden partial name and renamed once whole: Ctrl-C, or a failure, leaves the
files of an earlier export (or none), never half of one; run the command again to redo it.
docs/import.md describes the columns.

Options:
  --project NAME     the project to export
  --runs FILTER      only the runs this filter matches: the run list's filter, as JSON
                     (docs/api.md, Run list), e.g. '{"config.lr": {"$lte": 0.01}}'
  --format FORMAT    csv or parquet
  --to DIR           the directory to write into (created if missing)
  --org SLUG         the organization (default: the only one)
${DATA_DIR_HELP}`,
  valueOptions: [...STORE_OPTIONS, "project", "runs", "format", "to", "org"],
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const project = values.project;
    if (typeof project !== "string" || project === "") throw new UsageError("--project is required");
    const format = FORMATS.get(typeof values.format === "string" ? values.format : "");
    if (!format) throw new UsageError("--format must be csv or parquet");
    const dir = values.to;
    if (typeof dir !== "string" || dir === "") throw new UsageError("--to is required: the directory to write into");
    const runFilter = typeof values.runs === "string" ? values.runs : undefined;

    const store = await openStore(values, { create: false });
    const stop = new AbortController();
    const onSigint = () => {
      if (stop.signal.aborted) return;
      console.error("\nstepwise export: stopping; no file is left half-written");
      stop.abort();
    };
    process.on("SIGINT", onSigint);
    let progress: Progress | undefined;
    try {
      const org = await organizationOf(store, values.org);
      const result = await exportProject(
        store,
        { orgId: org.id, projectName: project, runFilter, format, dir, signal: stop.signal, now: systemClock.now() },
        {
          started(runs, points) {
            console.log(`Exporting ${runs} runs and ${points} metric points of project '${project}' to ${dir}`);
            progress = new Progress("  metrics", { unit: "points", total: points });
          },
          pointsWritten(done) {
            progress?.update(done);
          },
        },
      );
      progress?.finish();
      console.log(`Wrote ${result.runs} runs and ${result.points} points: ${result.files.join(", ")}`);
      return 0;
    } catch (error) {
      progress?.interrupt();
      if (error instanceof ExportInterrupted) {
        console.error("stepwise export: interrupted; the files being written were removed. Run the same command again.");
        return 130;
      }
      throw error;
    } finally {
      process.off("SIGINT", onSigint);
      await store.close();
    }
  },
};

async function organizationOf(store: Awaited<ReturnType<typeof openStore>>, slug: unknown) {
  if (typeof slug === "string") {
    const organization = await store.getOrganizationBySlug(slug);
    if (!organization) throw new DomainError("NOT_FOUND", `organization '${slug}' not found`);
    return organization;
  }
  const organizations = await store.listOrganizations();
  if (organizations.length !== 1) throw new ConfigError(`--org is required: the store has ${organizations.length} organizations`);
  return organizations[0]!;
}
