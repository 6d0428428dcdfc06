import { toIso, toIsoOrNull } from "../domain/time.js";
import type { Alert, LogName, Run, StatusEvent, User } from "../store/store.js";
import { runUrl } from "../domain/web-urls.js";

/** Run → the full details response (docs/semantics.md, Runs: fields), with the fork fields of the by-ID variant. */
export function toRunDetails(run: Run, logNames: LogName[], forks: Run[] = []) {
  return {
    id: run.id,
    name: run.name,
    number: run.number,
    displayId: run.displayId,
    status: run.status,
    tags: run.tags,
    notes: run.notes,
    config: run.config,
    systemMetadata: run.systemMetadata,
    loggerSettings: run.loggerSettings,
    statusMetadata: run.statusMetadata,
    createdAt: toIso(run.createdAt),
    updatedAt: toIso(run.updatedAt),
    statusUpdated: toIsoOrNull(run.statusUpdated),
    projectName: run.projectName,
    externalId: run.externalId,
    forkedFromRunId: run.forkedFromRunId,
    forkStep: run.forkStep,
    forkChildren: forks.map((fork) => ({
      id: fork.id,
      name: fork.name,
      displayId: fork.displayId,
      status: fork.status,
      forkStep: fork.forkStep,
    })),
    logNames,
  };
}

/** Run → the create/resume response (docs/semantics.md, Runs: create). */
export function toRunReference(run: Run, orgSlug: string, base: string, resumed: boolean) {
  return {
    runId: run.id,
    number: run.number,
    displayId: run.displayId,
    projectName: run.projectName,
    organizationSlug: orgSlug,
    url: runUrl(base, run.projectName, run.id),
    resumed,
    forkedFromRunId: run.forkedFromRunId,
    forkStep: run.forkStep,
  };
}

export function toStatusEvent(event: StatusEvent) {
  return { ...event, id: String(event.id), createdAt: toIso(event.createdAt) };
}

export function toAlert(alert: Alert) {
  return { ...alert, timestamp: toIsoOrNull(alert.timestamp), createdAt: toIso(alert.createdAt) };
}

/** A user as the API shows it: never its password hash. */
export function presentUser(user: User) {
  return { id: user.id, email: user.email, name: user.name, kind: user.kind };
}
