import { DomainError, invalidInput } from "./errors.js";
import { deepMerge, type Json } from "./merge.js";
import { shouldApplyStatus, type RunStatus } from "./status.js";

/** A run's tags keep the first occurrence of each tag, in the order given. */
export function uniqueTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

/** Empty notes are no notes: both clear them. */
export function normalizeNotes(notes: string | null): string | null {
  return notes === "" ? null : notes;
}

/** What a fork reads of its parent. */
export interface ForkParent {
  id: number;
  projectId: number;
  config: Json | null;
  tags: string[];
  forkStep: number | null;
}

export interface ForkRequest {
  runId: number;
  step: number;
  inheritConfig: boolean;
  inheritTags: boolean;
}

/**
 * The highest step a child may fork at: the parent's own last logged step, or the step it inherits
 * up to when it is itself a fork. A run without any points can be forked at step 0 only.
 */
export function forkLastStep(parent: Pick<ForkParent, "forkStep">, ownLastStep: number | null): number {
  return Math.max(ownLastStep ?? 0, parent.forkStep ?? 0);
}

/**
 * Checks a fork against its parent (which must exist in the child's project) and returns the
 * child's config and tags: the parent's deep-merged under the child's when asked to inherit.
 * Throws RUN_NOT_FOUND or INVALID_INPUT; the caller writes nothing then.
 */
export function forkedAttributes(
  fork: ForkRequest,
  parent: ForkParent | undefined,
  parentOwnLastStep: number | null,
  child: { projectId: number; projectName: string; config: Json | null; tags: string[] },
): { config: Json | null; tags: string[] } {
  if (!parent || parent.projectId !== child.projectId) {
    throw new DomainError("RUN_NOT_FOUND", `forkRunId: run '${fork.runId}' not found in project '${child.projectName}'`);
  }
  const lastStep = forkLastStep(parent, parentOwnLastStep);
  if (fork.step > lastStep) throw invalidInput(`forkStep: ${fork.step} is past the last step of run ${parent.id} (${lastStep})`);
  return {
    config: fork.inheritConfig && parent.config !== null ? deepMerge(parent.config, child.config ?? {}) : child.config,
    tags: fork.inheritTags ? uniqueTags([...parent.tags, ...child.tags]) : child.tags,
  };
}

/**
 * A deleted project (an experiment deleted through MLflow's API) takes no new runs, whichever
 * protocol asks, as on MLflow's server: restore it first. Each store calls this inside the create's
 * transaction, after it holds the project row, so a delete racing the create cannot leave an
 * active run in a deleted project.
 */
export function checkProjectTakesRuns(project: { name: string; deleted_at: number | null }): void {
  if (project.deleted_at !== null)
    throw new DomainError(
      "CONFLICT",
      `project '${project.name}' is deleted (MLflow's experiments/delete): restore it (experiments/restore) to add runs`,
    );
}

/**
 * What one run may accumulate in each of its JSON fields (docs/api.md, "Limits on every request"):
 * config, logger settings, MLflow's tags and dataset inputs, each at most this many characters of
 * JSON text, the size of one JSON-text field of a request. Updates merge or append, so without a
 * bound a run's row grew with every call (40 config updates made a 40 MB row that every write
 * then re-read); past it an update is a 413 and changes nothing.
 */
export const MAX_RUN_JSON_LENGTH = 1_000_000;

/** The JSON text of an accumulated field, or a 413 naming it when it would pass MAX_RUN_JSON_LENGTH. */
export function accumulatedJsonText(field: string, value: Json | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  if (text.length > MAX_RUN_JSON_LENGTH)
    throw new DomainError(
      "PAYLOAD_TOO_LARGE",
      `${field}: a run's ${field} may hold at most ${MAX_RUN_JSON_LENGTH} characters of JSON; this update would make it ${text.length}`,
    );
  return text;
}

/** A JSON field after a deep-merge patch (config, logger settings), as the text to store. */
export function mergedJsonText(field: string, current: Json | null, patch: Json): string | null {
  return accumulatedJsonText(field, deepMerge(current ?? undefined, patch));
}

/** A status write as a client asks for it (Store.updateRunStatus). */
export interface StatusRequest {
  status: RunStatus;
  /** When the status changed (backfill); defaults to `now`. */
  statusUpdated?: number;
  statusMetadata?: Json;
  loggerSettings?: Json;
  now: number;
}

/** What an applied status write stores on the run; its history event takes `statusUpdated` as its time. */
export interface StatusWrite {
  status: RunStatus;
  statusUpdated: number;
  statusMetadata: Json | null;
  /** The run's logger settings with the request's merged in, as stored JSON text. */
  loggerSettingsText: string | null;
  now: number;
}

/**
 * Decides a status write against the run's current status and logger settings (JSON text):
 * undefined when the precedence rules of domain/status.ts ignore it (then nothing is stored, not
 * even the logger settings), else what the run becomes.
 */
export function decideStatusWrite(
  current: { status: RunStatus; loggerSettingsText: string | null },
  request: StatusRequest,
): StatusWrite | undefined {
  if (!shouldApplyStatus(current.status, request.status)) return undefined;
  const loggerSettingsText =
    request.loggerSettings === undefined
      ? current.loggerSettingsText
      : mergedJsonText(
          "loggerSettings",
          current.loggerSettingsText === null ? null : (JSON.parse(current.loggerSettingsText) as Json),
          request.loggerSettings,
        );
  return {
    status: request.status,
    statusUpdated: request.statusUpdated ?? request.now,
    statusMetadata: request.statusMetadata ?? null,
    loggerSettingsText,
    now: request.now,
  };
}
