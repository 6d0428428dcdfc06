import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { Readable } from "node:stream";
import { sliceBySize, sliceSeries } from "../domain/ingest-slices.js";
import { isPlainObject, type Json } from "../domain/merge.js";
import { RunCollector } from "../import/tensorboard/collect.js";
import { discoverRuns, type EventFile, type RunDirectory } from "../import/tensorboard/discover.js";
import { decodeEvent, type EventVisitor } from "../import/tensorboard/events.js";
import { readRecords } from "../import/tensorboard/records.js";
import type { Run } from "../store/store.js";
import type { ServiceDeps } from "./deps.js";
import { FileService } from "./files.js";

/** The importer's own entry in an imported run's logger settings: the byte offset read up to in each event file. */
const SETTINGS_KEY = "tensorboardImport";
const IMPORTER = { userId: null, apiKeyId: null };
const MAX_EXTERNAL_ID = 255;

/** Thrown between two batches when the import was asked to stop (Ctrl-C): every batch written is whole. */
export class ImportInterrupted extends Error {}

export interface TensorboardImportRequest {
  orgId: string;
  projectName: string;
  logdir: string;
  /** The run name of a directory, from its path below the log directory. */
  runName: (relativePath: string, logdirName: string) => string;
  signal?: AbortSignal;
}

/** What the import reports as it goes; the CLI prints it. */
export interface ImportListener {
  /** Before a run's files are read: the bytes to read (then `bytesRead` as they are). */
  readStarted(name: string, bytes: number): void;
  bytesRead(done: number): void;
  runStarted(name: string, points: number): void;
  pointsWritten(done: number): void;
  runFinished(report: RunReport): void;
  /** A record that could not be read, or a file ending inside one. */
  problem(file: string, offset: number, problem: string): void;
}

export interface RunReport {
  name: string;
  runId: number | undefined;
  /** Nothing new since the last import: the run was not touched. */
  upToDate: boolean;
  created: boolean;
  points: number;
  histograms: number;
  texts: number;
  images: number;
  skippedRecords: number;
  notImported: Map<string, number>;
}

/**
 * Imports a TensorBoard log directory into a project (docs/import.md): one run per directory of
 * event files, matched on a re-run by an external ID from its path, so a re-run resumes and
 * imports only the records written since (each file's offset is kept in the run's logger
 * settings once the run's import is complete; an interrupted run is read again from its last
 * offsets, and what it had written is replaced by the same values: a step written again
 * replaces its value, data rows and files are keyed by name and step). Every write goes through
 * the store's ingest methods, a batch per transaction.
 */
export class TensorboardImport {
  private readonly files: FileService;

  constructor(private readonly deps: ServiceDeps) {
    this.files = new FileService(deps);
  }

  async run(request: TensorboardImportRequest, listener: ImportListener): Promise<RunReport[]> {
    const logdir = resolve(request.logdir);
    const logdirName = basename(logdir);
    const reports: RunReport[] = [];
    for (const directory of await discoverRuns(logdir, firstScalarTag)) {
      if (request.signal?.aborted) throw new ImportInterrupted();
      reports.push(await this.importRun(request, directory, logdirName, listener));
    }
    return reports;
  }

  private async importRun(
    request: TensorboardImportRequest,
    directory: RunDirectory,
    logdirName: string,
    listener: ImportListener,
  ): Promise<RunReport> {
    const { store, clock } = this.deps;
    const { orgId, projectName, signal } = request;
    const name = request.runName(directory.relativePath, logdirName);
    const externalId = externalIdOf(logdirName, directory.relativePath);
    const existing = await store.getRunByExternalId(orgId, projectName, externalId);
    const offsets = importedOffsets(existing);

    const collector = new RunCollector();
    const ends = new Map<string, number>();
    let skippedRecords = 0;
    let changed = existing === undefined;
    // A file shorter than what was imported from it was rewritten: read it again from the start.
    const startOf = (file: EventFile) => {
      const from = offsets.get(file.name) ?? 0;
      return from <= file.size ? from : 0;
    };
    listener.readStarted(
      name,
      directory.files.reduce((sum, file) => sum + file.size - startOf(file), 0),
    );
    let readBefore = 0;
    for (const file of directory.files) {
      const from = offsets.get(file.name) ?? 0;
      const start = startOf(file);
      const end = await this.readFile(
        file,
        start,
        collector,
        (offset, problem) => {
          skippedRecords++;
          listener.problem(file.path, offset, problem);
        },
        (offset) => listener.bytesRead(readBefore + offset - start),
      );
      readBefore += file.size - start;
      ends.set(file.name, end);
      if (end !== from) changed = true;
    }
    const series = collector.series();
    const report: RunReport = {
      name,
      runId: existing?.id,
      upToDate: !changed,
      created: existing === undefined,
      points: series.reduce((sum, s) => sum + s.steps.length, 0),
      histograms: collector.histograms,
      texts: collector.texts,
      images: collector.images.length,
      skippedRecords,
      notImported: collector.notImportedKinds,
    };
    if (!changed) {
      listener.runFinished(report);
      return report;
    }

    const now = clock.now();
    const config = collector.hyperparameters && (Object.fromEntries(collector.hyperparameters) as Json);
    const firstTime = Number.isFinite(collector.firstTime) ? collector.firstTime : now;
    const { run } = await store.createRun(
      orgId,
      { projectName, name, externalId, tags: ["tensorboard"], config, createdAt: firstTime, updatedAt: firstTime, now },
      IMPORTER,
    );
    report.runId = run.id;
    if (existing && config) await store.mergeRunConfig(orgId, run.id, config, now);

    listener.runStarted(name, report.points);
    let written = 0;
    for (const slice of sliceSeries(series)) {
      if (signal?.aborted) throw new ImportInterrupted();
      written += (await store.appendMetricPoints(orgId, run.id, slice, clock.now())) ?? 0;
      listener.pointsWritten(written);
    }
    for (const slice of sliceBySize(collector.rows, (row) => row.data.length + row.logName.length + 64)) {
      if (signal?.aborted) throw new ImportInterrupted();
      await store.appendDataRows(orgId, run.id, slice, clock.now());
    }
    for (const image of collector.images) {
      if (signal?.aborted) throw new ImportInterrupted();
      const [file] =
        (await this.files.register(
          orgId,
          run.id,
          [
            {
              logName: image.tag,
              fileName: `step-${image.step}.${imageExtension(image.bytes)}`,
              fileType: `image/${imageExtension(image.bytes)}`,
              fileSize: image.bytes.length,
              time: image.time,
              step: image.step,
            },
          ],
          () => "image",
          clock.now(),
        )) ?? [];
      if (file) await this.files.receive(file, Readable.from([image.bytes]));
    }

    const lastTime = Math.max(collector.lastTime, existing?.statusUpdated ?? Number.NEGATIVE_INFINITY);
    await store.updateRunStatus(
      orgId,
      run.id,
      {
        status: "COMPLETED",
        statusUpdated: Number.isFinite(lastTime) ? lastTime : clock.now(),
        loggerSettings: { [SETTINGS_KEY]: { files: Object.fromEntries(ends) } },
        source: "api",
        now: clock.now(),
      },
      IMPORTER,
    );
    listener.runFinished(report);
    return report;
  }

