import { isTerminal, type RunStatus } from "../status.js";
import { type MlflowStatus, toMlflowStatus } from "./model.js";

/**
 * The pure rules of `stepwise import mlflow` (docs/import.md, "MLflow → Stepwise"): how the file store's encodings
 * read, when a run already in Stepwise is imported whole, and what a model version's source becomes.
 */

/** MLflow's RunStatus enum as its file store writes it in a run's meta.yaml (mlflow/protos/service.proto). */
const FILE_STORE_STATUSES = new Map<number, MlflowStatus>([
  [1, "RUNNING"],
  [2, "SCHEDULED"],
  [3, "FINISHED"],
  [4, "FAILED"],
  [5, "KILLED"],
]);

export function fileStoreStatus(value: unknown): MlflowStatus {
  const status = typeof value === "number" ? FILE_STORE_STATUSES.get(value) : undefined;
  if (typeof value === "string" && [...FILE_STORE_STATUSES.values()].includes(value as MlflowStatus)) return value as MlflowStatus;
  if (!status) throw new Error(`unknown run status ${JSON.stringify(value)}`);
  return status;
}

/** A metric value as MLflow writes it in text: Python's float repr ("nan", "inf", "-inf" included) or the REST API's "NaN", "Infinity". */
export function parseMetricValue(text: string): number {
  switch (text.toLowerCase()) {
    case "nan":
      return Number.NaN;
    case "inf":
    case "infinity":
      return Number.POSITIVE_INFINITY;
    case "-inf":
    case "-infinity":
      return Number.NEGATIVE_INFINITY;
  }
  const value = Number(text);
  if (text.trim() === "" || Number.isNaN(value)) throw new Error(`not a metric value: '${text}'`);
  return value;
}

/** One line of a file store's metric file: `<timestamp> <value> <step>` (files older than steps have no step: 0). */
export function parseMetricLine(line: string): { timestamp: number; value: number; step: number } {
  const parts = line.trim().split(/\s+/);
  if (parts.length < 2 || parts.length > 3) throw new Error(`not a metric line: '${line}'`);
  const timestamp = Number(parts[0]);
  const step = parts.length === 3 ? Number(parts[2]) : 0;
  if (!Number.isSafeInteger(timestamp) || !Number.isSafeInteger(step)) throw new Error(`not a metric line: '${line}'`);
  return { timestamp, value: parseMetricValue(parts[1]!), step };
}

/**
 * Whether a run already in Stepwise was imported whole: the importer writes a run's status last, so
 * a stored terminal status equal to the source's means everything before it is there. A source run
 * still RUNNING is never whole (it may log more): it is imported again, its points kept once.
 */
export function importedWhole(stored: RunStatus, source: MlflowStatus): boolean {
  return isTerminal(stored) && toMlflowStatus(stored) === source;
}

/**
 * The versions of a registered model still to import. Stepwise numbers a model's versions 1, 2, …
 * as they are created, so the source's versions in order become Stepwise's 1, 2, … (the same numbers
 * unless the source deleted some): the first `lastVersion` of them are there already.
 */
export function versionsToImport<T extends { version: number }>(versions: readonly T[], lastVersion: number): T[] {
  return [...versions].sort((a, b) => a.version - b.version).slice(lastVersion);
}
