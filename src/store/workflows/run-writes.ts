import type { ConsoleLogType } from "../../domain/console-logs.js";
import { logTypeOfFile } from "../../domain/files.js";
import { lastOfEachKey, type LogNameEntry, logNameEntries, logTypeOfData } from "../../domain/log-names.js";
import type { Json } from "../../domain/merge.js";
import { mergedJsonText, normalizeNotes, uniqueTags } from "../../domain/runs.js";
import { fromJsonText, toFile, type FileRow } from "../rows.js";
import type { ConsoleLine, DataRow, LogType, NewFile, StoredFile } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** A file row as an upsert returns it: the run's organization and project are added by the workflow. */
export type UpsertedFile = Omit<FileRow, "org_id" | "project_id">;

/** What writes to a run's data ask of a backend, each inside the workflow's transaction. */
export interface RunWriteOperations {
  /** The run's project ID, or undefined when the organization has no such run. */
  runProjectId(orgId: string, runId: number): number | undefined;
  /** The run's config as stored JSON text, read locked; undefined for an unknown run. */
  lockRunConfig(orgId: string, runId: number): { configText: string | null } | undefined;
  writeRunConfig(runId: number, configText: string | null, now: number): void;
  /** Sets one column of a run of the organization (and its updatedAt) in one statement; false when there is no such run. */
  writeRunColumn(orgId: string, runId: number, column: RunColumn, value: string | null, now: number): boolean;
  /** Adds the names the run does not list yet, in the order given: a known name keeps its type. */
  insertLogNames(runId: number, names: LogNameEntry[], now: number): void;
  /**
   * An ingested batch: the run's heartbeat and updatedAt move to `now` (never back: a late request
   * with an old clock never makes a run look stale), its project's updatedAt too when older than
   * PROJECT_ACTIVITY_RESOLUTION_MS (domain/time.ts: the project row is written, and locked, rarely).
   */
  touchActivity(runId: number, now: number): void;
  /** Writes lines of distinct keys, each replacing a stored line of its key; returns how many are new, by type. */
  upsertConsoleLines(runId: number, lines: ConsoleLine[]): Map<ConsoleLogType, number>;
  addConsoleLineCounts(runId: number, added: [ConsoleLogType, number][]): void;
  /** Writes rows of distinct (logName, step), each replacing a stored row of its key. */
  upsertDataRows(runId: number, rows: DataRow[]): void;
  /** Registers one file, keeping the ID of a name registered before and taking the new metadata. */
  upsertFile(runId: number, file: NewFile, now: number): UpsertedFile;
}

/** The run columns a single write replaces whole. */
export type RunColumn = "tags" | "notes" | "model_graph";

const perform = performer<RunWriteOperations>();
type RunWriteWorkflow<T> = Workflow<T, RunWriteOperations>;

/** Store.mergeRunConfig: read locked, so concurrent patches merge one after the other and none is lost. */
export function* mergeRunConfig(orgId: string, runId: number, patch: Json, now: number): RunWriteWorkflow<boolean> {
  const current = yield* perform("lockRunConfig", orgId, runId);
  if (!current) return false;
  yield* perform("writeRunConfig", runId, mergedJsonText("config", fromJsonText<Json>(current.configText), patch), now);
  return true;
}

/** Store.updateRunTags: a tag given twice is kept once, where it first appears. */
export function* updateRunTags(orgId: string, runId: number, tags: string[], now: number): RunWriteWorkflow<boolean> {
  return yield* perform("writeRunColumn", orgId, runId, "tags", JSON.stringify(uniqueTags(tags)), now);
}

/** Store.updateRunNotes: empty notes are no notes. */
export function* updateRunNotes(orgId: string, runId: number, notes: string | null, now: number): RunWriteWorkflow<boolean> {
  return yield* perform("writeRunColumn", orgId, runId, "notes", normalizeNotes(notes), now);
}

