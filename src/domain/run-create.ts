import { invalidInput } from "./errors.js";

/**
 * The rules of a create-run request (docs/semantics.md, Runs): its tag list and its fork.
 * (The store applies the rest: idempotence by external ID, the fork's lineage.)
 */

/** A new run's tags: each once, in the order first sent. */
export function createRunTags(tags: readonly string[] | null | undefined): string[] {
  return [...new Set(tags ?? [])];
}

export interface ForkRequest {
  forkRunId?: number | null;
  forkStep?: number | null;
  inheritConfig?: boolean | null;
  inheritTags?: boolean | null;
}

/**
 * The fork a request asks for, if any: forkRunId and forkStep come together; a fork inherits its
 * parent's config unless told not to, and its tags only when told to.
 */
export function forkOf(request: ForkRequest): { runId: number; step: number; inheritConfig: boolean; inheritTags: boolean } | undefined {
  const hasForkRun = request.forkRunId != null;
  if (hasForkRun !== (request.forkStep != null))
    throw invalidInput(hasForkRun ? "forkStep: is required with forkRunId" : "forkRunId: is required with forkStep");
  if (!hasForkRun) return undefined;
  return {
    runId: request.forkRunId!,
    step: request.forkStep!,
    inheritConfig: request.inheritConfig ?? true,
    inheritTags: request.inheritTags ?? false,
  };
}
