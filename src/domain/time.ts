/** Injected everywhere time matters, so tests can move it (signed URL expiry, stale runs). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The latest time a JavaScript date can hold (±8.64e15 ms, ECMAScript's range): every accepted time is at most this. */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;

/**
 * ISO-8601 UTC with milliseconds and `Z`, the one timestamp format of every response. A stored
 * time outside a date's range (written before the edge refused such values) is shown as the
 * nearest time a date can hold, never a RangeError that turns a whole list into a 500.
 */
export function toIso(epochMs: number): string {
  const presentable = Number.isNaN(epochMs) ? 0 : Math.min(MAX_EPOCH_MS, Math.max(-MAX_EPOCH_MS, epochMs));
  return new Date(presentable).toISOString();
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