  /** Reads one event file from `start` into the collector; answers the offset read up to. */
  private async readFile(
    file: EventFile,
    start: number,
    collector: RunCollector,
    problem: (offset: number, problem: string) => void,
    progress: (offset: number) => void,
  ): Promise<number> {
    const handle = await open(file.path, "r");
    try {
      const mainTag = file.subSeries?.split("/")[0];
      let records = 0;
      collector.subSeries = file.subSeries && mainTag ? { tag: mainTag, logName: file.subSeries } : undefined;
      const outcome = await readRecords(handle, start, file.size, {
        record(buf, start, end, offset) {
          // Every 4,096 records: the progress line's clock is not read per event.
          if ((++records & 4095) === 0) progress(offset);
          try {
            decodeEvent(buf, collector, start, end);
          } catch (error) {
            problem(offset, `undecodable event (${(error as Error).message}): skipped`);
          }
        },
        problem: ({ offset, problem: what }) => problem(offset, what),
      });
      if (outcome.incompleteAt !== undefined)
        problem(outcome.incompleteAt, "the file ends inside this record (cut, or still being written): imported up to it");
      return outcome.end;
    } finally {
      collector.subSeries = undefined;
      await handle.close();
    }
  }
}

/** The tag of a file's first scalar, or undefined when none comes in its first records. */
async function firstScalarTag(path: string): Promise<string | undefined> {
  const handle = await open(path, "r");
  try {
    let found: string | undefined;
    const size = Math.min((await handle.stat()).size, 1024 * 1024);
    await readRecords(handle, 0, size, {
      record(buf, start, end) {
        if (found !== undefined) return;
        try {
          decodeEvent(buf, { ...IGNORE_ALL, scalar: (tag) => (found ??= tag) }, start, end);
        } catch {
          // An undecodable record: the import reports it when it reads the file.
        }
      },
      problem() {},
    });
    return found;
  } finally {
    await handle.close();
  }
}

const IGNORE_ALL: EventVisitor = {
  scalar() {},
  histogram() {},
  image() {},
  text() {},
  hparams() {},
  notImported() {},
};

/** A run's external ID: the log directory's name and the run's path in it (hashed past 255 characters). */
export function externalIdOf(logdirName: string, relativePath: string): string {
  const id = `tensorboard:${logdirName}${relativePath === "" ? "" : `/${relativePath}`}`;
  return id.length <= MAX_EXTERNAL_ID ? id : `tensorboard:sha256:${createHash("sha256").update(id).digest("hex")}`;
}

/** The offsets a completed earlier import recorded, by file name below the run's directory. */
function importedOffsets(run: Run | undefined): Map<string, number> {
  const settings = run?.loggerSettings;
  const mine = isPlainObject(settings) ? new Map(Object.entries(settings)).get(SETTINGS_KEY) : undefined;
  const files = isPlainObject(mine) ? new Map(Object.entries(mine)).get("files") : undefined;
  if (!isPlainObject(files)) return new Map();
  return new Map(
    Object.entries(files).flatMap(([name, offset]) =>
      typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0 ? [[name, offset] as const] : [],
    ),
  );
}

/** The image format by its first bytes (tensorboardX and TensorFlow write PNG; JPEG and GIF exist too). */
function imageExtension(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "jpeg";
  if (bytes.subarray(0, 3).toString("latin1") === "GIF") return "gif";
  return "png";
}
