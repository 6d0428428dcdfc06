import { openBlobStore } from "../../blobs/open.js";
import { loadConfig, parseDuration } from "../../config.js";
import { systemClock } from "../../domain/time.js";
import { type PurgeReport, purgeRound } from "../../services/purge.js";
import { configFlags, DATA_DIR_HELP, openStore, STORE_OPTIONS, UsageError, type Command } from "../command.js";

/** How long gc gives SQLite's freed pages back by incremental vacuum before it leaves the rest to --vacuum or to later writes. */
const RECLAIM_BUDGET_MS = 30_000;

/** Every so many runs a progress line: a purge of thousands of runs shows it is moving. */
const PROGRESS_EVERY_RUNS = 100;

export const gcCommand: Command = {
  summary: "purge deleted runs and projects now (rows and file bytes) and print what was freed",
  usage: `Usage: stepwise gc [--older-than 30d] [--vacuum] [--data-dir DIR | --database-url URL] [--blob-url s3://…]

Applies the projects' retention policies, then purges every run and project deleted at least
--older-than ago (default: --deleted-retention, 30d): each run's rows in a transaction of its own,
then its file bytes (in the data directory, or the bucket of --blob-url). A run that a live fork
reads is kept until its forks go. Prints a progress line every ${PROGRESS_EVERY_RUNS} runs and then the
runs, projects, points, file objects and bytes freed, and the database's size before and after.
Safe beside a running server: it purges what the server's hourly round would.

Options:
${DATA_DIR_HELP}
  --blob-url URL     where file bytes live when not in the data directory (and the --s3-* options)
  --older-than D     purge what was deleted at least this long ago: <n>s, <n>m, <n>h or <n>d; 0s purges the whole trash
  --vacuum           SQLite: rewrite the database once (VACUUM), switching an older one to incremental
                     vacuum so later purges shrink the file; the server waits meanwhile`,
  valueOptions: [...STORE_OPTIONS, "older-than", "blob-url", "s3-endpoint", "s3-region", "s3-force-path-style", "s3-direct-urls"],
  switches: ["vacuum"],
  async run({ positionals, values }) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const config = loadConfig(configFlags(values));
    const olderThan =
      typeof values["older-than"] === "string" ? parseDuration(values["older-than"], "older-than") : config.deletedRetentionMs;
    const store = await openStore(values, { create: false });
    try {
      const blobs = await openBlobStore(config);
      try {
        const started = performance.now();
        const report = await purgeRound({ store, blobs, clock: systemClock }, olderThan, (progress) => {
          if (progress.runs % PROGRESS_EVERY_RUNS === 0)
            console.log(`  ${progress.runs} runs purged (${progress.points} points, ${progress.fileObjects} file objects)…`);
        });
        const space = await store.reclaimSpace({ rewrite: values.vacuum === true, budgetMs: RECLAIM_BUDGET_MS });
        printReport(report, space, performance.now() - started);
        return 0;
      } finally {
        blobs.close();
      }
    } finally {
      await store.close();
    }
  },
};

function printReport(
  report: PurgeReport,
  space: { bytesBefore: number; bytesAfter: number; freeBytesLeft: number },
  elapsedMs: number,
): void {
  console.log(`Retention policies moved ${report.retired} runs to the trash.`);
  console.log(`Purged ${report.runs} runs and ${report.projects} projects in ${(elapsedMs / 1000).toFixed(1)} s:`);
  console.log(`  points        ${report.points}`);
  console.log(`  file records  ${report.files}`);
  console.log(`  file objects  ${report.fileObjects} (${report.fileBytes} bytes)`);
  console.log(
    `  database      ${space.bytesBefore} bytes before, ${space.bytesAfter} after (${space.bytesBefore - space.bytesAfter} freed)`,
  );
  if (space.freeBytesLeft > 0)
    console.log(
      `  ${space.freeBytesLeft} bytes are free inside the database file (new writes reuse them; gc --vacuum gives them back now)`,
    );
}
