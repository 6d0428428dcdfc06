import type { RunStatus } from "./status.js";

/** How long a run has run: to its last status change once finished, to `now` while RUNNING. */
export function runDuration(run: { status: RunStatus; createdAt: number; statusUpdated: number | null }, now: number): number {
  return (run.status === "RUNNING" || run.statusUpdated === null ? now : run.statusUpdated) - run.createdAt;
}
