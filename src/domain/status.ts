export const RUN_STATUSES = ["RUNNING", "COMPLETED", "FAILED", "TERMINATED", "CANCELLED"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const STATUS_SOURCES = ["api", "resume", "stale"] as const;
export type StatusSource = (typeof STATUS_SOURCES)[number];

// Higher wins among terminal statuses written through the API (docs/semantics.md, Runs: status).
const TERMINAL_PRECEDENCE: Record<Exclude<RunStatus, "RUNNING">, number> = {
  COMPLETED: 1,
  TERMINATED: 2,
  CANCELLED: 3,
  FAILED: 4,
};

export function isTerminal(status: RunStatus): status is Exclude<RunStatus, "RUNNING"> {
  return status !== "RUNNING";
}

/**
 * Whether a status write changes the run. A repeat of the current status is not applied, so many
 * ranks reporting the same outcome leave one timeline entry; a terminal status never replaces a
 * terminal status of higher precedence; RUNNING may follow any terminal status (a resume).
 */
export function shouldApplyStatus(current: RunStatus, requested: RunStatus): boolean {
  if (current === requested) return false;
  if (isTerminal(current) && isTerminal(requested)) {
    return TERMINAL_PRECEDENCE[requested] > TERMINAL_PRECEDENCE[current];
  }
  return true;
}

/** Status names accepted by run filters, including the aliases other trackers use. */
export const STATUS_ALIASES: ReadonlyMap<string, RunStatus> = new Map([
  ["finished", "COMPLETED"],
  ["crashed", "FAILED"],
  ["killed", "TERMINATED"],
]);

/** The status metadata of a run the stale-run monitor marked FAILED (docs/semantics.md, Runs: status). */
export const STALE_STATUS_METADATA: { reason: string } = Object.freeze({ reason: "stale" });
