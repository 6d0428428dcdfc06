import { DomainError, projectNotFound } from "../domain/errors.js";
import { viewName, viewStateText } from "../domain/saved-views.js";
import { toIso } from "../domain/time.js";
import type { NewSavedView, SavedView, SavedViewSummary, Store } from "../store/store.js";

/**
 * Saved views of a project's page (docs/api.md, "Saved views"). Everything is of the caller's
 * organization: another organization's project or view reads as one that does not exist (404).
 */

const viewNotFound = (viewId: number) => new DomainError("NOT_FOUND", `view ${viewId} not found`);

const summary = (view: SavedViewSummary) => ({
  id: view.id,
  projectName: view.projectName,
  name: view.name,
  createdAt: toIso(view.createdAt),
  updatedAt: toIso(view.updatedAt),
});

const withState = (view: SavedView) => ({ ...summary(view), state: JSON.parse(view.stateText) as Record<string, unknown> });

async function projectOf(store: Store, orgId: string, projectName: string) {
  const project = await store.getProjectByName(orgId, projectName);
  if (!project) throw projectNotFound(projectName);
  return project;
}

export async function listViews(store: Store, orgId: string, query: { projectName: string; limit: number; offset: number }) {
  const project = await projectOf(store, orgId, query.projectName);
  return { views: (await store.listSavedViews(orgId, project.id, query)).map(summary) };
}

export async function createView(store: Store, orgId: string, body: { projectName: string; name: string; state: unknown }, now: number) {
  const input = { name: viewName(body.name), stateText: viewStateText(body.state) };
  const project = await projectOf(store, orgId, body.projectName);
  const view = await store.createSavedView(orgId, project.id, input, now);
  if (!view) throw projectNotFound(body.projectName); // deleted between the two reads
  return withState(view);
}

export async function getView(store: Store, orgId: string, viewId: number) {
  const view = await store.getSavedView(orgId, viewId);
  if (!view) throw viewNotFound(viewId);
  return withState(view);
}

export async function updateView(store: Store, orgId: string, viewId: number, body: { name?: string; state?: unknown }, now: number) {
  const change: Partial<NewSavedView> = {};
  if (body.name !== undefined) change.name = viewName(body.name);
  if (body.state !== undefined) change.stateText = viewStateText(body.state);
  const view = await store.updateSavedView(orgId, viewId, change, now);
  if (!view) throw viewNotFound(viewId);
  return withState(view);
}

export async function deleteView(store: Store, orgId: string, viewId: number) {
  if (!(await store.deleteSavedView(orgId, viewId))) throw viewNotFound(viewId);
  return { success: true };
}
