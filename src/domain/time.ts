/** Injected everywhere time matters, so tests can move it (signed URL expiry, stale runs). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** ISO-8601 UTC with milliseconds and `Z`, the one timestamp format of every response. */
export function toIso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function toIsoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : toIso(epochMs);
}

/**
 * Ingest is activity (docs/api.md, "Last update and last activity"): every batch moves its run's
 * `updatedAt`, and its project's `updatedAt` when that is at least this old, so a busy run does not
 * rewrite its project's row on every request.
 */
export const PROJECT_ACTIVITY_RESOLUTION_MS = 1000;
