import { doesNotExist, invalidParameter, MlflowError } from "./errors.js";

/** Which experiments or runs a search lists, by lifecycle stage. */
export type ViewType = "ACTIVE_ONLY" | "DELETED_ONLY" | "ALL";

const VIEW_TYPES = new Map<string, ViewType>([
  ["ACTIVE_ONLY", "ACTIVE_ONLY"],
  ["DELETED_ONLY", "DELETED_ONLY"],
  ["ALL", "ALL"],
]);

/** A request's view type (absent or empty: ACTIVE_ONLY). */
export function viewTypeOf(value: string | undefined): ViewType {
  if (value === undefined || value === "") return "ACTIVE_ONLY";
  const viewType = VIEW_TYPES.get(value);
  if (!viewType)
    throw invalidParameter(`Invalid value '${value}' for parameter 'run_view_type': expected ACTIVE_ONLY, DELETED_ONLY or ALL`);
  return viewType;
}

/** Whether an experiment or run (deleted when `deletedAt` is set) is in the view. */
export function inView(deletedAt: number | null, viewType: ViewType): boolean {
  return viewType === "ALL" || (deletedAt === null) === (viewType === "ACTIVE_ONLY");
}

/** The deletion time after a delete (kept when already deleted) or a restore (none). */
export function deletedAtAfter(deleted: boolean, current: number | null, now: number): number | null {
  return deleted ? (current ?? now) : null;
}

/**
 * An experiment's deletion time after a delete or a restore, as MLflow's server decides it: it deletes
 * only an active experiment and restores only a deleted one, and answers as if no other existed
 * (sqlalchemy_store.py delete_experiment / restore_experiment read it ACTIVE_ONLY / DELETED_ONLY).
 */
export function experimentDeletedAtAfter(deleted: boolean, current: number | null, now: number, experimentId: string): number | null {
  if ((current !== null) === deleted) throw doesNotExist(`No Experiment with id=${experimentId} exists`);
  return deletedAtAfter(deleted, current, now);
}

/** MLflow's server renames only an active experiment (sqlalchemy_store.py rename_experiment). */
export function checkRenamable(deletedAt: number | null): void {
  if (deletedAt !== null) throw new MlflowError("INVALID_STATE", "Cannot rename a non-active experiment.");
}
