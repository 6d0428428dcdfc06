import { conflictOnUnique } from "../conflicts.js";
import type { NewSavedView, SavedView } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** The operations of the saved view writes (SavedViewStore). */
export interface SavedViewOperations {
  /** Inserts the view when the project is the organization's; its ID, or undefined when nothing was inserted. */
  insertSavedView(orgId: string, projectId: number, input: NewSavedView, now: number): number | undefined;
  /** Writes the fields given (null keeps a field) of the organization's view; whether it exists. */
  writeSavedView(orgId: string, viewId: number, name: string | null, stateText: string | null, now: number): boolean;
  getSavedView(orgId: string, viewId: number): SavedView | undefined;
}

const perform = performer<SavedViewOperations>();
const taken = (name: string) => `the project already has a view named '${name}'`;

/** Store.createSavedView: a name the project has already is CONFLICT, decided by the unique constraint. */
export function* createSavedView(
  orgId: string,
  projectId: number,
  input: NewSavedView,
  now: number,
): Workflow<SavedView | undefined, SavedViewOperations> {
  const id = yield* conflictOnUnique(perform("insertSavedView", orgId, projectId, input, now), taken(input.name));
  return id === undefined ? undefined : yield* perform("getSavedView", orgId, id);
}

/** Store.updateSavedView. */
export function* updateSavedView(
  orgId: string,
  viewId: number,
  change: Partial<NewSavedView>,
  now: number,
): Workflow<SavedView | undefined, SavedViewOperations> {
  const write = perform("writeSavedView", orgId, viewId, change.name ?? null, change.stateText ?? null, now);
  const found = yield* conflictOnUnique(write, taken(change.name ?? ""));
  return found ? yield* perform("getSavedView", orgId, viewId) : undefined;
}