/** Store.setModelGraph. */
export function* setModelGraph(orgId: string, runId: number, graph: Json, now: number): RunWriteWorkflow<boolean> {
  return yield* perform("writeRunColumn", orgId, runId, "model_graph", JSON.stringify(graph), now);
}

/** Store.addLogNames. */
export function* addLogNames(orgId: string, runId: number, logNames: string[], logType: LogType, now: number): RunWriteWorkflow<boolean> {
  if ((yield* perform("runProjectId", orgId, runId)) === undefined) return false;
  yield* perform(
    "insertLogNames",
    runId,
    logNameEntries(
      logNames,
      (name) => name,
      () => logType,
    ),
    now,
  );
  return true;
}

/**
 * Store.appendConsoleLines. A line is (run, logType, lineNumber, time) (domain/console-logs.ts): a
 * re-sent line replaces the stored one, another process's line is added; within one batch the last
 * line of a key wins. Lines new to the run are counted per type.
 */
export function* appendConsoleLines(orgId: string, runId: number, lines: ConsoleLine[], now: number): RunWriteWorkflow<number | undefined> {
  if ((yield* perform("runProjectId", orgId, runId)) === undefined) return undefined;
  const distinct = lastOfEachKey(lines, (line) => `${line.logType}\u0000${line.lineNumber}\u0000${line.time}`);
  if (distinct.length > 0) {
    const added = yield* perform("upsertConsoleLines", runId, distinct);
    // In one order in every transaction, so concurrent batches take the count rows' locks alike.
    if (added.size > 0) yield* perform("addConsoleLineCounts", runId, [...added].sort());
  }
  yield* perform("touchActivity", runId, now);
  return lines.length;
}

/**
 * Store.appendDataRows. One row per (run, logName, step): a re-sent row replaces it, and within one
 * batch the last row of a key wins. A name keeps the log type of its first row, in the order sent.
 */
export function* appendDataRows(orgId: string, runId: number, rows: DataRow[], now: number): RunWriteWorkflow<number | undefined> {
  if ((yield* perform("runProjectId", orgId, runId)) === undefined) return undefined;
  const distinct = lastOfEachKey(rows, (row) => `${row.step}\u0000${row.logName}`);
  if (distinct.length > 0) yield* perform("upsertDataRows", runId, distinct);
  const names = logNameEntries(
    rows,
    (row) => row.logName,
    (row) => logTypeOfData(row.dataType),
  );
  yield* perform("insertLogNames", runId, names, now);
  yield* perform("touchActivity", runId, now);
  return rows.length;
}

/**
 * Store.registerFiles: idempotent on (run, logName, fileName), one upsert per file in the order
 * given, so a name sent twice in one batch answers one ID twice. Adds the log names by file type.
 */
export function* registerFiles(orgId: string, runId: number, files: NewFile[], now: number): RunWriteWorkflow<StoredFile[] | undefined> {
  const projectId = yield* perform("runProjectId", orgId, runId);
  if (projectId === undefined) return undefined;
  const names = logNameEntries(
    files,
    (file) => file.logName,
    (file) => logTypeOfFile(file.fileType),
  );
  yield* perform("insertLogNames", runId, names, now);
  const stored: StoredFile[] = [];
  for (const file of files) {
    const row = yield* perform("upsertFile", runId, file, now);
    stored.push(toFile({ ...row, org_id: orgId, project_id: projectId }));
  }
  yield* perform("touchActivity", runId, now);
  return stored;
}

/** A file's values in the column order both backends upsert them: run_id, log_name, file_name, … created_at. */
export function fileValues(runId: number, file: NewFile, now: number): unknown[] {
  return [
    runId,
    file.logName,
    file.fileName,
    file.fileType,
    file.fileSize,
    file.time,
    file.step,
    file.sampleIndex ?? null,
    file.caption ?? null,
    file.annotations ?? null,
    now,
  ];
}
